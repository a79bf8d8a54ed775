/**
 * Webhook subscriptions, created and changed by the vendor's manual onboarding
 * (docs/product-rules.md#outbound-webhooks; `webhook-add` and `webhook-promote` in docs/operations.md#admin-cli). One
 * subscription per workspace and environment.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import { assertTargetAllowed, type Resolver } from "../lib/ssrf-guard.js";
import { limitsOf, type PlanName } from "../workspaces/plans.js";
import {
  ENVIRONMENTS,
  SEVERITIES,
  WEBHOOK_TYPES,
  isEnvironment,
  isSeverity,
  isWebhookType,
  type Environment,
} from "./policy.js";
import { generateSigningSecret } from "./signature.js";

/** Bad input or a refused change; its message is the one-line error the operator sees. */
export class WebhookSubscriptionError extends Error {}

export interface WebhookSubscription {
  id: string;
  workspace_id: string;
  environment: Environment;
  url: string;
  signing_secret: string;
  min_severity: string;
  event_types: string[] | null;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionInput {
  workspaceId: string;
  url: string;
  environment: string;
  /** Absent on an update: unchanged (docs/product-rules.md#patch-semantics); absent on a create: `low`. */
  minSeverity?: string;
  /** Comma-separated event types, or `all`. Absent on an update: unchanged; on a create: all. */
  eventTypes?: string;
  /** Replace the signing secret of an existing subscription (a new one always gets a fresh secret). */
  rotateSecret?: boolean;
}

export interface SubscriptionDeps {
  knex: Knex;
  config: Pick<Config, "allowPrivateTargets" | "secretsKey">;
  /** DNS for the SSRF check; the system resolver unless a test gives another. */
  resolve?: Resolver;
}

const COLUMNS = [
  "id",
  "workspace_id",
  "environment",
  "url",
  "signing_secret",
  "min_severity",
  "event_types",
  "created_at",
  "updated_at",
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_URL_LENGTH = 2048;

/** Creates the workspace's subscription for the environment, or updates it (keeping its secret unless rotated). */
export async function upsertSubscription(
  deps: SubscriptionDeps,
  input: SubscriptionInput,
): Promise<WebhookSubscription> {
  if (!UUID.test(input.workspaceId)) throw new WebhookSubscriptionError(`not a workspace id: ${input.workspaceId}`);
  if (!isEnvironment(input.environment)) {
    throw new WebhookSubscriptionError(
      `--environment must be one of ${ENVIRONMENTS.join(", ")}, got ${input.environment}`,
    );
  }
  const url = parseWebhookUrl(input.url);
  const minSeverity = input.minSeverity === undefined ? undefined : parseSeverity(input.minSeverity);
  const eventTypes = input.eventTypes === undefined ? undefined : parseEventTypes(input.eventTypes);

  const workspace = await deps.knex("workspaces").where({ id: input.workspaceId }).first<{ plan: PlanName }>("plan");
  if (!workspace) throw new WebhookSubscriptionError(`no workspace ${input.workspaceId}`);
  // docs/product-rules.md#access-and-roles: outbound webhooks exist for machine integration, which `api_access` (Growth
  // and above) gates.
  if (!limitsOf(workspace.plan).api_access) {
    throw new WebhookSubscriptionError(
      `workspace ${input.workspaceId} is on the ${workspace.plan} plan; webhooks need api_access (growth or enterprise)`,
    );
  }
  // Checked now, through the same guard the deliveries pass, so a private target is refused when it is configured
  // rather than failing every delivery later (ALLOW_PRIVATE_TARGETS=1 lifts it, as it does for the client).
  if (!deps.config.allowPrivateTargets) {
    try {
      await assertTargetAllowed(url.hostname, { checkAddresses: true, exemptHosts: new Set() }, deps.resolve);
    } catch (error) {
      throw new WebhookSubscriptionError(`URL refused: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Stored sealed and bound to its row (src/lib/secret-box.ts); the operator is shown the plaintext once, in this
  // command's output. A new row's id is chosen here so its secret can be sealed for it in the insert itself.
  const box = secretBoxOf(deps.config);
  const secret = generateSigningSecret();
  const newId = randomUUID();
  const changes: Record<string, unknown> = { url: url.href, updated_at: deps.knex.fn.now() };
  if (minSeverity !== undefined) changes.min_severity = minSeverity;
  if (eventTypes !== undefined) changes.event_types = eventTypes === null ? null : JSON.stringify(eventTypes);
  return deps.knex.transaction(async (trx) => {
    const scope = new WorkspaceScope(trx, input.workspaceId);
    // One statement, so two concurrent calls for the same environment cannot both insert.
    const [row] = await scope
      .insert("webhook_subscriptions", {
        id: newId,
        environment: input.environment,
        url: url.href,
        signing_secret: box.seal(secret, sealedPlace.webhookSigningSecret(newId)),
        min_severity: minSeverity ?? "low",
        event_types: eventTypes ? JSON.stringify(eventTypes) : null,
      })
      .onConflict(["workspace_id", "environment"])
      .merge(changes)
      .returning([...COLUMNS]);
    let stored = row.signing_secret as string;
    if (row.id !== newId && input.rotateSecret) {
      // The existing subscription keeps its id: its new secret is sealed for that row.
      stored = box.seal(secret, sealedPlace.webhookSigningSecret(row.id as string));
      await scope.from("webhook_subscriptions").where({ id: row.id }).update({ signing_secret: stored });
    }
    return {
      ...(row as WebhookSubscription),
      signing_secret: box.open(stored, sealedPlace.webhookSigningSecret(row.id as string)),
    };
  });
}

/**
 * Moves a staging subscription to production (its id, URL, filters and secret go with it), replacing the production
 * subscription if there is one: the replaced subscription is deleted with its delivery history, in one transaction.
 */
export async function promoteSubscription(
  { knex, config }: { knex: Knex; config: Pick<Config, "secretsKey"> },
  subscriptionId: string,
): Promise<WebhookSubscription & { replaced_subscription_id: string | null }> {
  if (!UUID.test(subscriptionId)) throw new WebhookSubscriptionError(`not a subscription id: ${subscriptionId}`);
  return knex.transaction(async (trx) => {
    // The operator names the subscription, not its workspace: it is found by id, in whichever workspace it is.
    const subscription = await acrossWorkspaces(trx)
      .from("webhook_subscriptions")
      .where({ id: subscriptionId })
      .forUpdate()
      .first<Pick<WebhookSubscription, "workspace_id" | "environment">>("workspace_id", "environment");
    if (!subscription) throw new WebhookSubscriptionError(`no webhook subscription ${subscriptionId}`);
    if (subscription.environment !== "staging") {
      throw new WebhookSubscriptionError(`webhook subscription ${subscriptionId} is already in production`);
    }
    const scope = new WorkspaceScope(trx, subscription.workspace_id);
    const [replaced] = await scope
      .from("webhook_subscriptions")
      .where({ environment: "production" })
      .del()
      .returning("id");
    const [row] = await scope
      .from("webhook_subscriptions")
      .where({ id: subscriptionId })
      .update({ environment: "production", updated_at: trx.fn.now() })
      .returning([...COLUMNS]);
    return {
      ...(row as WebhookSubscription),
      signing_secret: secretBoxOf(config).open(
        row.signing_secret as string,
        sealedPlace.webhookSigningSecret(row.id as string),
      ),
      replaced_subscription_id: (replaced?.id as string | undefined) ?? null,
    };
  });
}

function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookSubscriptionError(`--url is not a URL: ${raw}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new WebhookSubscriptionError(`--url must be an http(s) URL, got ${url.protocol}`);
  }
  // The client sends origin and path only: credentials in the URL would be dropped silently. The signature is what
  // authenticates a delivery (docs/product-rules.md#outbound-signature).
  if (url.username || url.password) throw new WebhookSubscriptionError("--url must not contain credentials");
  if (url.href.length > MAX_URL_LENGTH) {
    throw new WebhookSubscriptionError(`--url is longer than ${MAX_URL_LENGTH} characters`);
  }
  return url;
}

function parseSeverity(raw: string): string {
  if (!isSeverity(raw))
    throw new WebhookSubscriptionError(`--min-severity must be one of ${SEVERITIES.join(", ")}, got ${raw}`);
  return raw;
}

/** `all` → null (every type); otherwise a non-empty list of known types, without repeats, in the order given. */
function parseEventTypes(raw: string): string[] | null {
  if (raw.trim() === "all") return null;
  const types = [
    ...new Set(
      raw
        .split(",")
        .map((type) => type.trim())
        .filter((type) => type !== ""),
    ),
  ];
  if (types.length === 0) throw new WebhookSubscriptionError("--event-types needs at least one event type, or all");
  const unknown = types.find((type) => !isWebhookType(type));
  if (unknown !== undefined) {
    throw new WebhookSubscriptionError(
      `--event-types must be among ${WEBHOOK_TYPES.join(", ")} (or all), got ${unknown}`,
    );
  }
  return types;
}
