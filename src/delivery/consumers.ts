/**
 * What happens to each new event (the `event-created` job, queued in the transaction that stored the event): the event
 * is loaded once, and every channel its workspace uses and its plan allows gets its turn. Each channel is idempotent
 * (keyed by event id), so a retried job re-runs them all safely.
 */
import { immediateAlertChannel } from "../alerts/consumer.js";
import { crmChannel } from "../crm/consumer.js";
import { webhookChannel } from "../webhooks/consumer.js";
import { limitsOf } from "../workspaces/plans.js";
import { loadEventToDeliver } from "./event.js";
import type { DeliveryDeps, EventChannel } from "./types.js";

/** The channels, in order. Add a channel's entry here. */
export const EVENT_CHANNELS: readonly EventChannel[] = [immediateAlertChannel, webhookChannel, crmChannel];

/**
 * Runs the `event-created` job. The one query says which channels the workspace uses (bench/webhooks.ts: most use one
 * or two, and each consumer costs several round trips), and the plan is judged here, once, for every channel.
 */
export async function consumeEvent(deps: DeliveryDeps, eventId: string): Promise<void> {
  const event = await loadEventToDeliver(deps.knex, eventId);
  // Deleted since (its competitor or workspace went): nothing to deliver.
  if (!event) return;
  const limits = limitsOf(event.plan);
  for (const channel of EVENT_CHANNELS) {
    if (limits[channel.requires] && channel.wants(event.setup)) await channel.consume(deps, event);
  }
}
