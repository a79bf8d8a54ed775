/**
 * What happens to each new event (the `event-created` job, queued in the transaction that stored the event):
 * every delivery channel the workspace uses gets its turn. Each consumer is idempotent (keyed by event id), so a retried job re-runs
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

/** What an event's workspace has set up for delivery, read in one query for every consumer. */
export interface DeliverySetup {
  immediateRules: boolean;
  webhooks: boolean;
  crm: boolean;
}

interface EventChannel {
  name: string;
  /** Whether the channel can have anything to do; checked first, so unused channels cost no queries. */
  wants: (setup: DeliverySetup) => boolean;
  consume: EventConsumer;
}

/** The channels, in order. Add a channel's entry point here. */
export const EVENT_CHANNELS: readonly EventChannel[] = [
  { name: "immediate alerts", wants: (setup) => setup.immediateRules, consume: sendImmediateAlerts },
  { name: "webhooks", wants: (setup) => setup.webhooks, consume: deliverEventToWebhooks },
  { name: "CRM write-back", wants: (setup) => setup.crm, consume: queueCrmSyncs },
];

/**
 * Runs the `event-created` job: one query says which channels the workspace uses, then each of those consumes the
 * event (bench/webhooks.ts: most workspaces use one or two channels, and each consumer costs several round trips).
 */
export async function consumeEvent(deps: DeliveryDeps, eventId: string): Promise<void> {
  const { rows } = await deps.knex.raw(
    `SELECT EXISTS (SELECT 1 FROM alert_rules r
                     WHERE r.workspace_id = e.workspace_id AND r.frequency = 'immediate' AND r.is_active) AS "immediateRules",
            EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.workspace_id = e.workspace_id) AS webhooks,
            EXISTS (SELECT 1 FROM crm_connections c
                     WHERE c.workspace_id = e.workspace_id AND c.status = 'active') AS crm
       FROM events e WHERE e.id = ?`,
    [eventId],
  );
  const setup = rows[0] as DeliverySetup | undefined;
  // Deleted since (its competitor or workspace went): nothing to deliver.
  if (!setup) return;
  for (const channel of EVENT_CHANNELS) {
    if (channel.wants(setup)) await channel.consume(deps, eventId);
  }
}
