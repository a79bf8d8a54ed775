/**
 * Test data made directly in the database (fast: no HTTP round trip, no 0.4 s password hash per user).
 * Each call makes a fresh workspace, so tests never share tenants.
 *
 * Factories write rows as the service itself would (the same defaults, the same derived columns, computed with the
 * service's own helpers where it has one: normalized URLs, extractions, diffs, rule names, digest payloads), so a test
 * that needs a row never spells out columns it does not care about. A test that checks what the table itself refuses
 * (CHECK constraints, unique keys) still inserts by hand: there the raw row is the point.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { createDefaultAlertRule } from "../../src/alert-rules/service.js";
import { alertRuleName } from "../../src/alert-rules/name.js";
import { hashPassword } from "../../src/auth/passwords.js";
import { DEFAULT_FIELD_NAMES } from "../../src/crm/properties.js";
import { WorkspaceScope } from "../../src/db/tenancy.js";
import { diffExtractions } from "../../src/detection/diff/diff.js";
import { extract } from "../../src/detection/read/index.js";
import { EXTRACTOR_VERSION, type Extraction, type SnapshotDiff } from "../../src/detection/types.js";
import { generateDigest } from "../../src/digests/service.js";
import { normalizeUrl } from "../../src/sources/normalize-url.js";
import { normalizeEmail } from "../../src/suppressions/service.js";
import { sealedPlace, secretBoxOf } from "../../src/lib/secret-box.js";
import { generateSigningSecret } from "../../src/webhooks/signature.js";
import type { MemberRole } from "../../src/workspaces/models.js";
import type { PlanName } from "../../src/workspaces/plans.js";
import type { TestApp } from "./test-app.js";

export const TEST_PASSWORD = "correct horse battery staple";
// One cheap hash (low scrypt cost) for every factory user; verifyPassword reads the cost from the hash itself.
const passwordHash = hashPassword(TEST_PASSWORD, { N: 1024, r: 8, p: 1 });

export interface TestMember {
  userId: string;
  email: string;
  workspaceId: string;
  role: MemberRole;
  token: string;
  /** `Authorization` header value. */
  bearer: string;
}

/** What a factory needs of a member: only its workspace (so a test holding just a workspace id can use it too). */
export type InWorkspace = Pick<TestMember, "workspaceId">;

const uniqueEmail = (prefix: string) => `${prefix}-${randomBytes(5).toString("hex")}@example.com`;
const knexOf = (app: TestApp): Knex => app.service.services.knex;

export async function createWorkspace(
  app: TestApp,
  options: { plan?: PlanName; isAdmin?: boolean; name?: string } = {},
): Promise<TestMember> {
  const knex = knexOf(app);
  const [workspace] = await knex("workspaces")
    .insert({ name: options.name ?? "Test workspace", plan: options.plan ?? "free" })
    .returning("id");
  // Like createWorkspaceFor: every real workspace starts with its default alert rule
  // (docs/product-rules.md#alert-rules).
  await createDefaultAlertRule(knex, workspace.id);
  return addMember(app, workspace.id, { role: "owner", isAdmin: options.isAdmin });
}

export async function addMember(
  app: TestApp,
  workspaceId: string,
  options: { role?: MemberRole; isAdmin?: boolean; email?: string } = {},
): Promise<TestMember> {
  const { knex, tokens } = app.service.services;
  const email = options.email ?? uniqueEmail(options.role ?? "member");
  const [user] = await knex("users")
    .insert({ email, name: "Test User", password_hash: await passwordHash, is_admin: options.isAdmin ?? false })
    .returning("id");
  const role = options.role ?? "member";
  await knex("memberships").insert({ workspace_id: workspaceId, user_id: user.id, role });
  const token = await tokens.issue(user.id, workspaceId);
  return { userId: user.id, email, workspaceId, role, token, bearer: `Bearer ${token}` };
}

