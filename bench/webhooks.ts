/**
 * Scenarios 4 and 5: outbound webhooks (docs/architecture.md#performance-targets): signed deliveries/s to a loopback
 * receiver that always answers 200 (target ≥ 300/s on this 2-core machine) and event → webhook received latency
 * (target ≤ 1 s after the event is committed).
 *
 * A Growth workspace with one production subscription to a loopback receiver (test/fakes/load-webhook-receiver.ts,
 * in the bench's process) that answers 200 to everything; the service's worker processes sign and send.
 *
 * - Throughput: N events and their `event-created` jobs committed in one transaction (as detection commits a page's
 *   events with their jobs); the figure is N over the time from the start of that transaction until the receiver has
 *   every event id. A second pass commits N deliveries with their `webhook-deliver` jobs instead (what the
 *   event-created consumer writes), so it measures the delivery stage alone; the gap is the consumer's share. Every
 *   request's signature is then checked with Stripe's library (docs/product-rules.md#outbound-signature), so only
 *   signed deliveries count.
 * - Latency: events committed one at a time with their `event-created` job (the pipeline's code path), each at a
 *   random moment of the workers' polling cycle; the figure is commit → the receiver has the request.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import Stripe from "stripe";
import { knexExecutor, type Jobs } from "../src/jobs/boss.js";
import { QUEUES } from "../src/jobs/queues.js";
import { upsertSubscription } from "../src/webhooks/subscriptions.js";
import { LoadWebhookReceiver, type LoadRequest } from "../test/fakes/load-webhook-receiver.js";
import type { Cleanup } from "./cleanup.js";
import { openBenchJobs } from "./database.js";
import { cpuSeconds, median, progress, sleep } from "./util.js";

export interface WebhookThroughputPass {
  deliveries: number;
  /** Seconds the bench's transaction took to commit the pass's rows and jobs. */
  commitSeconds: number;
  /** Seconds until the first webhook arrived. */
  firstSeconds: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** CPU used by the worker processes in the pass, as a share of one core (`null` without /proc). */
  workerCpuShare: number | null;
}

export interface WebhookResult {
  /** Events committed with their event-created jobs → every webhook received. */
  throughput: WebhookThroughputPass;
  /** Deliveries committed with their webhook-deliver jobs → every webhook received. */
  deliverOnly: WebhookThroughputPass;
  /** Requests whose `x-ci-signature` Stripe's library verified (every request of both passes). */
  verified: number;
  latency: { samplesMs: number[]; medianMs: number; p95Ms: number; maxMs: number };
}

const PASS_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 15_000;

export async function measureWebhooks(options: {
  knex: Knex;
  databaseUrl: string;
  /** The processes that run the workers (for their CPU use). */
  workerPids: number[];
  workspaceId: string;
  /** The key the worker processes open stored secrets with (their `SECRETS_KEY`). */
  secretsKey: Buffer;
  events: number;
  latencyRuns: number;
  cleanup: Cleanup;
}): Promise<WebhookResult> {
  const { knex, workspaceId } = options;
  const receiver = await new LoadWebhookReceiver().start();
  options.cleanup.add("stop the webhook receiver", () => receiver.stop());
  const { jobs, stop: stopJobs } = await openBenchJobs(options.databaseUrl, options.cleanup);

  const [competitor] = await knex("competitors")
    .insert({ workspace_id: workspaceId, name: "Hookline", domain: "hookline.example" })
    .returning("id");
  // Inactive, so the workers' scheduler never fetches it; the payload's source_url comes from it, as in production.
  const [source] = await knex("sources")
    .insert({
      competitor_id: competitor.id,
      workspace_id: workspaceId,
      url: "https://hookline.example/pricing",
      normalized_url: "https://hookline.example/pricing",
      source_type: "pricing",
      is_active: false,
    })
    .returning("id");
  const subscription = await upsertSubscription(
    { knex, config: { allowPrivateTargets: true, secretsKey: options.secretsKey } },
    { workspaceId, url: receiver.url("/hook"), environment: "production" },
  );
  const event = { workspaceId, competitorId: competitor.id as string, sourceId: source.id as string };

  progress(`webhooks: ${options.events} events committed at once with their event-created jobs`);
  const throughput = await measurePass(options, receiver, async (trx) => {
    const ids = await insertEvents(trx, event, options.events);
    await jobs.boss.insert(
      ids.map((id) => ({ name: QUEUES.eventCreated.name, data: { event_id: id } })),
      { db: knexExecutor(trx) },
    );
    return ids;
  });
  progress(`webhooks via event-created: ${describePass(throughput)}`);

  progress(`webhooks: ${options.events} deliveries committed at once with their webhook-deliver jobs`);
  const deliverOnly = await measurePass(options, receiver, async (trx) => {
    const ids = await insertEvents(trx, event, options.events);
    // What src/webhooks/consumer.ts writes for each event: the delivery, held by the job queued with it.
    const deliveries = ids.map((eventId) => ({ event_id: eventId, job_id: randomUUID() }));
    const rows: { id: string; job_id: string }[] = await trx("webhook_deliveries")
      .insert(deliveries.map((d) => ({ ...d, subscription_id: subscription.id })))
      .returning(["id", "job_id"]);
    await jobs.boss.insert(
      rows.map((row) => ({ id: row.job_id, name: QUEUES.webhookDeliver.name, data: { delivery_id: row.id } })),
      { db: knexExecutor(trx) },
    );
    return ids;
  });
  progress(`webhooks, delivery stage alone: ${describePass(deliverOnly)}`);

  let verified = 0;
  for (const request of receiver.requests) {
    // Throws on a missing or wrong signature: the bench then reports a failure instead of a figure.
    Stripe.webhooks.constructEvent(
      request.rawBody,
      request.headers["x-ci-signature"] as string,
      subscription.signing_secret,
    );
    verified++;
  }
  progress(`webhooks: all ${verified} requests verified with Stripe's library`);

  progress(`webhooks: event committed → webhook received, ${options.latencyRuns} events one at a time`);
  const latency = await measureLatency(knex, jobs, receiver, event, options.latencyRuns);
  await stopJobs();
  return { throughput, deliverOnly, verified, latency };
}

