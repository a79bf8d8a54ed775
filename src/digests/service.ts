/**
 * Digests of a workspace (docs/product-rules.md#digests-and-unsubscribe): generation over `[period_end − 24 h (7 days),
 * period_end)`, the list and detail with `delivery_summary` counted from the deliveries, sending, and the owners'
 * deliveries view. Every query names the caller's workspace, so another workspace's digest is a 404.
 */
import type { components } from "../../generated/api-types.js";
import { isoTimestamp } from "../db/sql.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import { notFound } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import { buildDigestPayload, PERIOD_HOURS, type PeriodType } from "./payload.js";
import { DigestRecipients, DigestSender, type DigestSendDeps } from "./send.js";

export type Digest = components["schemas"]["Digest"];
export type DigestDelivery = components["schemas"]["DigestDelivery"];

/** `GET /digests` is not paginated: the spec bounds it to the 100 most recently generated. */
export const DIGEST_LIST_LIMIT = 100;

/** The delivery's timestamps, read as dates and answered as ISO strings. */
type DeliveryTimestamp = "last_event_at" | "sent_at" | "delivered_at" | "opened_at" | "bounced_at";
type DeliveryRow = Omit<DigestDelivery, DeliveryTimestamp> & Record<DeliveryTimestamp, Date | null>;

const STATUSES = ["bounced", "complained", "delivered", "failed", "opened", "pending", "sent", "suppressed"] as const;

/**
 * Generates and stores one digest of the scope's workspace. With a scheduler `mark`, the digest is unique per
 * (workspace, mark): a run executed twice returns the first one's id. Returns the digest's id.
 */
export async function generateDigest(
  scope: WorkspaceScope,
  input: { periodType: PeriodType; periodEnd: Date; publicBaseUrl: string; mark?: string },
): Promise<string> {
  const periodStart = new Date(input.periodEnd.getTime() - PERIOD_HOURS[input.periodType] * 3600_000);
  const payload = await buildDigestPayload(scope, { ...input, start: periodStart, end: input.periodEnd });
  const row = {
    period_type: input.periodType,
    period_start: periodStart,
    period_end: input.periodEnd,
    payload_json: JSON.stringify(payload),
    scheduled_mark: input.mark ?? null,
  };
  if (!input.mark) {
    const [created] = await scope.insert("digests", row).returning("id");
    return created.id;
  }
  const [created] = await scope
    .insert("digests", row)
    .onConflict(["workspace_id", "scheduled_mark"])
    .ignore()
    .returning("id");
  if (created) return created.id;
  const existing = await scope.from("digests").where({ scheduled_mark: input.mark }).first("id");
  return existing.id;
}

export class DigestService {
  constructor(
    private readonly workspace: Workspace,
    private readonly deps: DigestSendDeps,
  ) {}

  async list(): Promise<Digest[]> {
    return this.select({ limit: DIGEST_LIST_LIMIT });
  }

  async get(digestId: string): Promise<Digest> {
    const [digest] = await this.select({ id: digestId, limit: 1 });
    if (!digest) throw notFound("Digest");
    return digest;
  }

  /** A manual digest ending now (docs/product-rules.md#digest-content); allowed on every plan. */
  async create(periodType: PeriodType): Promise<Digest> {
    const id = await generateDigest(this.workspace.scope, {
      periodType,
      periodEnd: new Date(),
      publicBaseUrl: this.deps.config.publicBaseUrl,
    });
    return this.get(id);
  }

  /** Emails every member (see spec/digests.tsp `sendDigest` for the idempotency rules) and answers the digest. */
  async send(digestId: string): Promise<Digest> {
    const { scope } = this.workspace;
    const digest = await scope.from("digests").where({ id: digestId }).first("id");
    if (!digest) throw notFound("Digest");
    const recipients = await new DigestRecipients(scope).members();
    const deliveryIds = await new DigestRecipients(scope).ensureDeliveries(
      digest.id,
      recipients,
      this.deps.config.email.transport,
    );
    // One after the other: a workspace has at most its plan's seats (≤ 50) members, and the transport's own
    // connection handling is what bounds the rate.
    for (const id of deliveryIds) await new DigestSender(this.deps).send(id);
    return this.get(digestId);
  }

  /** Owners only (enforced in src/http/access.ts); at most the plan's seats, so not paginated. */
  async deliveries(digestId: string): Promise<DigestDelivery[]> {
    const { scope } = this.workspace;
    const digest = await scope.from("digests").where({ id: digestId }).first("id");
    if (!digest) throw notFound("Digest");
    const rows: DeliveryRow[] = await scope
      .from("digest_deliveries")
      .where({ digest_id: digestId })
      .orderBy("recipient_email")
      .select(
        "id",
        "digest_id",
        "recipient_email",
        "recipient_name",
        "provider",
        "provider_message_id",
        "status",
        "last_event",
        "last_event_at",
        "sent_at",
        "delivered_at",
        "opened_at",
        "bounced_at",
        "bounce_reason",
        "opens_count",
      );
    const iso = (value: Date | null) => (value ? value.toISOString() : null);
    return rows.map((r) => ({
      ...r,
      last_event_at: iso(r.last_event_at),
      sent_at: iso(r.sent_at),
      delivered_at: iso(r.delivered_at),
      opened_at: iso(r.opened_at),
      bounced_at: iso(r.bounced_at),
    }));
  }

  /**
   * The workspace's digests as JSON built by Postgres, each with its delivery summary counted in the same query: the
   * one digest `id`, or the most recently generated ones.
   */
  private async select(filter: { id?: string; limit: number }): Promise<Digest[]> {
    const { rows } = await this.workspace.scope.raw<{ digest: Digest }>(
      `SELECT json_build_object(
         'id', g.id, 'workspace_id', g.workspace_id, 'period_type', g.period_type,
         'period_start', ${isoTimestamp("g.period_start")}, 'period_end', ${isoTimestamp("g.period_end")},
         'generated_at', ${isoTimestamp("g.generated_at")}, 'delivered_at', ${isoTimestamp("g.delivered_at")},
         'payload_json', g.payload_json,
         'delivery_summary', (
           SELECT json_build_object(${STATUSES.map((s) => `'${s}', count(*) FILTER (WHERE x.status = '${s}')::int`).join(", ")},
                                    'opens', coalesce(sum(x.opens_count), 0)::int, 'total', count(*)::int)
             FROM digest_deliveries x WHERE x.digest_id = g.id)) AS digest
         FROM digests g
        WHERE g.workspace_id = :workspace_id ${filter.id === undefined ? "" : "AND g.id = :id"}
        ORDER BY g.generated_at DESC, g.id DESC
        LIMIT :limit`,
      filter,
    );
    return rows.map((r) => r.digest);
  }
}
