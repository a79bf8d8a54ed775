/**
 * The CRM's part of the `event-created` job (src/delivery/consumers.ts): one sync per active connection of the event's
 * workspace whose severity threshold the event reaches and whose mapping covers the event's competitor, each with its
 * `crm-sync` job, in one transaction.
 */
import type { EventConsumer } from "../delivery/consumers.js";
import { QUEUES } from "../jobs/queues.js";
import { severityAtLeast } from "../lib/severity.js";
import { limitsOf, type PlanName } from "../workspaces/plans.js";
import { mappingFor, type Mapping } from "./mapping.js";

/**
 * Idempotent: a sync is unique per (connection, event) and inserted ON CONFLICT DO NOTHING, and its job is queued only
 * by the insert that created it, so a retried `event-created` job queues nothing twice.
 */
export const queueCrmSyncs: EventConsumer = async (deps, eventId) => {
  await deps.knex.transaction(async (trx) => {
    const event = await trx("events as e")
      .join("workspaces as w", "w.id", "e.workspace_id")
      .where("e.id", eventId)
      .first<{ workspace_id: string; competitor_id: string; severity: string; plan: PlanName }>(
        "e.workspace_id",
        "e.competitor_id",
        "e.severity",
        "w.plan",
      );
    // DESIGN.md §7: CRM write-back needs `api_access` (Growth and above), judged when the event happens.
    if (!event || !limitsOf(event.plan).api_access) return;

    // An errored connection (its token was refused) takes no new syncs until crm-connect runs again.
    const connections = await trx("crm_connections")
      .where({ workspace_id: event.workspace_id, status: "active" })
      .orderBy("provider")
      .select<{ id: string; severity_threshold: string; mapping: Mapping }[]>("id", "severity_threshold", "mapping");
    for (const connection of connections) {
      // Inclusive (DESIGN.md §7): an event at exactly the threshold is written.
      if (!severityAtLeast(event.severity, connection.severity_threshold)) continue;
      if (!mappingFor(connection.mapping, event.competitor_id)) continue;
      const [sync] = await trx("crm_syncs")
        .insert({ connection_id: connection.id, event_id: eventId })
        .onConflict(["connection_id", "event_id"])
        .ignore()
        .returning("id");
      if (!sync) continue;
      // The first retry waits WEBHOOK_RETRY_BASE_SECONDS, doubling after (pg-boss backoff), like the other outbound
      // deliveries (src/alerts/consumer.ts): one knob for how patiently the service retries customers' endpoints.
      await deps.jobs.send(
        QUEUES.crmSync.name,
        { sync_id: sync.id },
        { retryDelay: deps.config.webhookRetryBaseSeconds },
        trx,
      );
    }
  });
};
