import type { Knex } from "knex";

export interface RateLimitRule {
  /** Bucket name, e.g. `login:email:a@b.com`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters in Postgres, shared by every API process. `hit` counts one attempt and reports whether the
 * caller is over the limit; `peek` only reads (to refuse before doing expensive work such as a password hash).
 */
export class RateLimiter {
  constructor(private readonly knex: Knex) {}

  /** Seconds until the window resets when the bucket is full, otherwise `null`. */
  async peek(rule: RateLimitRule): Promise<number | null> {
    const row = await this.knex("rate_limit_buckets").where({ key: rule.key }).first("window_started_at", "count");
    return this.retryAfter(rule, row);
  }

  /** Counts an attempt; returns seconds to wait when this attempt went over the limit, otherwise `null`. */
  async hit(rule: RateLimitRule): Promise<number | null> {
    // One statement: start a new window when the old one has passed, otherwise increment (atomic across processes).
    const { rows } = await this.knex.raw(
      `INSERT INTO rate_limit_buckets (key, window_started_at, count) VALUES (?, now(), 1)
       ON CONFLICT (key) DO UPDATE SET
         window_started_at = CASE WHEN rate_limit_buckets.window_started_at < now() - make_interval(secs => ?)
                                  THEN now() ELSE rate_limit_buckets.window_started_at END,
         count = CASE WHEN rate_limit_buckets.window_started_at < now() - make_interval(secs => ?)
                      THEN 1 ELSE rate_limit_buckets.count + 1 END
       RETURNING window_started_at, count`,
      [rule.key, rule.windowSeconds, rule.windowSeconds],
    );
    const row = rows[0] as { window_started_at: Date; count: number };
    return row.count > rule.limit ? this.secondsLeft(rule, row.window_started_at) : null;
  }

  async reset(key: string): Promise<void> {
    await this.knex("rate_limit_buckets").where({ key }).delete();
  }

  private retryAfter(rule: RateLimitRule, row: { window_started_at: Date; count: number } | undefined): number | null {
    if (!row) return null;
    const left = this.secondsLeft(rule, row.window_started_at);
    return left > 0 && row.count >= rule.limit ? left : null;
  }

  private secondsLeft(rule: RateLimitRule, windowStartedAt: Date): number {
    return Math.ceil((windowStartedAt.getTime() + rule.windowSeconds * 1000 - Date.now()) / 1000);
  }
}
