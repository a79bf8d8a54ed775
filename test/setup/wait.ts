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
 * Repeats a request until it answers `status`, for at most as long as an access-change notice may take to reach the
 * API process after the change committed (docs/architecture.md#consistency): the cached caller is dropped then, not
 * when it expires. Returns that response.
 */
export async function untilCallerSees<R extends { status: number }>(send: () => PromiseLike<R>, status: number) {
  return waitFor(
    async () => {
      const response = await send();
      return response.status === status ? response : null;
    },
    NOTICE_BOUND_MS,
    `an answer ${status} once the access-change notice has arrived`,
  );
}

/** Far above a notice's delay on loopback (well under a millisecond), for a busy CI machine. */
export const NOTICE_BOUND_MS = 2000;
