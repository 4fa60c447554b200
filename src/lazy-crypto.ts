// node:crypto's hashing and constant-time comparison, loading the module on first use: nothing
// before the server's first answer needs it, and loading it takes a few ms of every cold start
// (docs/performance.md).
import type * as Crypto from "node:crypto";

let crypto: typeof Crypto | undefined;
const load = () => (crypto ??= process.getBuiltinModule("node:crypto"));

export const createHash = (algorithm: string): Crypto.Hash => load().createHash(algorithm);

export const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean =>
  load().timingSafeEqual(a, b);
