/**
 * The process's Prometheus metrics (docs/operations.md#metrics), served at `GET /metrics` by API processes and on
 * `METRICS_PORT` by workers. One registry per process, since a Prometheus target is a process: the rules that count
 * something (a request, a job, a fetch, a webhook attempt, an email) call `metrics.<counter>` directly, as they call
 * their logger, rather than having a registry threaded through every constructor.
 *
 * What is measured at scrape time rather than counted: queue depth (a count of pg-boss's job table by queue and
 * state) and database pool usage, from the pools of the services started in this process.
 */
import type { Knex } from "knex";
import client from "prom-client";

/** Request latency buckets, seconds: most operations answer in milliseconds, reports and fetches in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

class Metrics {
  readonly registry = new client.Registry();
  private readonly pools = new Set<Knex>();

  readonly httpRequests = new client.Counter({
    name: "rivalscope_http_requests_total",
    help: "HTTP requests answered, by operationId (`unmatched` outside the contract) and status code.",
    labelNames: ["operation", "status"] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new client.Histogram({
    name: "rivalscope_http_request_duration_seconds",
    help: "Time from a request's arrival to its response's last byte, by operationId.",
    labelNames: ["operation"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly jobs = new client.Counter({
    name: "rivalscope_jobs_total",
    help: "Background jobs handled, by queue and outcome (completed, failed: failed jobs are retried by pg-boss).",
    labelNames: ["queue", "outcome"] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new client.Histogram({
    name: "rivalscope_job_batch_duration_seconds",
    help: "Time a worker took to handle one batch of jobs it fetched, by queue.",
    labelNames: ["queue"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly fetches = new client.Counter({
    name: "rivalscope_source_fetches_total",
    help: "Source fetches by outcome: changed (a new snapshot), unchanged, error, blocked (SSRF guard or bot challenge).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new client.Counter({
    name: "rivalscope_webhook_attempts_total",
    help: "Outbound webhook attempts by outcome: delivered, retry_scheduled, failed (not retried), dead, skipped.",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly emails = new client.Counter({
    name: "rivalscope_emails_total",
    help: "Emails by kind (digest; message: alerts, invitations, password resets, acknowledgements) and outcome: sent, failed (retried), suppressed (not sent).",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });

  constructor() {
    // Event-loop lag, heap, GC, CPU, handles: prom-client's standard process metrics.
    client.collectDefaultMetrics({ register: this.registry, prefix: "rivalscope_" });
    const pools = this.pools;
    new client.Gauge({
      name: "rivalscope_db_pool_connections",
      help: "Database pool connections of this process by state: used, free, pending (requests waiting for one).",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect() {
        let used = 0;
        let free = 0;
        let pending = 0;
        for (const knex of pools) {
          const pool = knex.client.pool as
            { numUsed(): number; numFree(): number; numPendingAcquires(): number } | undefined;
          if (!pool) continue;
          used += pool.numUsed();
          free += pool.numFree();
          pending += pool.numPendingAcquires();
        }
        this.set({ state: "used" }, used);
        this.set({ state: "free" }, free);
        this.set({ state: "pending" }, pending);
      },
    });
    new client.Gauge({
      name: "rivalscope_queue_depth",
      help: "Jobs waiting or running per queue and state (created, retry, active), read from pg-boss at scrape time.",
      labelNames: ["queue", "state"] as const,
      registers: [this.registry],
      async collect() {
        const knex = pools.values().next().value as Knex | undefined;
        this.reset();
        if (!knex) return;
        const { rows } = await knex.raw(
          `SELECT name, state::text AS state, count(*)::int AS count FROM pgboss.job
            WHERE state < 'completed' GROUP BY name, state`,
        );
        for (const row of rows as { name: string; state: string; count: number }[]) {
          this.set({ queue: row.name, state: row.state }, row.count);
        }
      },
    });
  }

  /** Counts this pool in the pool gauge and reads queue depth through it, until `forget`. */
  watch(knex: Knex): void {
    this.pools.add(knex);
  }

  forget(knex: Knex): void {
    this.pools.delete(knex);
  }

  /** The exposition text, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

export const metrics = new Metrics();
