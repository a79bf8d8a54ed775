/**
 * At most `limit` holders at once in this process; a freed place passes straight to the next waiter, in arrival
 * order. The per-host fetch limit (src/detection/fetch/host-limiter.ts) and the browser's pages (src/detection/fetch/browser.ts)
 * both hold places of one.
 */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** True while nobody holds or waits for a place (a keyed limiter drops such entries). */
  get idle(): boolean {
    return this.held === 0 && this.waiting.length === 0;
  }

  /** A place; with `waitMs`, false when none came free within it (nothing is then held). */
  acquire(waitMs?: number): Promise<boolean> {
    if (this.held < this.limit) {
      this.held += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      if (waitMs !== undefined) {
        timer = setTimeout(() => {
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          resolve(false);
        }, waitMs);
        timer.unref();
      }
      this.waiting.push(wake);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next)
      next(); // the place passes straight to the next waiter
    else this.held -= 1;
  }

  /** `task` in a place. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }
}
