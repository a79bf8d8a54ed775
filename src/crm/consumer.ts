/**
 * The CRM's part of the `event-created` job (src/delivery/consumers.ts): one sync per active connection of the event's
 * workspace whose severity threshold the event reaches and whose mapping covers the event's competitor, each with its
 * `crm-sync` job, in one transaction.
 */
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps, DeliverySetup, EventChannel, EventToDeliver } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { severityAtLeast } from "../lib/severity.js";
import { mappingFor, type Mapping } from "./mapping.js";

/**
 * CRM write-back is machine integration: it needs `api_access` (docs/product-rules.md#access-and-roles).
 * Idempotent: a sync is unique per (connection, event) and inserted ON CONFLICT DO NOTHING, and its job is queued only
 * by the insert that created it, so a retried `event-created` job queues nothing twice.
 */
export class CrmChannel implements EventChannel {
  readonly name = "CRM write-back";
  readonly requires = "api_access";

  constructor(private readonly deps: DeliveryDeps) {}

  wants(setup: DeliverySetup): boolean {
    return setup.crm;
  }

  async consume(event: EventToDeliver): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      const scope = new WorkspaceScope(trx, event.workspace_id);
      // An errored connection (its token was refused) takes no new syncs until crm-connect runs again.
      const connections = await scope
        .from("crm_connections")
        .where({ status: "active" })
        .orderBy("provider")
        .select<{ id: string; severity_threshold: string; mapping: Mapping }[]>("id", "severity_threshold", "mapping");
      for (const connection of connections) {
        // Inclusive (docs/product-rules.md#validation): an event at exactly the threshold is written.
        if (!severityAtLeast(event.severity, connection.severity_threshold)) continue;
        if (!mappingFor(connection.mapping, event.competitor_id)) continue;
        const [sync] = await trx("crm_syncs")
          .insert({ connection_id: connection.id, event_id: event.id })
          .onConflict(["connection_id", "event_id"])
          .ignore()
          .returning("id");
        if (!sync) continue;
        // The first retry waits WEBHOOK_RETRY_BASE_SECONDS, doubling after (pg-boss backoff), like the other outbound
        // deliveries (src/alerts/consumer.ts): one knob for how patiently the service retries customers' endpoints.
        await this.deps.jobs.send(
          QUEUES.crmSync,
          { sync_id: sync.id },
          { retryDelay: this.deps.config.webhookRetryBaseSeconds },
          trx,
        );
      }
    });
  }
}
