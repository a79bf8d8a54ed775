/**
 * Immediate alerts (docs/product-rules.md#immediate-alerts: `immediate` sends each matching event at once), run for
 * every `event-created` job (src/delivery/consumers.ts).
 *
 * Idempotent by construction: every recipient of an event gets one `alert_deliveries` row (unique per event, channel
 * and recipient), inserted with ON CONFLICT DO NOTHING in the same transaction as the email jobs and the Slack job,
 * and only the rows this run inserted are sent. A retried `event-created` job, or two workers racing on one event,
 * therefore send nothing twice.
 */
import type { Knex } from "knex";
import { AlertRule } from "../alert-rules/models.js";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps, DeliverySetup, EventChannel, EventToDeliver } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { enqueueEmail } from "../email/outbox.js";
import { isSuppressed, normalizeEmail } from "../suppressions/service.js";
import { DEMOTED_TAG } from "../learning/rules.js";
import { limitsOf } from "../workspaces/plans.js";
import { channelsFor, ruleMatches } from "./match.js";
import { alertEmail } from "./messages.js";

/** The Slack row's recipient: a workspace has one incoming webhook, so one message per event. */
export const SLACK_RECIPIENT = "slack";

export type DeliveryStatus = "queued" | "sent" | "suppressed" | "failed";

/**
 * The immediate-alert channel, built from the worker's deps. Immediate alerts need the plan's `realtime` flag, even
 * for a workspace that kept immediate rules after a downgrade.
 */
export class ImmediateAlertChannel implements EventChannel {
  readonly name = "immediate alerts";
  readonly requires = "realtime";

  constructor(private readonly deps: DeliveryDeps) {}

  wants(setup: DeliverySetup): boolean {
    return setup.immediateRules;
  }

  async consume(event: EventToDeliver): Promise<void> {
    // A kind of change a member marked not relevant stays in the feed and digests, out of immediate alerts
    // (docs/product-rules.md#learned-rules).
    if (event.tags_json.includes(DEMOTED_TAG)) return;
    const limits = limitsOf(event.plan);
    // The event's workspace's rules (and, below, its members).
    const scope = new WorkspaceScope(this.deps.knex, event.workspace_id);
    const rules = await scope
      .query(AlertRule)
      .where({ frequency: "immediate", is_active: true })
      .orderBy([
        { column: "is_default", order: "desc" },
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ]);
    const matching = rules.filter((rule) => ruleMatches(rule, event));
    const channels = channelsFor(matching, limits, Boolean(event.slack_webhook_url));
    if (channels.size === 0) return;

    const queued = await this.deps.knex.transaction(async (trx) => {
      let emails = 0;
      let slack = false;
      if (channels.has("email")) {
        emails = await this.queueEmails(
          trx,
          event,
          matching.filter((rule) => rule.delivery_channels_json.includes("email")),
        );
      }
      if (channels.has("slack")) slack = await this.queueSlack(trx, event.id);
      return { emails, slack };
    });
    this.deps.log.info({ event: event.id, ...queued }, "immediate alerts queued");
  }

  /**
   * One row and one email per recipient (suppressed ones get a `suppressed` row and no email): the members, for the
   * matching rules that mail them, and the addresses the partner rule names (docs/product-rules.md#partner-api).
   */
  private async queueEmails(trx: Knex.Transaction, event: EventToDeliver, emailing: AlertRule[]): Promise<number> {
    const scope = new WorkspaceScope(trx, event.workspace_id);
    const memberRules = emailing.filter((rule) => rule.email_recipients_json === null);
    const members: { email: string }[] =
      memberRules.length === 0
        ? []
        : await scope
            .from("memberships as m")
            .join("users as u", "u.id", "m.user_id")
            .orderBy("u.email")
            .select("u.email");
    const memberAddresses = new Set(members.map((member) => normalizeEmail(member.email)));
    const subscribed = emailing.flatMap((rule) => (rule.email_recipients_json ?? []).map(normalizeEmail));
    const rows: { event_id: string; channel: "email"; recipient: string; status: DeliveryStatus }[] = [];
    for (const recipient of new Set([...memberAddresses, ...subscribed])) {
      const suppressed = await isSuppressed(trx, event.workspace_id, recipient);
      rows.push({ event_id: event.id, channel: "email", recipient, status: suppressed ? "suppressed" : "queued" });
    }
    if (rows.length === 0) return 0;
    const inserted: { id: string; recipient: string; status: DeliveryStatus }[] = await trx("alert_deliveries")
      .insert(rows)
      .onConflict(["event_id", "channel", "recipient"])
      .ignore()
      .returning(["id", "recipient", "status"]);
    const memberReason = {
      workspace_name: event.workspace_name,
      rule_names: [...new Set(memberRules.map((rule) => rule.name))],
    };
    const subscriberReason = { workspace_name: event.workspace_name, rule_names: [], subscribed: true };
    let count = 0;
    for (const row of inserted) {
      if (row.status !== "queued") continue;
      const reason = memberAddresses.has(row.recipient) ? memberReason : subscriberReason;
      // Same transaction as the row: the mail is queued if and only if the row that says so commits.
      const message = alertEmail(event, reason, this.deps.config.publicBaseUrl, row.recipient);
      await enqueueEmail(this.deps.jobs, message, trx, row.id);
      count++;
    }
    return count;
  }

  /** One row and one `alert-slack` job per event; true when this run queued it. */
  private async queueSlack(trx: Knex.Transaction, eventId: string): Promise<boolean> {
    const [row] = await trx("alert_deliveries")
      .insert({ event_id: eventId, channel: "slack", recipient: SLACK_RECIPIENT, status: "queued" })
      .onConflict(["event_id", "channel", "recipient"])
      .ignore()
      .returning("id");
    if (!row) return false;
    // The Slack incoming webhook is an outbound webhook: its retries start at WEBHOOK_RETRY_BASE_SECONDS
    // (docs/product-rules.md#slack-channel) and back off exponentially (the queue's policy).
    await this.deps.jobs.send(
      QUEUES.alertSlack,
      { delivery_id: row.id },
      { retryDelay: this.deps.config.webhookRetryBaseSeconds },
      trx,
    );
    return true;
  }
}

/**
 * What the `email-send` worker learnt about an alert email: `sent` once the transport accepted it; otherwise the row
 * stays `queued` with the error, and pg-boss retries the job.
 */
export async function recordAlertEmail(
  knex: Knex,
  alertDeliveryId: string,
  outcome: { sent: true } | { error: string },
): Promise<void> {
  const changes =
    "sent" in outcome
      ? { status: "sent", sent_at: knex.fn.now(), error: null }
      : { error: outcome.error.slice(0, 1000) };
  await knex("alert_deliveries").where({ id: alertDeliveryId, status: "queued" }).update(changes);
}
