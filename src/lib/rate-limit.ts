import type { Knex } from "knex";

export interface RateLimitRule {
  /** Bucket name, e.g. `login:email:a@b.com`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/** Expired buckets deleted per scheduler tick at most, so one tick after a long pause stays short. */
const PRUNE_BATCH = 10_000;

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
    // `expires_at` is when the window ends, for pruneExpiredBuckets.
    const { rows } = await this.knex.raw(
      `INSERT INTO rate_limit_buckets (key, window_started_at, count, expires_at)
       VALUES (:key, now(), 1, now() + make_interval(secs => :window))
       ON CONFLICT (key) DO UPDATE SET
         window_started_at = CASE WHEN rate_limit_buckets.window_started_at < now() - make_interval(secs => :window)
                                  THEN now() ELSE rate_limit_buckets.window_started_at END,
         count = CASE WHEN rate_limit_buckets.window_started_at < now() - make_interval(secs => :window)
                      THEN 1 ELSE rate_limit_buckets.count + 1 END,
         expires_at = CASE WHEN rate_limit_buckets.window_started_at < now() - make_interval(secs => :window)
                           THEN now() + make_interval(secs => :window) ELSE rate_limit_buckets.expires_at END
       RETURNING window_started_at, count`,
      { key: rule.key, window: rule.windowSeconds },
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

/**
 * Deletes buckets whose window has ended (a scheduler task): one is worth nothing once its window has passed (the
 * next hit starts a new one), and every client address and email ever seen would otherwise keep a row. Rows another
 * transaction holds are left for the next tick rather than waited for.
 */
export async function pruneExpiredBuckets(db: Knex | Knex.Transaction): Promise<number> {
  return db("rate_limit_buckets")
    .whereIn(
      "key",
      db("rate_limit_buckets")
        .where("expires_at", "<", db.fn.now())
        .limit(PRUNE_BATCH)
        .forUpdate()
        .skipLocked()
        .select("key"),
    )
    .delete();
}
