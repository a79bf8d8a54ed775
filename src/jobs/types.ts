/**
 * The shape of an area's job handlers (each area's `jobs.ts`), merged by src/jobs/registry.ts the way src/handlers.ts
 * merges HTTP handlers. A leaf module: areas import it without importing the registry.
 */
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { DeliveryDeps } from "../delivery/types.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import type { EmailTransport } from "../email/transports.js";
import type { JobFailure } from "./boss.js";
import type { PayloadOf, QUEUES, QueueKey } from "./queues.js";

/** What a job handler may use: the worker process's shared services. */
export interface JobDeps {
  email: EmailTransport;
  log: Logger;
  pipeline: DetectionPipeline;
  delivery: DeliveryDeps;
}

/** Handles one job of queue `K`, its payload typed by the queue's declaration. A throw fails (and retries) that job. */
export type JobHandler<K extends QueueKey> = (deps: JobDeps, job: JobOf<K>) => Promise<void>;

/** A job of queue `K`, its payload typed by the queue's declaration. */
export type JobOf<K extends QueueKey> = PgBoss.Job<PayloadOf<(typeof QUEUES)[K]>>;

/**
 * Handles a whole batch of queue `K` as pg-boss fetched it, for queues whose per-job round trips would cap throughput
 * (docs/architecture.md#batch-handlers): resolves with the jobs that failed, each retried alone; the others complete.
 * It must keep a failure to the jobs it concerns, never fail the batch for one job.
 */
export interface BatchJobHandler<K extends QueueKey> {
  batch: (deps: JobDeps, jobs: JobOf<K>[]) => Promise<JobFailure[]>;
}

/** One area's job handlers, keyed by queue (src/jobs/queues.ts): one job at a time, or a batch at a time. */
export type AreaJobs = { [K in QueueKey]?: JobHandler<K> | BatchJobHandler<K> };
