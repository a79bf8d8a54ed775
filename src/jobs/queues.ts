/**
 * Every pg-boss queue, declared in one place with its retry policy, dead-letter queue and the payload its jobs carry
 * (docs/architecture.md#queues-in-one-place). Areas add their queues here and their handlers in their own `jobs.ts`
 * (merged by src/jobs/registry.ts); `startJobs` creates every queue before anything sends or works. This module is a
 * leaf: any area can send to any queue without importing another area's code.
 */
import type PgBoss from "pg-boss";

export interface QueueDefinition<Payload extends object = object> {
  name: string;
  options: Omit<PgBoss.Queue, "name">;
  /**
   * Workers per process and jobs per fetch: throughput ≈ batchSize ÷ polling interval × workers
   * (docs/stack-notes.md#pg-boss-throughput).
   */
  work: { workers: number; batchSize: number; pollingIntervalSeconds: number };
  /** Type only (never set): what each job of the queue carries. Jobs carry ids, never rows or messages. */
  readonly payload?: Payload;
}

/** A queue whose jobs carry `Payload`. */
function queue<Payload extends object>(
  definition: Omit<QueueDefinition<Payload>, "payload">,
): QueueDefinition<Payload> {
  return definition;
}

/** The payload a queue's jobs carry. */
export type PayloadOf<Q> = Q extends QueueDefinition<infer Payload> ? Payload : never;

/** Why a fetch was queued (logged, and shown in the admin jobs view). */
export type FetchTrigger = "schedule" | "run-now";

/** Jobs that exhausted their retries land here, for operators to inspect. */
export const DEAD_LETTER_QUEUE = "dead-letter";

