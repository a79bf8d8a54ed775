/**
 * The events feed and event detail. The list is the hottest query of the API, so Postgres builds the JSON array
 * itself and Node forwards the text (docs/stack-notes.md#request-throughput: JSON building in Node was the bottleneck).
 * Every query goes through the caller's WorkspaceScope: another workspace's event is a 404.
 */
import type { Knex } from "knex";
import { isoTimestamp, likeLiteral } from "../db/sql.js";
import { invalid, notFound } from "../http/errors.js";
import { forgetDismissal, learnFromDismissal, type DismissalReason } from "../learning/service.js";
import type { AssetStore } from "../lib/asset-store.js";
import type { JsonText, Workspace } from "../http/handler.js";
import type { EventStatus, QueryOf, Schemas } from "../http/schemas.js";
import { limitsOf } from "../workspaces/plans.js";

export type EventFilters = QueryOf<"listEvents">;

/** The EventResponse fields, built in SQL from alias `e`. */
export const EVENT_JSON = `json_build_object(
  'id', e.id, 'competitor_id', e.competitor_id, 'source_id', e.source_id, 'diff_id', e.diff_id,
  'event_type', e.event_type, 'severity', e.severity, 'status', e.status, 'title', e.title, 'summary', e.summary,
  'impact_summary', e.impact_summary, 'confidence_score', e.confidence_score,
  'confidence_reasoning', e.confidence_reasoning, 'is_inferred', e.is_inferred, 'tags_json', e.tags_json,
  'observed_at', ${isoTimestamp("e.observed_at")}, 'detected_at', ${isoTimestamp("e.detected_at")},
  'created_at', ${isoTimestamp("e.created_at")})`;

export class EventService {
  constructor(private readonly workspace: Workspace) {}

  /**
   * Days of history the caller's plan shows (docs/product-rules.md#plans-and-limits: events older than `history_days`
   * are not listed).
   */
  private get historyDays(): number {
    return limitsOf(this.workspace.caller.plan).history_days;
  }

  /** The page of events as a JSON array text, newest first. */
  async listJson(filters: EventFilters): Promise<JsonText<Schemas["EventResponse"][]>> {
    const conditions = ["e.detected_at >= now() - make_interval(days => :history_days)"];
    const bindings: Record<string, Knex.Value> = {
      history_days: this.historyDays,
      limit: filters.limit ?? 50,
      offset: filters.offset ?? 0,
    };
    if (filters.competitor_id) {
      conditions.push("e.competitor_id = :competitor_id");
      bindings.competitor_id = filters.competitor_id;
    }
    if (filters.event_type) {
      conditions.push("e.event_type = :event_type");
      bindings.event_type = filters.event_type;
    }
    if (filters.severity) {
      conditions.push("e.severity = :severity");
      bindings.severity = filters.severity;
    }
    if (filters.min_confidence !== undefined) {
      conditions.push("e.confidence_score >= :min_confidence");
      bindings.min_confidence = filters.min_confidence;
    }
    if (filters.search) {
      conditions.push("(e.title ILIKE :pattern OR e.summary ILIKE :pattern)");
      bindings.pattern = `%${likeLiteral(filters.search)}%`;
    }
    if (filters.since) {
      conditions.push("e.detected_at >= :since");
      bindings.since = filters.since;
    }
    const { rows } = await this.workspace.scope.raw<{ json: string }>(
      `SELECT coalesce(json_agg(page.event ORDER BY page.detected_at DESC, page.id DESC), '[]')::text AS json
       FROM (SELECT ${EVENT_JSON} AS event, e.detected_at, e.id FROM events e
             WHERE e.workspace_id = :workspace_id AND ${conditions.join(" AND ")}
             ORDER BY e.detected_at DESC, e.id DESC LIMIT :limit OFFSET :offset) page`,
      bindings,
    );
    return rows[0]!.json;
  }

