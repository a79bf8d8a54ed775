/**
 * What happens to each new event (the `event-created` job, queued in the transaction that stored the event):
 * every delivery channel gets its turn. Each consumer is idempotent (keyed by event id), so a retried job re-runs
 * them all safely.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import { sendImmediateAlerts } from "../alerts/consumer.js";
import type { Config } from "../config.js";
import { queueCrmSyncs } from "../crm/consumer.js";
import type { Jobs } from "../jobs/boss.js";
import type { HttpClient } from "../lib/http-client.js";
import { deliverEventToWebhooks } from "../webhooks/consumer.js";

export interface DeliveryDeps {
  config: Readonly<Config>;
  knex: Knex;
  jobs: Jobs;
  http: HttpClient;
  log: Logger;
}

export type EventConsumer = (deps: DeliveryDeps, eventId: string) => Promise<void>;

/** The consumers, in order. Add a channel's entry point here. */
export const EVENT_CONSUMERS: EventConsumer[] = [sendImmediateAlerts, deliverEventToWebhooks, queueCrmSyncs];