export async function createCompetitor(
  app: TestApp,
  member: InWorkspace,
  fields: { name?: string; domain?: string } = {},
): Promise<{ id: string; name: string; domain: string }> {
  const [row] = await knexOf(app)("competitors")
    .insert({ workspace_id: member.workspaceId, name: fields.name ?? "Acme", domain: fields.domain ?? "acme.com" })
    .returning(["id", "name", "domain"]);
  return row;
}

export interface SourceFields {
  competitorId: string;
  /** A page of the competitor's domain unless given (unique per call: a competitor tracks a URL once). */
  url?: string;
  source_type?: string;
  fetch_method?: string;
  fetch_frequency_minutes?: number;
  is_active?: boolean;
  error_message?: string | null;
  last_error_at?: Date | null;
  last_fetched_at?: Date | null;
  last_success_at?: Date | null;
  consecutive_failures?: number;
  /** The queued fetch's job, as `run-now` and the scheduler mark it. */
  fetch_job_id?: string | null;
  fetch_queued_at?: Date | null;
}

/** A tracked source, stored as `POST /competitors/{id}/sources` stores it (with its normalized URL). */
export async function createSource(
  app: TestApp,
  member: InWorkspace,
  fields: SourceFields,
): Promise<{ id: string; url: string }> {
  const { competitorId, url: given, source_type = "pricing", ...rest } = fields;
  let url = given;
  if (url === undefined) {
    const competitor = await knexOf(app)("competitors").where({ id: competitorId }).first("domain");
    url = `https://${competitor.domain}/${source_type}-${randomBytes(3).toString("hex")}`;
  }
  const [row] = await knexOf(app)("sources")
    .insert({
      competitor_id: competitorId,
      workspace_id: member.workspaceId,
      url,
      normalized_url: normalizeUrl(url),
      source_type,
      ...rest,
    })
    .returning(["id", "url"]);
  return row;
}

export interface EventFields {
  competitorId: string;
  title?: string;
  summary?: string;
  event_type?: string;
  severity?: string;
  status?: string;
  confidence_score?: number;
  detected_at?: Date;
  source_id?: string;
  diff_id?: string;
  /** What the event is about; unique unless given (events are unique per diff and subject). */
  subject?: string;
}

function eventRow(workspaceId: string, fields: EventFields): Record<string, unknown> {
  const detectedAt = fields.detected_at ?? new Date();
  return {
    workspace_id: workspaceId,
    competitor_id: fields.competitorId,
    source_id: fields.source_id ?? randomUUID(),
    diff_id: fields.diff_id ?? randomUUID(),
    event_type: fields.event_type ?? "pricing_change",
    severity: fields.severity ?? "medium",
    status: fields.status ?? "new",
    title: fields.title ?? "Acme raised Pro from $49 to $59/month",
    summary: fields.summary ?? "The Pro plan now costs $59 per month instead of $49.",
    impact_summary: "Prospects comparing on price now see a $10/month gap.",
    confidence_score: fields.confidence_score ?? 0.85,
    confidence_reasoning: "Read from the plan cards of the pricing page.",
    is_inferred: false,
    tags_json: JSON.stringify(["pricing"]),
    subject: fields.subject ?? `test:${randomUUID()}`,
    observed_at: detectedAt,
    detected_at: detectedAt,
  };
}

/** An event row as detection would store it (no source or diff behind it unless given). */
export async function createEvent(app: TestApp, member: InWorkspace, fields: EventFields): Promise<{ id: string }> {
  const [row] = await createEvents(app, member, [fields]);
  return row!;
}

/**
 * Many event rows in one statement. `db` lets a test insert them inside its own transaction, as detection commits a
 * page's events together with their jobs.
 */
export async function createEvents(
  app: TestApp,
  member: InWorkspace,
  fields: EventFields[],
  db: Knex | Knex.Transaction = knexOf(app),
): Promise<{ id: string }[]> {
  return db("events")
    .insert(fields.map((f) => eventRow(member.workspaceId, f)))
    .returning("id");
}