export const QUEUES = {
  /**
   * One outgoing email (password resets, invitations); the transport is chosen by EMAIL_TRANSPORT. Every transport's
   * hand-over is cut at half this expiry (EMAIL_SEND_DEADLINE_MS in src/email/transports.ts is derived from it), so a
   * slow mail server fails an attempt rather than outliving its job and being sent a second time alongside it.
   */
  emailSend: queue<{ email_id: string }>({
    name: "email-send",
    options: { retryLimit: 8, retryDelay: 15, retryBackoff: true, expireInSeconds: 60, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 5, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * Fetch one source and turn what changed into events (src/detection/pipeline.ts). Transient failures (timeouts,
   * 5xx, 429) retry with backoff; the source's row records every failure for the customer.
   */
  sourceFetch: queue<{ source_id: string; trigger: FetchTrigger }>({
    name: "source-fetch",
    options: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 120, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 4, batchSize: 10, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * One job per new event, inserted in the transaction that stores the event; delivery (alert rules, webhooks, CRM)
   * consumes it with database work only (the sending is other queues' jobs). Kept a week, so a delivery worker that
   * was down catches up; a 2-minute expiry (pg-boss's default is 15) lets a killed worker's events go out soon.
   * Handled a batch at a time (docs/architecture.md#batch-handlers): one job at a time, 2 × 100 measured 39–61
   * events/s end to end (bench/webhooks.ts), at six round trips per event; in batches, 230–330/s.
   */
  eventCreated: queue<{ event_id: string }>({
    name: "event-created",
    options: {
      retryLimit: 10,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionMinutes: 7 * 24 * 60,
      deadLetter: DEAD_LETTER_QUEUE,
    },
    work: { workers: 2, batchSize: 100, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * One job per source health transition (src/sources/health.ts), inserted in the transaction that moves the source's
   * state; its fan-out (src/delivery/notices.ts) queues the immediate alerts and webhook deliveries that tell it, with
   * database work only, idempotently per recipient and subscription.
   */
  sourceNoticeCreated: queue<{ notice_id: string }>({
    name: "source-notice-created",
    options: {
      retryLimit: 10,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionMinutes: 7 * 24 * 60,
      deadLetter: DEAD_LETTER_QUEUE,
    },
    work: { workers: 1, batchSize: 10, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * The LLM's rewrite of one new event's summary (src/events/summaries.ts), queued by the `event-created` fan-out when
   * an LLM is configured. The LLM client retries within the job; a failed rewrite keeps the detection's text, so a
   * retry here is for the database. The expiry sits above the client's 90 s in all.
   */
  eventSummary: queue<{ event_id: string }>({
    name: "event-summary",
    options: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 180, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 2, batchSize: 1, pollingIntervalSeconds: 1 },
  }),
  /**
   * One Slack message of an immediate alert (src/alerts/slack.ts). 429, 5xx and network failures retry with
   * backoff; each job's first delay is WEBHOOK_RETRY_BASE_SECONDS (set by the sender), so 8 retries span hours. The
   * expiry sits above the HTTP client's 60 s whole-exchange deadline, so a slow attempt is never run twice at once.
   */
  alertSlack: queue<{ delivery_id: string }>({
    name: "alert-slack",
    options: { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 90, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 10, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * One attempt of one outbound webhook delivery (src/webhooks/deliver.ts). The retry schedule
   * (docs/product-rules.md#retries-and-dead-letter) is the handler's own: each retry is a new job with its startAfter.
   * pg-boss's retries only recover a job whose worker died or whose database write failed. An attempt gives up after
   * 10 s (the success rule), so a 30 s expiry never starts a running attempt twice, and a killed worker's deliveries
   * are re-run within a minute (expiry + maintenance). The target is ≥ 300 signed deliveries/s
   * (docs/architecture.md#performance-targets). One job at a time (seven round trips each), 4 × 100 measured 77–149/s
   * on 2 cores (bench/webhooks.ts, delivery stage alone); in batches (docs/architecture.md#batch-handlers), 360–620/s.
   */
  webhookDeliver: queue<{ delivery_id: string }>({
    name: "webhook-deliver",
    options: { retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 30, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 4, batchSize: 100, pollingIntervalSeconds: 0.5 },
  }),
  /**
   * One scheduled digest run (src/digests/schedule.ts): generates the slot's digest of every eligible workspace.
   * Re-running it is harmless (digests are unique per workspace and run), so a crashed run simply retries.
   */
  digestGenerate: queue<{ mark: string; period_type: "daily" | "weekly"; scheduled_for: string }>({
    name: "digest-generate",
    options: {
      retryLimit: 5,
      retryDelay: 60,
      retryBackoff: true,
      expireInSeconds: 1800,
      deadLetter: DEAD_LETTER_QUEUE,
    },
    work: { workers: 1, batchSize: 1, pollingIntervalSeconds: 2 },
  }),
  /**
   * One member's scheduled digest email (src/digests/send.ts). A transport failure marks the delivery `failed` and
   * throws, so pg-boss retries it with backoff; the expiry sits above nodemailer's and the HTTP provider's timeouts.
   */
  digestDeliver: queue<{ delivery_id: string }>({
    name: "digest-deliver",
    options: { retryLimit: 6, retryDelay: 60, retryBackoff: true, expireInSeconds: 300, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 10, pollingIntervalSeconds: 1 },
  }),
  /**
   * One event's write-back to one CRM connection (src/crm/sync.ts). 429, 5xx and network failures throw, so pg-boss
   * retries with backoff (the first delay is set by the sender: WEBHOOK_RETRY_BASE_SECONDS); per-record progress makes
   * a retry skip what is written. A 401 stops the sync without retrying. The expiry covers a large fan-out (up to
   * 2,000 deals, two calls each) and equals the sync's lease, so a crashed run's sync is free when pg-boss retries it.
   */
  crmSync: queue<{ sync_id: string }>({
    name: "crm-sync",
    options: { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 900, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 5, pollingIntervalSeconds: 0.5 },
  }),
  /** One connection's daily rollup engagements for one UTC day (src/crm/rollup.ts); same retry rules as crm-sync. */
  crmRollup: queue<{ run_id: string }>({
    name: "crm-rollup",
    options: { retryLimit: 8, retryDelay: 60, retryBackoff: true, expireInSeconds: 900, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 2, pollingIntervalSeconds: 1 },
  }),
  /**
   * One run of a workspace's firehose (src/firehose/run.ts), queued by the scheduler once per cadence slot. Re-runs
   * are harmless (a mention is stored once), so a crashed run is simply run again; a source that fails is retried by
   * the next run, which searches its window again.
   */
  firehoseRun: queue<{ workspace_id: string }>({
    name: "firehose-run",
    options: {
      retryLimit: 2,
      retryDelay: 120,
      retryBackoff: true,
      expireInSeconds: 900,
      deadLetter: DEAD_LETTER_QUEUE,
    },
    work: { workers: 1, batchSize: 1, pollingIntervalSeconds: 2 },
  }),
  /**
   * Triage of one inbound support message (src/support/triage.ts), queued in the transaction that stores it. Re-runs
   * rewrite the same thread fields; an LLM failure falls back to the rule-based triage, so a retry is for the database.
   */
  supportTriage: queue<{ message_id: string }>({
    name: "support-triage",
    options: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 300, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 2, pollingIntervalSeconds: 0.5 },
  }),
};

export type QueueKey = keyof typeof QUEUES;
