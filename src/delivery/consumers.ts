/**
 * What happens to each new event (the `event-created` job, queued in the transaction that stored the event): the event
 * is loaded once, and every channel its workspace uses and its plan allows gets its turn. Each channel is idempotent
 * (keyed by event id), so a retried job re-runs them all safely.
 */
import { ImmediateAlertChannel } from "../alerts/consumer.js";
import { CrmChannel } from "../crm/consumer.js";
import { WebhookChannel } from "../webhooks/consumer.js";
import { limitsOf } from "../workspaces/plans.js";
import { loadEventToDeliver } from "./event.js";
import type { DeliveryDeps, EventChannelClass } from "./types.js";

/** The channels, in order. Add a channel's class here. */
export const EVENT_CHANNELS: readonly EventChannelClass[] = [ImmediateAlertChannel, WebhookChannel, CrmChannel];

/** The `event-created` job's rules: one new event handed to each channel that wants it. */
export class EventFanOut {
  constructor(private readonly deps: DeliveryDeps) {}

  /**
   * The one query says which channels the workspace uses (bench/webhooks.ts: most use one or two, and each consumer
   * costs several round trips), and the plan is judged here, once, for every channel.
   */
  async deliver(eventId: string): Promise<void> {
    const event = await loadEventToDeliver(this.deps.knex, eventId);
    // Deleted since (its competitor or workspace went): nothing to deliver.
    if (!event) return;
    const limits = limitsOf(event.plan);
    for (const Channel of EVENT_CHANNELS) {
      const channel = new Channel(this.deps);
      if (limits[channel.requires] && channel.wants(event.setup)) await channel.consume(event);
    }
  }
}