// Two versions of a realistic pricing page (Pro goes from $49 to $59): what a detected event's snapshots hold.
const fixturePage = (name: string) => readFileSync(new URL(`../fixtures/sites/${name}`, import.meta.url), "utf8");
let pricingPages: { before: string; after: string } | undefined;
const defaultPages = () =>
  (pricingPages ??= { before: fixturePage("pricing-v1.html"), after: fixturePage("pricing-v2.html") });

// Extracting and diffing are deterministic and cost tens of milliseconds per page: a test that stores one page many
// times (a fresh workspace per case) pays for them once. The cached objects are only ever serialised, never changed.
const extractions = new Map<string, Extraction>();
const diffs = new WeakMap<Extraction, WeakMap<Extraction, SnapshotDiff>>();

function extractOnce(body: string, url: string, fetchMethod: "http" | "rss"): Extraction {
  const key = `${fetchMethod} ${url} ${createHash("sha256").update(body).digest("hex")}`;
  let extraction = extractions.get(key);
  if (!extraction) {
    extraction = extract(body, { url, contentType: "text/html", fetchMethod });
    extractions.set(key, extraction);
  }
  return extraction;
}

function diffOnce(before: Extraction, after: Extraction): SnapshotDiff {
  if (!diffs.has(before)) diffs.set(before, new WeakMap());
  const byAfter = diffs.get(before)!;
  let diff = byAfter.get(after);
  if (!diff) {
    diff = diffExtractions(before, after);
    byAfter.set(after, diff);
  }
  return diff;
}

/** A stored fetch of a source, with the extraction the current extractor makes of `body`. */
export async function createSnapshot(
  app: TestApp,
  member: InWorkspace,
  fields: { sourceId: string; body?: string; fetched_at?: Date; http_status?: number },
): Promise<{ id: string; extraction: Extraction }> {
  const source = await knexOf(app)("sources").where({ id: fields.sourceId }).first("url", "fetch_method");
  const body = fields.body ?? defaultPages().after;
  const extraction = extractOnce(body, source.url, source.fetch_method);
  const [row] = await knexOf(app)("snapshots")
    .insert({
      source_id: fields.sourceId,
      workspace_id: member.workspaceId,
      content_hash: createHash("sha256").update(body).digest("hex"),
      body,
      content_type: "text/html; charset=utf-8",
      http_status: fields.http_status ?? 200,
      final_url: source.url,
      extraction: JSON.stringify(extraction),
      extractor_version: EXTRACTOR_VERSION,
      fetched_at: fields.fetched_at ?? new Date(),
    })
    .returning("id");
  return { id: row.id, extraction };
}

/** The diff between two snapshots of a source, computed by the detection engine's own differ. */
export async function createDiff(
  app: TestApp,
  member: InWorkspace,
  fields: {
    sourceId: string;
    before: { id: string; extraction: Extraction };
    after: { id: string; extraction: Extraction };
  },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("diffs")
    .insert({
      source_id: fields.sourceId,
      workspace_id: member.workspaceId,
      before_snapshot_id: fields.before.id,
      after_snapshot_id: fields.after.id,
      diff_json: JSON.stringify(diffOnce(fields.before.extraction, fields.after.extraction)),
    })
    .returning("id");
  return row;
}

export async function createEvidence(
  app: TestApp,
  fields: { eventId: string; source_url: string; evidence_type?: string; title?: string; excerpt?: string },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("evidence")
    .insert({
      event_id: fields.eventId,
      evidence_type: fields.evidence_type ?? "before_after",
      title: fields.title ?? "Pro plan price",
      excerpt: fields.excerpt ?? "Before: Pro $49/month\nAfter: Pro $59/month",
      source_url: fields.source_url,
      metadata_json: JSON.stringify({ plan: "Pro", before: 49, after: 59 }),
    })
    .returning("id");
  return row;
}

export interface DetectedEvent {
  id: string;
  diffId: string;
  beforeSnapshotId: string;
  afterSnapshotId: string;
  evidenceId: string;
}

/**
 * An event with everything detection stores behind it: two snapshots of its source (the fixture pricing page before
 * and after Pro went from $49 to $59), their diff, the event and its evidence; the source points at the newer
 * snapshot, as after a successful fetch.
 */