function describePass(pass: WebhookThroughputPass): string {
  const cpu = (share: number | null, who: string) => (share === null ? "" : `, ${who} ${Math.round(share * 100)} %`);
  return (
    `${pass.deliveries} in ${pass.seconds.toFixed(2)} s = ${Math.round(pass.deliveriesPerSecond)}/s` +
    ` (committed after ${pass.commitSeconds.toFixed(2)} s, first webhook after ${pass.firstSeconds.toFixed(2)} s)` +
    `${cpu(pass.workerCpuShare, "worker processes at")} of a core`
  );
}

interface EventTarget {
  workspaceId: string;
  competitorId: string;
  sourceId: string;
}

/** `count` events of the target's competitor, as detection stores them; returns their ids. */
async function insertEvents(trx: Knex.Transaction, target: EventTarget, count: number): Promise<string[]> {
  const { rows } = await trx.raw(
    `INSERT INTO events (workspace_id, competitor_id, source_id, diff_id, event_type, severity, title, summary,
                         impact_summary, confidence_score, confidence_reasoning, tags_json, subject, observed_at,
                         detected_at)
     SELECT ?, ?, ?, gen_random_uuid(), 'pricing_change', 'high',
            format('Hookline raised Pro from $%s to $%s/month', 49 + n % 50, 59 + n % 50),
            format('The Pro plan now costs $%s per month instead of $%s.', 59 + n % 50, 49 + n % 50),
            'Prospects comparing on price now see a $10/month gap.', 0.85,
            'Read from the plan cards of the pricing page.', '["pricing"]'::jsonb, 'pricing:plan:pro', now(), now()
       FROM generate_series(1, ?) AS n
     RETURNING id`,
    [target.workspaceId, target.competitorId, target.sourceId, count],
  );
  return rows.map((row: { id: string }) => row.id);
}

/** Commits `queue`'s writes in one transaction and waits until the receiver has a 200 for each of its event ids. */
async function measurePass(
  options: { knex: Knex; workerPids: number[] },
  receiver: LoadWebhookReceiver,
  queue: (trx: Knex.Transaction) => Promise<string[]>,
): Promise<WebhookThroughputPass> {
  const cpuBefore = cpuOf(options.workerPids);
  const started = performance.now();
  const ids = await options.knex.transaction(queue);
  const committed = performance.now();
  const firstReceipt = await receiptsOf(receiver, ids, PASS_TIMEOUT_MS);
  const ended = Math.max(...firstReceipt.values());
  const seconds = (ended - started) / 1000;
  const cpuAfter = cpuOf(options.workerPids);
  return {
    deliveries: ids.length,
    commitSeconds: (committed - started) / 1000,
    firstSeconds: (Math.min(...firstReceipt.values()) - started) / 1000,
    seconds,
    deliveriesPerSecond: ids.length / seconds,
    workerCpuShare: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / seconds,
  };
}

/** When each of `ids` was first answered 200 (performance.now()); throws when some are missing after `timeoutMs`. */
async function receiptsOf(
  receiver: LoadWebhookReceiver,
  ids: string[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const wanted = new Set(ids);
  const found = new Map<string, number>();
  let scanned = 0;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // Requests are appended in arrival order: only the new ones need looking at.
    for (; scanned < receiver.requests.length; scanned++) {
      const request: LoadRequest = receiver.requests[scanned]!;
      if (wanted.has(request.eventId) && !found.has(request.eventId)) found.set(request.eventId, request.receivedAt);
    }
    if (found.size === wanted.size) return found;
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms: the receiver has ${found.size} of ${wanted.size} events`);
    }
    await receiver.nextRequest(200);
  }
}

async function measureLatency(
  knex: Knex,
  jobs: Jobs,
  receiver: LoadWebhookReceiver,
  target: EventTarget,
  runs: number,
): Promise<WebhookResult["latency"]> {
  const pollMs =
    Math.max(QUEUES.eventCreated.work.pollingIntervalSeconds, QUEUES.webhookDeliver.work.pollingIntervalSeconds) * 1000;
  const samplesMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    // A random moment of the workers' polling cycles, as events arrive in production (see run-now-latency.ts).
    await sleep(Math.random() * pollMs);
    const [eventId] = await knex.transaction(async (trx) => {
      const ids = await insertEvents(trx, target, 1);
      // The detection pipeline's own call (src/detection/pipeline.ts insertEvent), in the event's transaction.
      await jobs.send(QUEUES.eventCreated, { event_id: ids[0]! }, {}, trx);
      return ids;
    });
    const committed = performance.now();
    const receipts = await receiptsOf(receiver, [eventId!], RUN_TIMEOUT_MS);
    samplesMs.push(receipts.get(eventId!)! - committed);
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    samplesMs,
    medianMs: median(samplesMs),
    p95Ms: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!,
    maxMs: sorted.at(-1)!,
  };
}

function cpuOf(pids: number[]): number | null {
  let total = 0;
  for (const pid of pids) {
    const seconds = cpuSeconds(pid);
    if (seconds === null) return null;
    total += seconds;
  }
  return total;
}
