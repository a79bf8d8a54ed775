/**
 * The workspace's source health notices (docs/product-rules.md#source-health): `GET /source-notices`, newest first,
 * built as JSON by Postgres like the events feed, through the caller's scope.
 */
import type { Knex } from "knex";
import { isoTimestamp } from "../db/sql.js";
import type { JsonText, Workspace } from "../http/handler.js";
import type { QueryOf, Schemas } from "../http/schemas.js";

export class SourceNoticeService {
  constructor(private readonly workspace: Workspace) {}

  async listJson(filters: QueryOf<"listSourceNotices">): Promise<JsonText<Schemas["SourceNotice"][]>> {
    const conditions: string[] = [];
    const bindings: Record<string, Knex.Value> = { limit: filters.limit ?? 50, offset: filters.offset ?? 0 };
    if (filters.competitor_id) {
      conditions.push("n.competitor_id = :competitor_id");
      bindings.competitor_id = filters.competitor_id;
    }
    if (filters.source_id) {
      conditions.push("n.source_id = :source_id");
      bindings.source_id = filters.source_id;
    }
    if (filters.notice_type) {
      conditions.push("n.notice_type = :notice_type");
      bindings.notice_type = filters.notice_type;
    }
    const { rows } = await this.workspace.scope.raw<{ json: string }>(
      `SELECT coalesce(json_agg(page.notice ORDER BY page.created_at DESC, page.id DESC), '[]')::text AS json
       FROM (SELECT json_build_object(
                'id', n.id, 'notice_type', n.notice_type, 'source_id', n.source_id, 'source_url', s.url,
                'source_type', s.source_type, 'competitor_id', n.competitor_id, 'competitor_name', c.name,
                'reason', n.reason, 'detail', n.detail, 'action', n.action,
                'created_at', ${isoTimestamp("n.created_at")}) AS notice, n.created_at, n.id
             FROM source_notices n
             JOIN sources s ON s.id = n.source_id
             JOIN competitors c ON c.id = n.competitor_id
             WHERE n.workspace_id = :workspace_id ${conditions.map((c) => `AND ${c}`).join(" ")}
             ORDER BY n.created_at DESC, n.id DESC LIMIT :limit OFFSET :offset) page`,
      bindings,
    );
    return rows[0]!.json;
  }
}
