/**
 * Every pg-boss queue, declared in one place with its retry policy and dead-letter queue (STYLE.md: pg-boss habit).
 * Areas add their queues here; `startJobs` creates them all before anything sends or works.
 */
import type PgBoss from "pg-boss";

export interface QueueDefinition {
  name: string;
  options: Omit<PgBoss.Queue, "name">;
  /** Workers per process and jobs per fetch: throughput ≈ batchSize ÷ polling interval × workers (STACK-NOTES.md). */
  work: { workers: number; batchSize: number; pollingIntervalSeconds: number };
}

/** Jobs that exhausted their retries land here, for operators to inspect. */
export const DEAD_LETTER_QUEUE = "dead-letter";

export const QUEUES = {
  /** One outgoing email (password resets, invitations); the transport is chosen by EMAIL_TRANSPORT. */
  emailSend: {
    name: "email-send",
    options: { retryLimit: 8, retryDelay: 15, retryBackoff: true, expireInSeconds: 60, deadLetter: DEAD_LETTER_QUEUE },
    work: { workers: 1, batchSize: 5, pollingIntervalSeconds: 0.5 },
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]["name"];
