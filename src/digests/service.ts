/**
 * Digests of a workspace (docs/product-rules.md#digests-and-unsubscribe): generation over `[period_end − 24 h (7 days),
 * period_end)`, the list and detail with `delivery_summary` counted from the deliveries, sending, and the owners'
 * deliveries view. Every query names the caller's workspace, so another workspace's digest is a 404.
 */
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { isoTimestamp } from "../db/sql.js";
import { notFound } from "../http/errors.js";
import type { AppServices, AuthContext } from "../http/handler.js";
import { buildDigestPayload, PERIOD_HOURS, type PeriodType } from "./payload.js";
import { deliverDigest, ensureDeliveries, workspaceMembers } from "./send.js";

export type Digest = components["schemas"]["Digest"];
export type DigestDelivery = components["schemas"]["DigestDelivery"];

/** `GET /digests` is not paginated: the spec bounds it to the 100 most recently generated. */
export const DIGEST_LIST_LIMIT = 100;

const STATUSES = ["bounced", "complained", "delivered", "failed", "opened", "pending", "sent", "suppressed"] as const;

/** The Digest JSON, built by Postgres with its delivery summary in the same query. */
const DIGEST_JSON = `json_build_object(
  'id', g.id, 'workspace_id', g.workspace_id, 'period_type', g.period_type,
  'period_start', ${isoTimestamp("g.period_start")}, 'period_end', ${isoTimestamp("g.period_end")},
  'generated_at', ${isoTimestamp("g.generated_at")}, 'delivered_at', ${isoTimestamp("g.delivered_at")},
  'payload_json', g.payload_json,
  'delivery_summary', (
    SELECT json_build_object(${STATUSES.map((s) => `'${s}', count(*) FILTER (WHERE x.status = '${s}')::int`).join(", ")},
                             'opens', coalesce(sum(x.opens_count), 0)::int, 'total', count(*)::int)
      FROM digest_deliveries x WHERE x.digest_id = g.id)) AS digest`;

/**
 * Generates and stores one digest. With a scheduler `mark`, the digest is unique per (workspace, mark): a run executed
 * twice returns the first one's id. Returns the digest's id.
 */
export async function generateDigest(
  knex: Knex | Knex.Transaction,
  input: { workspaceId: string; periodType: PeriodType; periodEnd: Date; publicBaseUrl: string; mark?: string },
): Promise<string> {
  const periodStart = new Date(input.periodEnd.getTime() - PERIOD_HOURS[input.periodType] * 3600_000);
  const payload = await buildDigestPayload(knex, { ...input, start: periodStart, end: input.periodEnd });
  const row = {
    workspace_id: input.workspaceId,
    period_type: input.periodType,
    period_start: periodStart,
    period_end: input.periodEnd,
    payload_json: JSON.stringify(payload),
    scheduled_mark: input.mark ?? null,
  };
  if (!input.mark) {
    const [created] = await knex("digests").insert(row).returning("id");
    return created.id;
  }
  const [created] = await knex("digests")
    .insert(row)
    .onConflict(["workspace_id", "scheduled_mark"])
    .ignore()
    .returning("id");
  if (created) return created.id;
  const existing = await knex("digests")
    .where({ workspace_id: input.workspaceId, scheduled_mark: input.mark })
    .first("id");
  return existing.id;
}

export class DigestService {
  constructor(
    private readonly services: AppServices,
    private readonly caller: AuthContext,
  ) {}

  private get knex(): Knex {
    return this.services.knex;
  }

  async list(): Promise<Digest[]> {
    const { rows } = await this.knex.raw(
      `SELECT ${DIGEST_JSON} FROM digests g WHERE g.workspace_id = ?
        ORDER BY g.generated_at DESC, g.id DESC LIMIT ?`,
      [this.caller.workspaceId, DIGEST_LIST_LIMIT],
    );
    return rows.map((r: { digest: Digest }) => r.digest);
  }

  async get(digestId: string): Promise<Digest> {
    const { rows } = await this.knex.raw(`SELECT ${DIGEST_JSON} FROM digests g WHERE g.id = ? AND g.workspace_id = ?`, [
      digestId,
      this.caller.workspaceId,
    ]);
    if (rows.length === 0) throw notFound("Digest");
    return rows[0].digest;
  }

  /** A manual digest ending now (docs/product-rules.md#digest-content); allowed on every plan. */
  async create(periodType: PeriodType): Promise<Digest> {
    const id = await generateDigest(this.knex, {
      workspaceId: this.caller.workspaceId,
      periodType,
      periodEnd: new Date(),
      publicBaseUrl: this.services.config.publicBaseUrl,
    });
    return this.get(id);
  }

  /** Emails every member (see spec/digests.tsp `sendDigest` for the idempotency rules) and answers the digest. */
  async send(digestId: string): Promise<Digest> {
    const digest = await this.knex("digests")
      .where({ id: digestId, workspace_id: this.caller.workspaceId })
      .first("id", "workspace_id");
    if (!digest) throw notFound("Digest");
    const recipients = await workspaceMembers(this.knex, digest.workspace_id);
    const deliveryIds = await ensureDeliveries(this.knex, digest, recipients, this.services.config.email.transport);
    // One after the other: a workspace has at most its plan's seats (≤ 50) members, and the transport's own
    // connection handling is what bounds the rate.
    for (const id of deliveryIds) await deliverDigest(this.services, id);
    return this.get(digestId);
  }

  /** Owners only (enforced in src/http/access.ts); at most the plan's seats, so not paginated. */
  async deliveries(digestId: string): Promise<DigestDelivery[]> {
    const digest = await this.knex("digests")
      .where({ id: digestId, workspace_id: this.caller.workspaceId })
      .first("id");
    if (!digest) throw notFound("Digest");
    const rows = await this.knex("digest_deliveries")
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
}
