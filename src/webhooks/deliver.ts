/**
 * One attempt of one outbound webhook delivery: the `webhook-deliver` job
 * (docs/product-rules.md#webhooks-and-signatures).
 *
 * Exactly one job may act on a delivery at a time: the one whose id the delivery row holds (`job_id`). Each retry is a
 * new job, queued with its `startAfter` in the transaction that records the failed attempt and hands `job_id` to it,
 * so the schedule is ours (docs/product-rules.md#retries-and-dead-letter), not pg-boss's. pg-boss retries only recover
 * a job whose worker died mid-attempt (the retried job keeps its id, so it still holds the delivery and tries again:
 * at-least-once); a duplicate or stale job finds another id, or a finished delivery, and does nothing. A delivered
 * delivery is never sent again.
 */
import { metrics } from "../metrics/metrics.js";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Knex } from "knex";
import { WorkspaceScope } from "../db/tenancy.js";
import { loadEventsToSend } from "../delivery/event.js";
import { loadNoticesToDeliver } from "../delivery/notice.js";
import type { DeliveryDeps, EventToSend, NoticeToDeliver } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { enqueueEmail } from "../email/outbox.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import { FetchError } from "../lib/http-client.js";
import { limitsOf } from "../workspaces/plans.js";
import { ATTEMPT_TIMEOUT_MS, classifyStatus, nextAttemptAt, parseRetryAfter } from "./policy.js";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signature.js";

/** What the job did, for logs and tests. */
export type DeliveryOutcome =
  | "delivered"
  | "retry_scheduled"
  | "failed"
  | "dead"
  /** Nothing to do: the delivery is gone, finished, or held by another job. */
  | "skipped";

/**
 * What a delivery carries: an event, or a source health notice (docs/product-rules.md#source-health), signed, retried
 * and dead-lettered alike.
 */
type Sendable = EventToSend | NoticeToDeliver;

/** The body of docs/product-rules.md#outbound-webhooks. */
export interface WebhookPayload {
  event_id: string;
  delivered_at: string;
  workspace_id: string;
  competitor: { id: string; name: string; domain: string };
  event: {
    type: string;
    severity: string;
    confidence: number;
    title: string;
    summary: string;
    detected_at: string;
    source_url: string;
  };
  /** Notices only: the source concerned, its state, why and what to do. */
  source?: {
    id: string;
    url: string;
    source_type: string;
    health_state: string;
    reason: string;
    detail: string;
    action: string;
  };
}

/** The delivery with its subscription. */
interface DeliveryRow {
  id: string;
  status: string;
  job_id: string | null;
  /** The event delivered, or (for a notice) null. */
  event_id: string | null;
  notice_id: string | null;
  subscription_id: string;
  environment: string;
  url: string;
  signing_secret: string;
  workspace_id: string;
}

/** What one job of a batch came to: its outcome, or the error that fails it (and retries it). */
export interface AttemptOutcome {
  outcome?: DeliveryOutcome;
  error?: unknown;
}

/** A POST made for a job that holds its delivery. */
interface Attempt {
  delivery: DeliveryRow;
  event: Sendable;
  jobId: string;
  result: AttemptResult;
}

interface AttemptResult {
  attemptedAt: Date;
  endedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  verdict: "delivered" | "retry" | "failed";
  retryAfterSeconds: number | null;
}

/**
 * The body for one attempt: `delivered_at` is the time of this attempt. The event outlives its source (no FK), so
 * source_url falls back to the URL its evidence recorded, and lastly to the competitor's site: the spec makes it a
 * string (EventToSend).
 */
function buildPayload(delivery: DeliveryRow, event: Sendable, deliveredAt: Date): WebhookPayload {
  if ("kind" in event) return noticePayload(delivery, event, deliveredAt);
  return {
    event_id: event.id,
    delivered_at: deliveredAt.toISOString(),
    workspace_id: delivery.workspace_id,
    competitor: { id: event.competitor_id, name: event.competitor_name, domain: event.competitor_domain },
    event: {
      type: event.event_type,
      severity: event.severity,
      confidence: event.confidence_score,
      title: event.title,
      summary: event.summary,
      detected_at: new Date(event.detected_at).toISOString(),
      source_url: event.source_url,
    },
  };
}

