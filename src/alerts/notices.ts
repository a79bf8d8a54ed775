/**
 * Immediate alerts of source health notices (docs/product-rules.md#source-health): the workspace's active `immediate`
 * rules whose `notice_types_json` names the transition, for the notice's competitor (or every competitor), decide the
 * channels, as for events (the union over the matching rules). Thresholds and event types do not apply to notices.
 *
 * Idempotent as event alerts are: one `alert_deliveries` row per (notice, channel, recipient), inserted with ON
 * CONFLICT DO NOTHING in the transaction that queues its email or Slack job; only the rows inserted are sent.
 */
import type { Knex } from "knex";
import { AlertRule } from "../alert-rules/models.js";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps, NoticeToDeliver } from "../delivery/types.js";
import { enqueueEmail } from "../email/outbox.js";
import { QUEUES } from "../jobs/queues.js";
import { isSuppressed, normalizeEmail } from "../suppressions/service.js";
import { limitsOf } from "../workspaces/plans.js";
import { SLACK_RECIPIENT } from "./consumer.js";
import { channelsFor } from "./match.js";
import { noticeEmail } from "./notice-messages.js";

export class NoticeAlerts {
  constructor(private readonly deps: DeliveryDeps) {}

  async consume(notice: NoticeToDeliver): Promise<void> {
    const limits = limitsOf(notice.plan);
    if (!limits.realtime) return;
    const scope = new WorkspaceScope(this.deps.knex, notice.workspace_id);
    const rules = await scope
      .query(AlertRule)
      .where({ frequency: "immediate", is_active: true })
      .whereRaw("notice_types_json @> ?::jsonb", [JSON.stringify([notice.notice_type])])
      .orderBy([
        { column: "is_default", order: "desc" },
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ]);
    // The partner rule mails outside addresses about events only; notices go to the members.
    const matching = rules.filter(
      (rule) =>
        rule.email_recipients_json === null &&
        (rule.competitor_id === null || rule.competitor_id === notice.competitor_id),
    );
    const channels = channelsFor(matching, limits, Boolean(notice.slack_webhook_url));
    if (channels.size === 0) return;
    await this.deps.knex.transaction(async (trx) => {
      if (channels.has("email")) {
        const names = matching.filter((rule) => rule.delivery_channels_json.includes("email")).map((r) => r.name);
        await this.queueEmails(trx, notice, [...new Set(names)]);
      }
      if (channels.has("slack")) await this.queueSlack(trx, notice.id);
    });
  }

  private async queueEmails(trx: Knex.Transaction, notice: NoticeToDeliver, ruleNames: string[]): Promise<void> {
    const scope = new WorkspaceScope(trx, notice.workspace_id);
    const members: { email: string }[] = await scope
      .from("memberships as m")
      .join("users as u", "u.id", "m.user_id")
      .orderBy("u.email")
      .select("u.email");
    const rows: { notice_id: string; channel: "email"; recipient: string; status: string }[] = [];
    for (const recipient of new Set(members.map((member) => normalizeEmail(member.email)))) {
      const suppressed = await isSuppressed(trx, notice.workspace_id, recipient);
      rows.push({ notice_id: notice.id, channel: "email", recipient, status: suppressed ? "suppressed" : "queued" });
    }
    if (rows.length === 0) return;
    const inserted: { id: string; recipient: string; status: string }[] = await trx("alert_deliveries")
      .insert(rows)
      .onConflict(trx.raw("(notice_id, channel, recipient) WHERE notice_id IS NOT NULL"))
      .ignore()
      .returning(["id", "recipient", "status"]);
    for (const row of inserted) {
      if (row.status !== "queued") continue;
      const message = noticeEmail(
        notice,
        { workspace_name: notice.workspace_name, rule_names: ruleNames },
        this.deps.config.publicBaseUrl,
        row.recipient,
      );
      await enqueueEmail(this.deps.jobs, message, trx, row.id);
    }
  }

  private async queueSlack(trx: Knex.Transaction, noticeId: string): Promise<void> {
    const [row] = await trx("alert_deliveries")
      .insert({ notice_id: noticeId, channel: "slack", recipient: SLACK_RECIPIENT, status: "queued" })
      .onConflict(trx.raw("(notice_id, channel, recipient) WHERE notice_id IS NOT NULL"))
      .ignore()
      .returning("id");
    if (!row) return;
    await this.deps.jobs.send(
      QUEUES.alertSlack,
      { delivery_id: row.id },
      { retryDelay: this.deps.config.webhookRetryBaseSeconds },
      trx,
    );
  }
}
