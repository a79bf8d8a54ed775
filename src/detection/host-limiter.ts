/**
 * At most `limit` concurrent fetches per host in this process, so a competitor's site sees a polite crawler even
 * when many of its sources are due at once (the scheduler also spaces them out in time).
 */
export class HostLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit = 2) {}

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(host);
    try {
      return await task();
    } finally {
      this.release(host);
    }
  }

  private acquire(host: string): Promise<void> {
    const active = this.active.get(host) ?? 0;
    if (active < this.limit) {
      this.active.set(host, active + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(host) ?? [];
      queue.push(resolve);
      this.waiting.set(host, queue);
    });
  }

  private release(host: string): void {
    const next = this.waiting.get(host)?.shift();
    if (next) return next(); // the slot passes straight to the next waiter
    const active = (this.active.get(host) ?? 1) - 1;
    if (active === 0) this.active.delete(host);
    else this.active.set(host, active);
    if (this.waiting.get(host)?.length === 0) this.waiting.delete(host);
  }
}

/** The host a source's fetches are spaced and limited by (its URL's host, lowercased; the URL itself if unparsable). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