/**
 * A notice in the event body's shape, so receivers switch on `event.type` (`source_broken`, `source_recovered`) as for
 * events; `event_id` is the notice's id, and `source` says why and what to do.
 */
function noticePayload(delivery: DeliveryRow, notice: NoticeToDeliver, deliveredAt: Date): WebhookPayload {
  return {
    event_id: notice.id,
    delivered_at: deliveredAt.toISOString(),
    workspace_id: delivery.workspace_id,
    competitor: { id: notice.competitor_id, name: notice.competitor_name, domain: notice.competitor_domain },
    event: {
      type: notice.notice_type,
      severity: notice.notice_type === "source_broken" ? "high" : "low",
      confidence: 1,
      title: notice.title,
      summary: notice.action ? `${notice.detail} What to do: ${notice.action}` : notice.detail,
      detected_at: new Date(notice.created_at).toISOString(),
      source_url: notice.source_url,
    },
    source: {
      id: notice.source_id,
      url: notice.source_url,
      source_type: notice.source_type,
      health_state: notice.health_state,
      reason: notice.reason,
      detail: notice.detail,
      action: notice.action,
    },
  };
}

/** The event or notice a delivery carries: its id. */
function subjectId(delivery: Pick<DeliveryRow, "event_id" | "notice_id">): string {
  return (delivery.event_id ?? delivery.notice_id)!;
}

/**
 * The `webhook-deliver` job's rules, built from the worker's deps: `attempt` makes one signed POST of the delivery the
 * job holds and records what came of it.
 */
