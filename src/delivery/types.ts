/**
 * The shapes the delivery channels share: what a channel needs to run, the one read model of "an event to deliver",
 * and the channel contract. A leaf module (types only), so the fan-out (consumers.ts) and the channels (alerts/,
 * webhooks/, crm/) import it without importing each other.
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Jobs } from "../jobs/boss.js";
import type { HttpClient } from "../lib/http-client.js";
import type { EventDraft } from "../detection/types.js";
import type { Plan } from "../http/schemas.js";
import type { PlanFlag } from "../workspaces/plans.js";

/** What the delivery workers use: the process's database, queues, outbound HTTP client and settings. */
export interface DeliveryDeps {
  config: Readonly<Config>;
  knex: Knex;
  jobs: Jobs;
  http: HttpClient;
  log: Logger;
}

/** What an event's workspace has set up for delivery (read with the event, in the same query). */
export interface DeliverySetup {
  immediateRules: boolean;
  webhooks: boolean;
  crm: boolean;
}

/**
 * An event as every channel needs it, loaded once per `event-created` job (and by the Slack, webhook and CRM workers):
 * the event, its competitor's name and domain, the page it was seen on, its workspace's name, plan and Slack webhook,
 * and the delivery setup.
 */
export interface EventToDeliver extends Pick<
  EventDraft,
  "event_type" | "severity" | "title" | "summary" | "impact_summary" | "confidence_score" | "confidence_reasoning"
> {
  id: string;
  workspace_id: string;
  competitor_id: string;
  competitor_name: string;
  competitor_domain: string;
  detected_at: Date;
  /** The event's tags and its source's type (`null` once the source is deleted): the partner monitor types it is seen through. */
  tags_json: string[];
  source_type: string | null;
  /** The page the change was seen on: its source's URL, or the first evidence's once the source is deleted. */
  source_url: string | null;
  workspace_name: string;
  plan: Plan;
  slack_webhook_url: string | null;
  setup: DeliverySetup;
}

/**
 * The event as the machine integrations send it (the webhook body, the CRM write-back): their contracts make the page
 * a string, so it falls back lastly to the competitor's site.
 */
export interface EventToSend extends Omit<EventToDeliver, "source_url"> {
  source_url: string;
}

/**
 * One way an event leaves the service (immediate alerts, webhooks, CRM write-back): a rules class built per job from
 * the worker's deps (docs/architecture.md#one-shape-per-area), like every worker-side rule.
 */
export interface EventChannel {
  readonly name: string;
  /**
   * The plan flag the channel needs, judged when the event happens: checked once by the fan-out, so a channel's
   * consumer never sees an event its workspace's plan excludes.
   */
  readonly requires: PlanFlag;
  /** Whether the workspace set the channel up at all; checked before any of the channel's own queries. */
  wants(setup: DeliverySetup): boolean;
  /** Idempotent (keyed by event id): a retried `event-created` job runs every consumer again safely. */
  consume(event: EventToDeliver): Promise<void>;
  /**
   * `consume` for a batch of events in a few round trips, where a channel's volume needs it (webhooks): all or
   * nothing, so a failure lets the fan-out retry the events one by one and fail only the ones that fail alone.
   */
  consumeMany?(events: EventToDeliver[]): Promise<void>;
}

/** A channel's class: what the fan-out builds from the worker's deps for each event. */
export type EventChannelClass = new (deps: DeliveryDeps) => EventChannel;

/**
 * A source health notice as its channels need it (docs/product-rules.md#source-health), loaded once per
 * `source-notice-created` job and by the Slack and webhook workers: the notice, its source and competitor, and its
 * workspace's name, plan and Slack webhook. `kind` tells it apart from an event where a channel carries both.
 */
export interface NoticeToDeliver {
  kind: "notice";
  id: string;
  workspace_id: string;
  notice_type: "source_broken" | "source_recovered";
  reason: string;
  detail: string;
  action: string;
  created_at: Date;
  /** "Acme's pricing page is no longer read". */
  title: string;
  source_id: string;
  source_url: string;
  source_type: string;
  /** The source's state now (it may have moved again since the notice). */
  health_state: string;
  competitor_id: string;
  competitor_name: string;
  competitor_domain: string;
  workspace_name: string;
  plan: Plan;
  slack_webhook_url: string | null;
}