export async function createDetectedEvent(
  app: TestApp,
  member: InWorkspace,
  fields: EventFields & { source_id: string },
): Promise<DetectedEvent> {
  const knex = knexOf(app);
  const sourceId = fields.source_id;
  const detectedAt = fields.detected_at ?? new Date();
  const pages = defaultPages();
  const before = await createSnapshot(app, member, {
    sourceId,
    body: pages.before,
    fetched_at: new Date(detectedAt.getTime() - 86400_000),
  });
  const after = await createSnapshot(app, member, { sourceId, body: pages.after, fetched_at: detectedAt });
  const diff = await createDiff(app, member, { sourceId, before, after });
  const event = await createEvent(app, member, { subject: "pricing:plan:pro", ...fields, diff_id: diff.id });
  const source = await knex("sources").where({ id: sourceId }).first("url");
  const evidence = await createEvidence(app, { eventId: event.id, source_url: source.url });
  await knex("sources")
    .where({ id: sourceId })
    .update({ last_snapshot_id: after.id, last_fetched_at: detectedAt, last_success_at: detectedAt });
  return {
    id: event.id,
    diffId: diff.id,
    beforeSnapshotId: before.id,
    afterSnapshotId: after.id,
    evidenceId: evidence.id,
  };
}

/** What `POST /competitors/{id}/profile` stores about a competitor. */
export async function createCompetitorProfile(
  app: TestApp,
  fields: { competitorId: string; industry?: string | null; business_model?: string | null; summary?: string },
): Promise<void> {
  await knexOf(app)("competitor_profiles").insert({
    competitor_id: fields.competitorId,
    profile: JSON.stringify({ summary: fields.summary ?? "Project management for small teams." }),
    industry: fields.industry ?? "Software",
    business_model: fields.business_model ?? "subscription",
    profiled_at: new Date(),
  });
}

type Schemas = components["schemas"];

export interface AlertRuleFields {
  competitorId?: string | null;
  /** Generated from the other fields, as the API names rules, unless given. */
  name?: string;
  confidence_threshold?: number;
  delivery_channels?: Schemas["DeliveryChannel"][];
  event_types?: Schemas["EventType"][] | null;
  frequency?: Schemas["AlertFrequency"];
  severity_threshold?: Schemas["Severity"];
  is_active?: boolean;
}

/** A (non-default) alert rule, with the API's defaults for absent fields. */
export async function createAlertRule(
  app: TestApp,
  member: InWorkspace,
  fields: AlertRuleFields = {},
): Promise<{ id: string; name: string }> {
  const [row] = await createAlertRules(app, member, [fields]);
  return row!;
}

/** Several alert rules in one statement (a test filling a workspace up to its rule limit). */
export async function createAlertRules(
  app: TestApp,
  member: InWorkspace,
  rules: AlertRuleFields[],
): Promise<{ id: string; name: string }[]> {
  const knex = knexOf(app);
  const rows = await Promise.all(
    rules.map(async (fields) => {
      const severity = fields.severity_threshold ?? "medium";
      const eventTypes = fields.event_types ?? null;
      const competitor = fields.competitorId
        ? await knex("competitors").where({ id: fields.competitorId }).first("name")
        : null;
      return {
        workspace_id: member.workspaceId,
        competitor_id: fields.competitorId ?? null,
        name:
          fields.name ??
          alertRuleName({
            severity_threshold: severity,
            event_types: eventTypes,
            competitor_name: competitor?.name ?? null,
          }),
        confidence_threshold: fields.confidence_threshold ?? 0.5,
        delivery_channels_json: JSON.stringify(fields.delivery_channels ?? ["email"]),
        event_types_json: eventTypes === null ? null : JSON.stringify(eventTypes),
        frequency: fields.frequency ?? "immediate",
        severity_threshold: severity,
        is_active: fields.is_active ?? true,
        is_default: false,
      };
    }),
  );
  return knex("alert_rules").insert(rows).returning(["id", "name"]);
}

