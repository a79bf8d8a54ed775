import { AUTH_CACHE_MS } from "../../src/auth/context.js";

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`): for work done by background jobs. */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Repeats a request until it answers `status`, for at most as long as a cached caller may still show the old plan,
 * role or membership (AUTH_CACHE_MS; docs/product-rules.md#consistency). Returns that response.
 */
export async function untilCallerSees<R extends { status: number }>(send: () => PromiseLike<R>, status: number) {
  return waitFor(
    async () => {
      const response = await send();
      return response.status === status ? response : null;
    },
    AUTH_CACHE_MS + 2000,
    `an answer ${status} once the cached caller has expired`,
  );
}