  /** One event with its competitor name, diff, evidence and source URL, as JSON text. */
  async detailJson(eventId: string): Promise<JsonText<Schemas["EventDetail"]>> {
    const { rows } = await this.workspace.scope.raw<{ json: string }>(
      `SELECT json_build_object(
         'competitor_name', c.name,
         'diff_json', d.diff_json,
         'event', ${EVENT_JSON},
         'evidence', coalesce((SELECT json_agg(json_build_object(
             'id', v.id, 'evidence_type', v.evidence_type, 'title', v.title, 'excerpt', v.excerpt,
             'source_url', v.source_url, 'asset_object_key', v.asset_object_key, 'metadata_json', v.metadata_json,
             'created_at', ${isoTimestamp("v.created_at")}) ORDER BY v.created_at, v.id)
           FROM evidence v WHERE v.event_id = e.id), '[]'::json),
         'source_url', s.url)::text AS json
       FROM events e
       LEFT JOIN competitors c ON c.id = e.competitor_id
       LEFT JOIN sources s ON s.id = e.source_id
       LEFT JOIN diffs d ON d.id = e.diff_id
       WHERE e.id = :event_id AND e.workspace_id = :workspace_id
         AND e.detected_at >= now() - make_interval(days => :history_days)`,
      { event_id: eventId, history_days: this.historyDays },
    );
    if (rows.length === 0) throw notFound("Event");
    return rows[0]!.json;
  }

  /**
   * The PNG of the event's screenshot evidence (docs/product-rules.md#screenshots), read from the asset store; a 404
   * when the event is not the workspace's (or is past the plan's history), has no screenshot, or its file is gone.
   */
  async screenshot(eventId: string, assets: AssetStore | null): Promise<Buffer> {
    const { rows } = await this.workspace.scope.raw<{ asset_object_key: string }>(
      `SELECT v.asset_object_key FROM events e
       JOIN evidence v ON v.event_id = e.id
       WHERE e.id = :event_id AND e.workspace_id = :workspace_id
         AND e.detected_at >= now() - make_interval(days => :history_days)
         AND v.evidence_type = 'screenshot' AND v.asset_object_key IS NOT NULL
       ORDER BY v.created_at, v.id
       LIMIT 1`,
      { event_id: eventId, history_days: this.historyDays },
    );
    const key = rows[0]?.asset_object_key;
    const png = key && assets ? await assets.get(key) : null;
    if (!png) throw notFound("Screenshot");
    return png;
  }

  /**
   * Sets the event's status. Dismissing with a reason teaches the event's source a rule per key of the change
   * (docs/product-rules.md#learned-rules); any other status forgets what the event's dismissal taught. One
   * transaction: the status and the rules move together.
   */
  async setStatus(
    eventId: string,
    status: EventStatus,
    reason?: DismissalReason,
  ): Promise<Schemas["EventStatusResult"]> {
    if (reason !== undefined && status !== "dismissed") {
      throw invalid(["query", "reason"], "reason is only accepted with status=dismissed");
    }
    return this.workspace.scope.transaction(async (scope) => {
      const [row] = await scope
        .from("events")
        .where({ id: eventId })
        .update({ status })
        .returning(["id", "status", "source_id", "title", "event_type", "subject", "tags_json", "learn_keys"]);
      if (!row) throw notFound("Event");
      if (status !== "dismissed") await forgetDismissal(scope, row.id);
      const learned = reason ? await learnFromDismissal(scope, row, reason) : [];
      return { id: row.id, status: row.status, learned_rule_ids: learned };
    });
  }

  /** Markers per competitor over the window; every competitor is a key, with `[]` when it had no events. */
  async activity(days: number): Promise<Schemas["EventActivity"]> {
    const { rows } = await this.workspace.scope.raw<{ competitors: Schemas["EventActivity"]["competitors"] }>(
      `SELECT coalesce(json_object_agg(c.id, coalesce(m.markers, '[]'::json)), '{}'::json) AS competitors
       FROM competitors c
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('detected_at', ${isoTimestamp("e.detected_at")}, 'severity', e.severity)
                         ORDER BY e.detected_at, e.id) AS markers
         FROM events e
         WHERE e.competitor_id = c.id AND e.workspace_id = c.workspace_id
           AND e.detected_at >= now() - make_interval(days => :window_days)
       ) m ON true
       WHERE c.workspace_id = :workspace_id`,
      { window_days: Math.min(days, this.historyDays) },
    );
    return { competitors: rows[0]!.competitors, days };
  }
}
