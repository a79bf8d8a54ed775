/** The one query that loads an event to deliver (see EventToDeliver). */
import type { Knex } from "knex";
import { eventSourceUrl } from "../db/sql.js";
import type { EventToDeliver } from "./types.js";

/** The event with everything its channels need, or `null` when it was deleted since (competitor or workspace gone). */
export async function loadEventToDeliver(
  knex: Knex | Knex.Transaction,
  eventId: string,
): Promise<EventToDeliver | null> {
  const { rows } = await knex.raw(
    `SELECT e.id, e.workspace_id, e.competitor_id, e.event_type, e.severity, e.title, e.summary, e.impact_summary,
            e.confidence_score, e.confidence_reasoning, c.name AS competitor_name,
            ${eventSourceUrl("s", { orCompetitorSite: false })} AS source_url,
            w.name AS workspace_name, w.plan, w.slack_webhook_url,
            json_build_object(
              'immediateRules', EXISTS (SELECT 1 FROM alert_rules r WHERE r.workspace_id = e.workspace_id
                                          AND r.frequency = 'immediate' AND r.is_active),
              'webhooks', EXISTS (SELECT 1 FROM webhook_subscriptions ws WHERE ws.workspace_id = e.workspace_id),
              'crm', EXISTS (SELECT 1 FROM crm_connections cc WHERE cc.workspace_id = e.workspace_id
                               AND cc.status = 'active')) AS setup
       FROM events e
       JOIN competitors c ON c.id = e.competitor_id
       JOIN workspaces w ON w.id = e.workspace_id
       LEFT JOIN sources s ON s.id = e.source_id AND s.workspace_id = e.workspace_id
      WHERE e.id = ?`,
    [eventId],
  );
  return (rows[0] as EventToDeliver | undefined) ?? null;
}