/** A stored digest of the workspace's recent events, built by the digest generator itself. */
export async function createDigest(
  app: TestApp,
  member: InWorkspace,
  fields: { period_type?: "daily" | "weekly"; period_end?: Date } = {},
): Promise<{ id: string }> {
  const id = await generateDigest(new WorkspaceScope(knexOf(app), member.workspaceId), {
    periodType: fields.period_type ?? "weekly",
    periodEnd: fields.period_end ?? new Date(),
    publicBaseUrl: app.config.publicBaseUrl,
  });
  return { id };
}

/** One recipient's delivery row of a digest (`status` pending unless given, as before its mail is handed over). */
export async function createDigestDelivery(
  app: TestApp,
  member: InWorkspace & { userId?: string },
  fields: { digestId: string; recipient_email: string; status?: string; provider?: string },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("digest_deliveries")
    .insert({
      digest_id: fields.digestId,
      workspace_id: member.workspaceId,
      user_id: member.userId ?? null,
      recipient_email: fields.recipient_email,
      recipient_name: "Test User",
      provider: fields.provider ?? "log",
      status: fields.status ?? "pending",
    })
    .returning("id");
  return row;
}

export interface SuppressionFields {
  email: string;
  reason?: string;
  detail?: string | null;
  suppressed_at?: Date | string;
}

/** An address on the workspace's suppression list, stored lowercased as the service stores it. */
export async function createSuppression(
  app: TestApp,
  member: InWorkspace,
  fields: SuppressionFields,
): Promise<{ email: string }> {
  const [row] = await createSuppressions(app, member, [fields]);
  return row!;
}

/** Many suppressed addresses, inserted in batches (a test of the list's bound needs a thousand). */
export async function createSuppressions(
  app: TestApp,
  member: InWorkspace,
  rows: SuppressionFields[],
): Promise<{ email: string }[]> {
  const records = rows.map((fields) => ({
    workspace_id: member.workspaceId,
    email: normalizeEmail(fields.email),
    reason: fields.reason ?? "manual",
    detail: fields.detail ?? null,
    ...(fields.suppressed_at === undefined ? {} : { suppressed_at: fields.suppressed_at }),
  }));
  await knexOf(app).batchInsert("suppressed_emails", records, 500);
  return records.map(({ email }) => ({ email }));
}

export interface WebhookSubscriptionRow {
  id: string;
  url: string;
  environment: string;
  signing_secret: string;
}

/**
 * A webhook subscription stored as `webhook-add` stores it, but without its URL checks: a test can store a target
 * the running configuration would refuse (one saved while the SSRF guard was off).
 */
export async function createWebhookSubscription(
  app: TestApp,
  member: InWorkspace,
  fields: {
    url?: string;
    environment?: "staging" | "production";
    signing_secret?: string;
    min_severity?: string;
    event_types?: string[] | null;
  } = {},
): Promise<WebhookSubscriptionRow> {
  const secret = fields.signing_secret ?? generateSigningSecret();
  const id = randomUUID();
  const [row] = await knexOf(app)("webhook_subscriptions")
    .insert({
      id,
      workspace_id: member.workspaceId,
      environment: fields.environment ?? "production",
      url: fields.url ?? "https://93.184.215.14/hooks/rivalscope",
      signing_secret: secretBoxOf(app.config).seal(secret, sealedPlace.webhookSigningSecret(id)),
      min_severity: fields.min_severity ?? "low",
      event_types: fields.event_types ? JSON.stringify(fields.event_types) : null,
    })
    .returning(["id", "url", "environment"]);
  // The plaintext, as the operator is shown it (the row holds it sealed).
  return { ...row, signing_secret: secret };
}

/** A delivery of an event to a subscription, as the webhook consumer records it before its job runs. */
export async function createWebhookDelivery(
  app: TestApp,
  fields: { subscriptionId: string; eventId: string; job_id?: string | null; status?: string },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("webhook_deliveries")
    .insert({
      subscription_id: fields.subscriptionId,
      event_id: fields.eventId,
      job_id: fields.job_id ?? null,
      status: fields.status ?? "pending",
    })
    .returning("id");
  return row;
}

