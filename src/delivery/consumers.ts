/**
 * What happens to each new event (the `event-created` job, queued in the transaction that stored the event): the event
 * is loaded once, and every channel its workspace uses and its plan allows gets its turn. Each channel is idempotent
 * (keyed by event id), so a retried job re-runs them all safely.
 */
import { ImmediateAlertChannel } from "../alerts/consumer.js";
import { CrmChannel } from "../crm/consumer.js";
import { EventSummaryRewrite } from "../events/summaries.js";
import { QUEUES } from "../jobs/queues.js";
import { WebhookChannel } from "../webhooks/consumer.js";
import { limitsOf } from "../workspaces/plans.js";
import type { JobFailure } from "../jobs/boss.js";
import { loadEventsToDeliver } from "./event.js";
import type { DeliveryDeps, EventChannel, EventChannelClass, EventToDeliver } from "./types.js";

/** The channels, in order. Add a channel's class here. */
export const EVENT_CHANNELS: readonly EventChannelClass[] = [ImmediateAlertChannel, WebhookChannel, CrmChannel];

/** The `event-created` job's rules: one new event handed to each channel that wants it. */
export class EventFanOut {
  constructor(private readonly deps: DeliveryDeps) {}

  /**
   * One event to every channel its workspace uses and its plan allows: a batch of one, throwing its failure. The one
   * query says which channels the workspace uses (bench/webhooks.ts: most use one or two, and each consumer costs
   * several round trips), and the plan is judged here, once, for every channel.
   */
  async deliver(eventId: string): Promise<void> {
    const [failure] = await this.deliverMany([{ jobId: eventId, eventId }]);
    if (failure) throw failure.error;
  }

  /**
   * `deliver` for a batch of jobs (src/jobs/types.ts#BatchJobHandler): the events in one query, and each channel given
   * the batch's events at once where it can take them together (docs/architecture.md#batch-handlers). An event whose
   * channel fails is that job's failure alone; the channels after it skip it, as `deliver` would, until its retry.
   * An event deleted since (its competitor or workspace went) has nothing to deliver.
   */
  async deliverMany(jobs: { jobId: string; eventId: string }[]): Promise<JobFailure[]> {
    let events: Map<string, EventToDeliver>;
    try {
      events = await loadEventsToDeliver(
        this.deps.knex,
        jobs.map((job) => job.eventId),
      );
      // The LLM's rewrite of each summary, beside delivery (which sends the detection's text: it does not wait on a
      // model). A retried batch queues it again; the rewrite applies once (src/events/summaries.ts).
      if (EventSummaryRewrite.wanted(this.deps.config)) {
        await this.deps.jobs.sendMany(
          QUEUES.eventSummary,
          [...events.keys()].map((eventId) => ({ data: { event_id: eventId } })),
          this.deps.knex,
        );
      }
    } catch (error) {
      if (jobs.length === 1) return [{ jobId: jobs[0]!.jobId, error }];
      // One job at a time, so that what failed the batch (a malformed id, a lost connection) fails only its own job.
      return (await Promise.all(jobs.map((job) => this.deliverMany([job])))).flat();
    }
    const failed = new Map<string, unknown>();
    for (const channel of this.channels()) {
      const taken = [...events.values()].filter((event) => !failed.has(event.id) && takes(channel, event));
      if (taken.length === 0) continue;
      if (channel.consumeMany) {
        try {
          await channel.consumeMany(taken);
          continue;
        } catch {
          // Retried one by one below: only the events that fail alone fail their jobs.
        }
      }
      const results = await Promise.allSettled(taken.map((event) => channel.consume(event)));
      for (const [index, result] of results.entries()) {
        if (result.status === "rejected") failed.set(taken[index]!.id, result.reason);
      }
    }
    return jobs.flatMap((job) =>
      failed.has(job.eventId) ? [{ jobId: job.jobId, error: failed.get(job.eventId) }] : [],
    );
  }

  private channels(): EventChannel[] {
    return EVENT_CHANNELS.map((Channel) => new Channel(this.deps));
  }
}

/** Whether the event's plan allows the channel and its workspace set the channel up. */
function takes(channel: EventChannel, event: EventToDeliver): boolean {
  return limitsOf(event.plan)[channel.requires] && channel.wants(event.setup);
}
