// Reading a request body with a size limit, for the MCP HTTP endpoint and the embedded API alike:
// the limit is checked on the declared Content-Length first, then on the bytes as they arrive.
import type { IncomingMessage } from "node:http";

/** The client went away while its request body was arriving. */
export class ClientGone extends Error {}

/** The body is larger than the limit (the rest of it is discarded). */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

/** Reads a request body up to `limit` bytes; over the limit, BodyTooLarge. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new BodyTooLarge(limit);
  if (req.destroyed || req.readableAborted) return Promise.reject(new ClientGone());
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGone());
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}
