/** The one query that loads an event to deliver (see EventToDeliver), and what the machine integrations make of it. */
import type { Knex } from "knex";
import { eventSourceUrl } from "../db/sql.js";
import { acrossWorkspaces } from "../db/tenancy.js";
import type { EventToDeliver, EventToSend } from "./types.js";

/**
 * The event with everything its channels need, or `null` when it was deleted since (competitor or workspace gone).
 * Looked up by id in whichever workspace it is: the delivery workers hold only the id their job (or its row) names,
 * and learn the workspace from the event.
 */
export async function loadEventToDeliver(
  knex: Knex | Knex.Transaction,
  eventId: string,
): Promise<EventToDeliver | null> {
  return (await loadEventsToDeliver(knex, [eventId])).get(eventId) ?? null;
}

/** `loadEventToDeliver` for a batch of jobs, in one query: the events found, by id. */
export async function loadEventsToDeliver(
  knex: Knex | Knex.Transaction,
  eventIds: string[],
): Promise<Map<string, EventToDeliver>> {
  const { rows } = await acrossWorkspaces(knex).raw<EventToDeliver>(
    `SELECT e.id, e.workspace_id, e.competitor_id, e.event_type, e.severity, e.title, e.summary, e.impact_summary,
            e.confidence_score, e.confidence_reasoning, e.detected_at, e.tags_json, s.source_type,
            c.name AS competitor_name, c.domain AS competitor_domain,
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
      WHERE e.id = ANY(?::uuid[])`,
    [eventIds],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The event as the webhook body and the CRM write-back send it. Events outlive their source (no FK), so the page falls
 * back to the URL its first evidence recorded and lastly, since their contracts make it a string, to the competitor's
 * site (as `eventSourceUrl` writes it).
 */
export async function loadEventToSend(knex: Knex | Knex.Transaction, eventId: string): Promise<EventToSend | null> {
  const event = await loadEventToDeliver(knex, eventId);
  return event && toSend(event);
}

/** `loadEventToSend` for a batch, in one query: the events found, by id. */
export async function loadEventsToSend(
  knex: Knex | Knex.Transaction,
  eventIds: string[],
): Promise<Map<string, EventToSend>> {
  const events = await loadEventsToDeliver(knex, eventIds);
  return new Map([...events].map(([id, event]) => [id, toSend(event)]));
}

function toSend(event: EventToDeliver): EventToSend {
  return { ...event, source_url: event.source_url ?? `https://${event.competitor_domain}` };
}
