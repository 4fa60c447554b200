// Sealing secrets at rest (each person's Parts API token, the signing and cookie keys) with
// AES-256-GCM under the keyring of PARTS_MCP_OAUTH_KEYS: the first key seals, every key opens,
// and the additional data binds a sealed value to its record (a grant id), so a value moved to
// another record no longer opens.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { OAuthKey } from "../config";

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Keyring {
  readonly #keys: OAuthKey[];

  constructor(keys: OAuthKey[]) {
    if (keys.length === 0) throw new Error("a keyring needs at least one key");
    this.#keys = keys;
  }

  /** `kid.iv.ciphertext+tag`, base64url parts. */
  seal(plaintext: string, aad: string): string {
    const { kid, key } = this.#keys[0] as OAuthKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(aad, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [kid, iv.toString("base64url"), body.toString("base64url")].join(".");
  }

  /** The plaintext, or undefined when the key is gone, the value was altered or moved. */
  open(sealed: string, aad: string): string | undefined {
    const [kid, iv, body] = sealed.split(".");
    const key = this.#keys.find((k) => k.kid === kid)?.key;
    if (key === undefined || iv === undefined || body === undefined) return undefined;
    const bytes = Buffer.from(body, "base64url");
    if (bytes.length < TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(aad, "utf8"));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      return undefined;
    }
  }

  /** Whether `sealed` was sealed by an older key (a rotation re-seals it). */
  isStale(sealed: string): boolean {
    return !sealed.startsWith(`${(this.#keys[0] as OAuthKey).kid}.`);
  }
}
