/**
 * Password hashing with scrypt at OWASP's parameters (N=2^17, r=8, p=1). Format: `scrypt$N$r$p$salt$hash` (base64url),
 * so parameters can be raised later without breaking existing hashes.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

const KEY_LENGTH = 32;
const DEFAULT_COST = { N: 2 ** 17, r: 8, p: 1 };

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

// scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is below OWASP's cost
// (docs/stack-notes.md#tokens-and-passwords).
const maxmemFor = (N: number, r: number) => 256 * N * r;

export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...cost, maxmem: maxmemFor(cost.N, cost.r) });
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const N = Number(n);
  const R = Number(r);
  const key = await scrypt(password, Buffer.from(salt, "base64url"), {
    N,
    r: R,
    p: Number(p),
    maxmem: maxmemFor(N, R),
  });
  const expected = Buffer.from(hash, "base64url");
  return expected.length === key.length && timingSafeEqual(expected, key);
}
