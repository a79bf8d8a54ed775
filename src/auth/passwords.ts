/**
 * Password hashing with scrypt at OWASP's parameters (N=2^17, r=8, p=1). Format: `scrypt$N$r$p$salt$hash` (base64url),
 * so parameters can be raised later without breaking existing hashes.
 *
 * Every computation, hash or verify, takes one of a few process-wide slots first
 * (docs/product-rules.md#tokens-and-passwords): scrypt runs on libuv's thread pool (4 threads by default), which DNS
 * lookups, zlib and file I/O share, and at 128 MiB and ~0.45 s a hash, a handful of concurrent requests would pin the
 * whole pool and a few hundred MiB.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { tooManyRequests } from "../http/errors.js";

const KEY_LENGTH = 32;
const DEFAULT_COST = { N: 2 ** 17, r: 8, p: 1 };

/** Hashes computed at once: half the default thread pool, so the other half stays free for everything else. */
export const CONCURRENT_HASHES = 2;
/** Hashes waiting for a slot at most (~2 s of work at 0.45 s a hash); one more is refused with 429. */
export const WAITING_HASHES = 10;

/** A counting semaphore with a bounded FIFO queue. */
class HashSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Recent duration of one hash, for the Retry-After of a refusal. */
  private averageMs = 450;

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) {
        throw tooManyRequests(this.secondsToDrain(), "Too many password operations in progress; try again shortly");
      }
      // The slot is handed over by the finishing computation, so `active` never drops in between.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active += 1;
    }
    const started = Date.now();
    try {
      return await work();
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (Date.now() - started);
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  private secondsToDrain(): number {
    const rounds = Math.ceil((this.waiting.length + this.active) / this.concurrency);
    return Math.max(1, Math.ceil((rounds * this.averageMs) / 1000));
  }
}

const slots = new HashSlots(CONCURRENT_HASHES, WAITING_HASHES);

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return slots.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scryptCallback(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );
}

// scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is below OWASP's cost
// (docs/stack-notes.md#tokens-and-passwords).
const maxmemFor = (N: number, r: number) => 256 * N * r;

/** Throws a 429 ApiError when too many hashes are already waiting. */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...cost, maxmem: maxmemFor(cost.N, cost.r) });
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Throws a 429 ApiError when too many hashes are already waiting. */
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