export class WebhookDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  /** One attempt of `deliveryId` by job `jobId`; `skipped` unless that job holds the pending delivery. */
  async attempt(deliveryId: string, jobId: string): Promise<DeliveryOutcome> {
    const [result] = await this.attemptMany([{ deliveryId, jobId }]);
    if (result!.error !== undefined) throw result!.error;
    return result!.outcome!;
  }

  /**
   * One attempt of each delivery by its job, for a batch of `webhook-deliver` jobs (docs/architecture.md#batch-handlers):
   * the deliveries and their events in two queries, the POSTs at once, and every delivered one recorded in one
   * statement. Answers other than a 2xx are rarer and record one by one, as does a batch whose shared step fails.
   * Each job's result is its outcome, or the error that fails that job alone.
   */
  async attemptMany(jobs: { deliveryId: string; jobId: string }[]): Promise<AttemptOutcome[]> {
    let held: (DeliveryRow | null)[];
    let events: Map<string, Sendable>;
    try {
      const deliveries = await this.loadDeliveries(jobs.map((job) => job.deliveryId));
      held = jobs.map((job) => {
        const delivery = deliveries.get(job.deliveryId);
        return delivery && delivery.status === "pending" && delivery.job_id === job.jobId ? delivery : null;
      });
      const eventIds = new Set(held.flatMap((delivery) => (delivery?.event_id ? [delivery.event_id] : [])));
      const noticeIds = new Set(held.flatMap((delivery) => (delivery?.notice_id ? [delivery.notice_id] : [])));
      events = new Map<string, Sendable>([
        ...(eventIds.size > 0 ? await loadEventsToSend(this.deps.knex, [...eventIds]) : []),
        ...(await loadNoticesToDeliver(this.deps.knex, [...noticeIds])),
      ]);
    } catch (error) {
      if (jobs.length === 1) return [{ error }];
      // One job at a time, so that what failed the batch (a malformed id, a lost connection) fails only its own job.
      return (await Promise.all(jobs.map((job) => this.attemptMany([job])))).flat();
    }
    const attempts = await Promise.allSettled(
      jobs.map(async (job, index): Promise<Attempt | DeliveryOutcome> => {
        const delivery = held[index];
        const event = delivery && events.get(subjectId(delivery));
        if (!delivery || !event) return "skipped";
        // Webhooks need api_access while they are delivered too (docs/product-rules.md#access-and-roles): a downgrade
        // stops the pending ones.
        if (!limitsOf(event.plan).api_access) return this.stopForPlan(job.deliveryId, job.jobId, event.plan);
        // The POST runs outside any transaction: no connection is held while the receiver answers.
        return { delivery, event, jobId: job.jobId, result: await this.post(delivery, event) };
      }),
    );

    const outcomes: AttemptOutcome[] = attempts.map((attempt) =>
      attempt.status === "rejected"
        ? { error: attempt.reason }
        : typeof attempt.value === "string"
          ? { outcome: attempt.value }
          : {},
    );
    const posted = attempts.flatMap((attempt, index) =>
      attempt.status === "fulfilled" && typeof attempt.value !== "string" ? [{ index, ...attempt.value }] : [],
    );
    const delivered = posted.filter((attempt) => attempt.result.verdict === "delivered");
    let recordedTogether = new Set<string>();
    try {
      recordedTogether = await this.recordDelivered(delivered);
    } catch {
      // Recorded one by one below, each in its own transaction.
    }
    await Promise.all(
      posted.map(async ({ index, delivery, event, jobId, result }) => {
        try {
          const outcome =
            result.verdict === "delivered" && recordedTogether.has(delivery.id)
              ? "delivered"
              : await this.deps.knex.transaction((trx) => this.recordAttempt(trx, delivery, event, jobId, result));
          outcomes[index] = { outcome };
          this.deps.log.info(
            {
              delivery: delivery.id,
              event: subjectId(delivery),
              status: result.statusCode,
              error: result.error,
              outcome,
            },
            "webhook attempt",
          );
          metrics.webhookAttempts.inc({ outcome });
        } catch (error) {
          outcomes[index] = { error };
        }
      }),
    );
    return outcomes;
  }

  /**
   * Records successful attempts in one statement: each attempt row, and the delivery marked delivered if its job still
   * holds it (as `recordAttempt` does for one). Returns the deliveries it marked; a delivery it did not mark (deleted,
   * or taken over meanwhile) is recorded again by `recordAttempt`, which finds it finished or gone and skips it. The
   * caller logs every attempt, these included.
   */
  private async recordDelivered(attempts: { delivery: DeliveryRow; jobId: string; result: AttemptResult }[]) {
    if (attempts.length === 0) return new Set<string>();
    const column = <T>(pick: (attempt: (typeof attempts)[number]) => T) => attempts.map(pick);
    const { rows } = await this.deps.knex.raw<{ rows: { id: string }[] }>(
      `WITH posted AS (
         SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::timestamptz[], ?::timestamptz[], ?::int[], ?::int[])
                    AS p(id, job_id, attempted_at, ended_at, status_code, latency_ms)
       ), attempts AS (
         INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error)
         SELECT p.id, p.attempted_at, p.status_code, p.latency_ms, NULL
           FROM posted p JOIN webhook_deliveries d ON d.id = p.id
       )
       UPDATE webhook_deliveries d
          SET status = 'delivered', attempts = d.attempts + 1,
              first_attempt_at = COALESCE(d.first_attempt_at, p.attempted_at), last_attempt_at = p.attempted_at,
              last_status = p.status_code, last_error = NULL, delivered_at = p.ended_at, next_attempt_at = NULL
         FROM posted p
        WHERE d.id = p.id AND d.status = 'pending' AND d.job_id = p.job_id
       RETURNING d.id`,
      [
        column((a) => a.delivery.id),
        column((a) => a.jobId),
        column((a) => a.result.attemptedAt),
        column((a) => a.result.endedAt),
        column((a) => a.result.statusCode),
        column((a) => a.result.latencyMs),
      ] as Knex.RawBinding[],
    );
    return new Set(rows.map((row) => row.id));
  }

  private async stopForPlan(deliveryId: string, jobId: string, plan: string): Promise<DeliveryOutcome> {
    const stopped = await this.deps
      .knex("webhook_deliveries")
      .where({ id: deliveryId, status: "pending", job_id: jobId })
      .update({
        status: "failed",
        next_attempt_at: null,
        last_error: `the workspace's ${plan} plan no longer includes webhooks (api_access)`,
      });
    return stopped > 0 ? "failed" : "skipped";
  }

  /** The deliveries the jobs name, with their subscriptions (a delivery belongs to its subscription's workspace). */
  private async loadDeliveries(deliveryIds: string[]): Promise<Map<string, DeliveryRow>> {
    const rows: DeliveryRow[] = await this.deps
      .knex("webhook_deliveries as d")
      .join("webhook_subscriptions as s", "s.id", "d.subscription_id")
      .whereIn("d.id", deliveryIds)
      .select(
        "d.id",
        "d.status",
        "d.job_id",
        "d.event_id",
        "d.notice_id",
        "s.id as subscription_id",
        "s.environment",
        "s.url",
        "s.signing_secret",
        "s.workspace_id",
      );
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** One signed POST. Never throws for the receiver's failures: they are the attempt's result. */
  private async post(delivery: DeliveryRow, event: Sendable): Promise<AttemptResult> {
    const attemptedAt = new Date();
    // Fresh per attempt (docs/product-rules.md#outbound-signature): receivers allow 300 s of skew, so a retry must not
    // replay an old timestamp.
    const body = JSON.stringify(buildPayload(delivery, event, attemptedAt));
    const headers = {
      "content-type": "application/json",
      [EVENT_ID_HEADER]: subjectId(delivery),
      [SIGNATURE_HEADER]: signatureHeader(
        secretBoxOf(this.deps.config).open(
          delivery.signing_secret,
          sealedPlace.webhookSigningSecret(delivery.subscription_id),
        ),
        body,
        attemptedAt.getTime() / 1000,
      ),
    };
    const started = performance.now();
    try {
      const response = await this.deps.http.send(delivery.url, {
        method: "POST",
        headers,
        body,
        timeoutMs: ATTEMPT_TIMEOUT_MS,
        // A later answer counts as a failure anyway: stop waiting, so an attempt never outlives its job's expiry.
        totalTimeoutMs: ATTEMPT_TIMEOUT_MS,
      });
      const endedAt = new Date();
      const latencyMs = Math.round(performance.now() - started);
      let verdict = classifyStatus(response.status);
      let error = verdict === "delivered" ? null : `HTTP ${response.status}`;
      // The client's timeouts bound connect, headers and idle body separately; the rule is the whole answer in 10 s.
      if (latencyMs > ATTEMPT_TIMEOUT_MS) {
        verdict = "retry";
        error = `answered HTTP ${response.status} after ${latencyMs} ms, later than ${ATTEMPT_TIMEOUT_MS / 1000} s`;
      }
      return {
        attemptedAt,
        endedAt,
        statusCode: response.status,
        latencyMs,
        error,
        verdict,
        retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], endedAt.getTime()),
      };
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      // Timeouts, refused or reset connections and DNS failures may pass; a blocked or invalid target will not.
      return {
        attemptedAt,
        endedAt: new Date(),
        statusCode: null,
        latencyMs: Math.round(performance.now() - started),
        error: error.message,
        verdict: error.retryable ? "retry" : "failed",
        retryAfterSeconds: null,
      };
    }
  }

  private async recordAttempt(
    trx: Knex.Transaction,
    delivery: DeliveryRow,
    event: Sendable,
    jobId: string,
    result: AttemptResult,
  ): Promise<DeliveryOutcome> {
    const current = await trx("webhook_deliveries")
      .where({ id: delivery.id })
      .forUpdate()
      .first<{ status: string; job_id: string | null; attempts: number; first_attempt_at: Date | null }>(
        "status",
        "job_id",
        "attempts",
        "first_attempt_at",
      );
    // Deleted meanwhile with its subscription (replaced by webhook-promote): nothing left to record on.
    if (!current) return "skipped";
    // Every attempt that reached the network is kept, even one whose job lost the delivery meanwhile.
    await trx("webhook_attempts").insert({
      delivery_id: delivery.id,
      attempted_at: result.attemptedAt,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      error: result.error,
    });
    if (current.status !== "pending" || current.job_id !== jobId) return "skipped";

    const attempts = current.attempts + 1;
    const firstAttemptAt = current.first_attempt_at ?? result.attemptedAt;
    const common = {
      attempts,
      first_attempt_at: firstAttemptAt,
      last_attempt_at: result.attemptedAt,
      last_status: result.statusCode,
      last_error: result.error,
    };
    const update = (changes: Record<string, unknown>) =>
      trx("webhook_deliveries")
        .where({ id: delivery.id })
        .update({ ...common, ...changes });

    if (result.verdict === "delivered") {
      await update({ status: "delivered", delivered_at: result.endedAt, next_attempt_at: null });
      return "delivered";
    }
    if (result.verdict === "failed") {
      await update({ status: "failed", next_attempt_at: null });
      return "failed";
    }

    const next = nextAttemptAt({
      attempt: attempts,
      firstAttemptAt: new Date(firstAttemptAt),
      now: result.endedAt,
      baseSeconds: this.deps.config.webhookRetryBaseSeconds,
      windowSeconds: this.deps.config.webhookRetryWindowSeconds,
      retryAfterSeconds: result.retryAfterSeconds,
    });
    if (next === null) {
      await update({ status: "dead", next_attempt_at: null });
      await this.notifyOwners(trx, delivery, event, attempts, result.error);
      return "dead";
    }
    const nextJobId = randomUUID();
    await update({ next_attempt_at: next, job_id: nextJobId });
    await this.deps.jobs.send(
      QUEUES.webhookDeliver,
      { delivery_id: delivery.id },
      { id: nextJobId, startAfter: next },
      trx,
    );
    return "retry_scheduled";
  }

  /**
   * The dead letter (docs/product-rules.md#retries-and-dead-letter): one email to each owner of the workspace, naming
   * the subscription and the event, queued in the transaction that marks the delivery dead, so it is sent once and only
   * if that commits.
   */
  private async notifyOwners(
    trx: Knex.Transaction,
    delivery: DeliveryRow,
    event: Sendable,
    attempts: number,
    lastError: string | null,
  ): Promise<void> {
    const scope = new WorkspaceScope(trx, delivery.workspace_id);
    const owners = await scope
      .from("memberships as m")
      .join("users as u", "u.id", "m.user_id")
      .where({ "m.role": "owner" })
      .orderBy("u.email")
      .select<{ email: string; name: string }[]>("u.email", "u.name");
    const seconds = this.deps.config.webhookRetryWindowSeconds;
    const window = seconds % 3600 === 0 ? `${seconds / 3600} hour(s)` : `${seconds} second(s)`;
    for (const owner of owners) {
      await enqueueEmail(
        this.deps.jobs,
        {
          to: owner.email,
          subject: `Webhook delivery failed: ${event.title}`,
          text:
            `Hi ${owner.name},\n\n` +
            `Rivalscope could not deliver an event to your ${delivery.environment} webhook and has stopped trying: ` +
            `${attempts} attempt(s) failed in the ${window} after the first one.\n\n` +
            `Subscription: ${delivery.subscription_id} (${delivery.environment})\n` +
            `URL: ${delivery.url}\n` +
            `Event: ${event.id}\n` +
            `Title: ${event.title}\n` +
            `Last error: ${lastError ?? "none"}\n\n` +
            `The event is still available through the API and the dashboard.\n`,
        },
        trx,
      );
    }
  }
}