/** One alert of an event to one recipient on one channel, as the immediate-alerts consumer records it. */
export async function createAlertDelivery(
  app: TestApp,
  fields: { eventId: string; channel: "email" | "slack"; recipient?: string; status?: string },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("alert_deliveries")
    .insert({
      event_id: fields.eventId,
      channel: fields.channel,
      // The table requires Slack rows to name the recipient `slack` (one post per event, whoever reads it).
      recipient: fields.recipient ?? (fields.channel === "slack" ? "slack" : uniqueEmail("alert")),
      status: fields.status ?? "queued",
    })
    .returning("id");
  return row;
}

/**
 * A CRM connection as `crm-connect` stores it (the provider's default field names, threshold `high`), without its
 * URL and plan checks.
 */
export async function createCrmConnection(
  app: TestApp,
  member: InWorkspace,
  fields: {
    provider?: "salesforce" | "hubspot";
    base_url?: string;
    token?: string;
    severity_threshold?: string;
    mapping?: Record<string, unknown>;
  } = {},
): Promise<{ id: string }> {
  const provider = fields.provider ?? "salesforce";
  const id = randomUUID();
  const [row] = await knexOf(app)("crm_connections")
    .insert({
      id,
      workspace_id: member.workspaceId,
      provider,
      base_url: fields.base_url ?? "https://93.184.215.14",
      token: secretBoxOf(app.config).seal(
        fields.token ?? `tok-${randomBytes(8).toString("hex")}`,
        sealedPlace.crmToken(id),
      ),
      severity_threshold: fields.severity_threshold ?? "high",
      field_names: JSON.stringify(DEFAULT_FIELD_NAMES[provider]),
      mapping: JSON.stringify(fields.mapping ?? {}),
    })
    .returning("id");
  return row;
}

/** A queued CRM sync of an event, as the `event-created` consumer inserts it before its job runs. */
export async function createCrmSync(
  app: TestApp,
  fields: { connectionId: string; eventId: string },
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("crm_syncs")
    .insert({ connection_id: fields.connectionId, event_id: fields.eventId })
    .returning("id");
  return row;
}

/**
 * A displacement target account, as `POST /displacement/accounts` stores it, with one signal and one teardown (the
 * rule-based writer's `model: null`), so every table of the area holds a row of it.
 */
export async function createTargetAccount(
  app: TestApp,
  member: InWorkspace,
  fields: { company_name?: string; competitorId?: string | null; stage?: string } = {},
): Promise<{ id: string; signalId: string; teardownId: string }> {
  const knex = knexOf(app);
  const [account] = await knex("target_accounts")
    .insert({
      workspace_id: member.workspaceId,
      company_name: fields.company_name ?? "Globex",
      competitor_id: fields.competitorId ?? null,
      stage: fields.stage ?? "identified",
    })
    .returning("id");
  const [signal] = await knex("account_signals")
    .insert({
      workspace_id: member.workspaceId,
      account_id: account.id,
      kind: "renewal",
      headline: "Renewal in March",
      occurred_at: new Date(),
    })
    .returning("id");
  const [teardown] = await knex("account_teardowns")
    .insert({
      workspace_id: member.workspaceId,
      account_id: account.id,
      version: 1,
      content_md: `# Displacement teardown: ${fields.company_name ?? "Globex"}`,
    })
    .returning("id");
  return { id: account.id, signalId: signal.id, teardownId: teardown.id };
}

/** A switcher story, as `POST /displacement/stories` stores it (`status` draft unless given). */
export async function createSwitcherStory(
  app: TestApp,
  member: InWorkspace,
  fields: { company_name?: string; accountId?: string | null; status?: string } = {},
): Promise<{ id: string }> {
  const [row] = await knexOf(app)("switcher_stories")
    .insert({
      workspace_id: member.workspaceId,
      company_name: fields.company_name ?? "Globex",
      account_id: fields.accountId ?? null,
      status: fields.status ?? "draft",
    })
    .returning("id");
  return row;
}
