/** Set-up shared by the CRM tests: a Growth workspace tracking a competitor, connected with the admin CLI. */
import { runAdminCommand } from "../../src/cli/admin.js";
import type { ConnectionView } from "../../src/crm/connections.js";
import type { DeliveryDeps } from "../../src/delivery/types.js";
import type { PlanName } from "../../src/workspaces/plans.js";
import { createCompetitor, createEvent, createSource, createWorkspace, type TestMember } from "../setup/factories.js";
import type { TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

export interface CrmSetup {
  owner: TestMember;
  competitor: { id: string; name: string; domain: string };
  sourceId: string;
  sourceUrl: string;
}

export function deliveryDeps(app: TestApp): DeliveryDeps {
  const { config, knex, jobs, http, log } = app.service.services;
  return { config, knex, jobs, http, log };
}

export const admin = (app: TestApp, ...argv: string[]) => runAdminCommand(argv, app.service.services);

/** A workspace (Growth unless told) with competitor Acme and its pricing page. */
export async function workspaceWithCompetitor(
  app: TestApp,
  options: { plan?: PlanName; competitor?: string } = {},
): Promise<CrmSetup> {
  const owner = await createWorkspace(app, { plan: options.plan ?? "growth" });
  const name = options.competitor ?? "Acme";
  const domain = `${name.toLowerCase()}.com`;
  const competitor = await createCompetitor(app, owner, { name, domain });
  return { owner, competitor, ...(await addSource(app, owner, competitor)) };
}

export async function addSource(
  app: TestApp,
  owner: TestMember,
  competitor: { id: string; domain: string },
): Promise<{ sourceId: string; sourceUrl: string }> {
  const source = await createSource(app, owner, {
    competitorId: competitor.id,
    url: `https://${competitor.domain}/pricing`,
    source_type: "pricing",
  });
  return { sourceId: source.id, sourceUrl: source.url };
}

export async function connect(
  app: TestApp,
  setup: CrmSetup,
  provider: "salesforce" | "hubspot",
  fake: { baseUrl: string; token: string },
  mapping: Record<string, unknown>,
  extra: string[] = [],
): Promise<ConnectionView> {
  return (await admin(
    app,
    "crm-connect",
    setup.owner.workspaceId,
    "--provider",
    provider,
    "--base-url",
    fake.baseUrl,
    "--token",
    fake.token,
    "--mapping",
    JSON.stringify(mapping),
    ...extra,
  )) as ConnectionView;
}

export interface EventInput {
  severity?: string;
  title?: string;
  detected_at?: Date;
  confidence_score?: number;
  event_type?: string;
  competitorId?: string;
  sourceId?: string;
}

export async function newEvent(app: TestApp, setup: CrmSetup, fields: EventInput = {}): Promise<{ id: string }> {
  return createEvent(app, setup.owner, {
    competitorId: fields.competitorId ?? setup.competitor.id,
    source_id: fields.sourceId ?? setup.sourceId,
    severity: fields.severity ?? "high",
    title: fields.title ?? "Acme raised Pro from $49 to $59/month",
    detected_at: fields.detected_at,
    confidence_score: fields.confidence_score,
    event_type: fields.event_type,
  });
}

export interface SyncRow {
  id: string;
  status: string;
  attempts: number;
  records_total: number | null;
  records_failed: number;
  last_error: string | null;
}

export async function syncOf(app: TestApp, connectionId: string, eventId: string): Promise<SyncRow | undefined> {
  return app.service.services.knex("crm_syncs").where({ connection_id: connectionId, event_id: eventId }).first();
}

/** Waits for the worker to settle the sync in `status`. */
export async function settled(app: TestApp, connectionId: string, eventId: string, status: string): Promise<SyncRow> {
  return waitFor(
    async () => {
      const sync = await syncOf(app, connectionId, eventId);
      return sync?.status === status ? sync : null;
    },
    20_000,
    `CRM sync ${status}`,
  );
}

export async function writesOf(app: TestApp, syncId: string) {
  return app.service.services
    .knex("crm_writes")
    .where({ sync_id: syncId })
    .orderBy("record_id")
    .select("record_id", "status", "error", "note_id", "patched_at", "noted_at");
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
