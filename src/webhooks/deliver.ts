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
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Knex } from "knex";
import { WorkspaceScope } from "../db/tenancy.js";
import { loadEventToSend } from "../delivery/event.js";
import type { DeliveryDeps, EventToSend } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { enqueueEmail } from "../email/outbox.js";
import { secretBoxOf } from "../lib/secret-box.js";
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
}

/** The delivery with its subscription. */
interface DeliveryRow {
  id: string;
  status: string;
  job_id: string | null;
  event_id: string;
  subscription_id: string;
  environment: string;
  url: string;
  signing_secret: string;
  workspace_id: string;
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
function buildPayload(delivery: DeliveryRow, event: EventToSend, deliveredAt: Date): WebhookPayload {
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
 * The `webhook-deliver` job's rules, built from the worker's deps: `attempt` makes one signed POST of the delivery the
 * job holds and records what came of it.
 */
export class WebhookDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  /** One attempt of `deliveryId` by job `jobId`; `skipped` unless that job holds the pending delivery. */
  async attempt(deliveryId: string, jobId: string): Promise<DeliveryOutcome> {
    const delivery = await this.loadDelivery(deliveryId);
    if (!delivery || delivery.status !== "pending" || delivery.job_id !== jobId) return "skipped";
    const event = await loadEventToSend(this.deps.knex, delivery.event_id);
    if (!event) return "skipped";

    // Webhooks need api_access while they are delivered too (docs/product-rules.md#access-and-roles): a downgrade
    // stops the pending ones.
    if (!limitsOf(event.plan).api_access) return this.stopForPlan(deliveryId, jobId, event.plan);

    // The POST runs outside any transaction: no connection is held while the receiver answers.
    const result = await this.post(delivery, event);
    const outcome = await this.deps.knex.transaction((trx) => this.recordAttempt(trx, delivery, event, jobId, result));
    this.deps.log.info(
      { delivery: deliveryId, event: delivery.event_id, status: result.statusCode, error: result.error, outcome },
      "webhook attempt",
    );
    return outcome;
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

  /** The delivery the job names, with its subscription (a delivery belongs to its subscription's workspace). */
  private async loadDelivery(deliveryId: string): Promise<DeliveryRow | null> {
    const row: DeliveryRow | undefined = await this.deps
      .knex("webhook_deliveries as d")
      .join("webhook_subscriptions as s", "s.id", "d.subscription_id")
      .where("d.id", deliveryId)
      .first(
        "d.id",
        "d.status",
        "d.job_id",
        "d.event_id",
        "s.id as subscription_id",
        "s.environment",
        "s.url",
        "s.signing_secret",
        "s.workspace_id",
      );
    return row ?? null;
  }

  /** One signed POST. Never throws for the receiver's failures: they are the attempt's result. */
  private async post(delivery: DeliveryRow, event: EventToSend): Promise<AttemptResult> {
    const attemptedAt = new Date();
    // Fresh per attempt (docs/product-rules.md#outbound-signature): receivers allow 300 s of skew, so a retry must not
    // replay an old timestamp.
    const body = JSON.stringify(buildPayload(delivery, event, attemptedAt));
    const headers = {
      "content-type": "application/json",
      [EVENT_ID_HEADER]: delivery.event_id,
      [SIGNATURE_HEADER]: signatureHeader(
        secretBoxOf(this.deps.config).open(delivery.signing_secret),
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
    event: EventToSend,
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
    event: EventToSend,
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
