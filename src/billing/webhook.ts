/**
 * `POST /billing/webhook` (docs/product-rules.md#billing): events of the Stripe-compatible payments provider, signed
 * with `Payments-Signature` (src/billing/signature.ts). Each event is processed exactly once: its id is recorded in
 * `payments_events` in the same transaction that applies it, so a redelivery, or the same event delivered twice at
 * once (the second insert waits for the first to commit, then finds the id taken), changes nothing, and an event
 * whose processing fails is not recorded, so the provider's retry is taken.
 *
 * The provider names its customer and subscription, and the metadata that `POST /billing/checkout` put on the session
 * and the subscription names our workspace; the workspace is found by those across workspaces (as a worker finds the
 * row its job names), locked, and changed. The provider does not deliver events in order: `payments_state_at` keeps
 * the provider's time of the newest event applied, and an older event changes nothing. A plan change is announced by
 * the `workspaces` trigger at commit, so it takes effect on the workspace's next request in every API process
 * (docs/product-rules.md#consistency).
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import { acrossWorkspaces } from "../db/tenancy.js";
import { ApiError, invalid } from "../http/errors.js";
import { isPlanName, type PlanName } from "../workspaces/plans.js";
import { LIVE_SUBSCRIPTION_STATUSES } from "./service.js";
import { PAYMENTS_SIGNATURE_HEADER, verifyPaymentsSignature } from "./signature.js";

/** The body `POST /billing/webhook` answers (an untyped object in the contract, documented there). */
export type PaymentsWebhookResult = {
  received: true;
  duplicate: boolean;
};

/** Subscription statuses after which the workspace no longer pays: it returns to `free`. */
const ENDED_STATUSES: ReadonlySet<string> = new Set(["canceled", "unpaid", "incomplete_expired", "paused"]);

/**
 * Statuses a subscription never leaves (the provider's terminal states; `unpaid` and `paused` can resume). A
 * subscription that reached one, or was deleted, is recorded in `payments_ended_subscriptions`, and no later event
 * makes it live again (docs/product-rules.md#billing).
 */
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["canceled", "incomplete_expired"]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type StripeObject = Record<string, unknown>;

interface PaymentsEvent {
  id: string;
  type: string;
  /** The provider's creation time of the event; the receipt time when it sent none. */
  created: Date;
  object: StripeObject | null;
  payload: unknown;
}

interface WorkspaceBilling {
  id: string;
  plan: PlanName;
  payments_checkout_session_id: string | null;
  payments_customer_id: string | null;
  payments_subscription_id: string | null;
  subscription_status: string | null;
  payments_state_at: Date | null;
}

/**
 * What applying an event decided: the workspace's new billing state, or why the event changes nothing; `reported`
 * changes nothing either but needs a person (logged as an error for the operators).
 */
type Decision =
  | { changes: Partial<Omit<WorkspaceBilling, "id">> & { current_period_end?: Date | null } }
  | { ignored: string }
  | { reported: string };

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer | undefined;
  body: unknown;
}

export class PaymentsWebhook {
  constructor(
    private readonly knex: Knex,
    private readonly secret: string | null,
    private readonly log?: Pick<Logger, "error">,
  ) {}

  /** Verifies, records the event id and applies the event, all or nothing. */
  async receive(request: RequestLike, now = new Date()): Promise<PaymentsWebhookResult> {
    if (!this.secret) {
      // Unverifiable events could change plans: without the secret nothing is accepted.
      throw new ApiError(
        503,
        "The payments webhook is not configured on this deployment (PAYMENTS_WEBHOOK_SECRET is not set)",
      );
    }
    verifyPaymentsSignature(this.secret, request.headers[PAYMENTS_SIGNATURE_HEADER], request.rawBody, now);
    const event = parseEvent(request.body, now);
    return this.knex.transaction(async (trx) => {
      const events = acrossWorkspaces(trx).from("payments_events");
      const claimed = await events
        .insert({
          id: event.id,
          type: event.type,
          outcome: "received",
          created_at: event.created,
          payload: JSON.stringify(event.payload),
        })
        .onConflict("id")
        .ignore()
        .returning("id");
      if (claimed.length === 0) return { received: true, duplicate: true };
      const { workspaceId, outcome } = await this.apply(trx, event);
      await acrossWorkspaces(trx)
        .from("payments_events")
        .where({ id: event.id })
        .update({ workspace_id: workspaceId, outcome });
      return { received: true, duplicate: false };
    });
  }

  private async apply(
    trx: Knex.Transaction,
    event: PaymentsEvent,
  ): Promise<{ workspaceId: string | null; outcome: string }> {
    const decide = DECISIONS[event.type];
    if (!decide) return { workspaceId: null, outcome: "ignored: event type not handled" };
    if (!event.object) return { workspaceId: null, outcome: "ignored: no data.object" };
    // An ended subscription is terminal whatever the order of delivery: its end is recorded (whether or not a
    // workspace holds it), and any other event about it changes nothing, even one stamped with the same second.
    const subscription = subscriptionOf(event.type, event.object);
    let ended = false;
    if (subscription !== null && endsSubscription(event.type, event.object)) {
      await trx("payments_ended_subscriptions")
        .insert({ subscription_id: subscription, event_id: event.id })
        .onConflict("subscription_id")
        .ignore();
    } else if (subscription !== null) {
      ended =
        (await trx("payments_ended_subscriptions").where({ subscription_id: subscription }).first()) !== undefined;
    }
    const workspace = await findWorkspace(trx, subscription, event.object);
    if (!workspace) return { workspaceId: null, outcome: "ignored: no workspace has this customer or subscription" };
    if (ended) {
      return {
        workspaceId: workspace.id,
        outcome: `ignored: subscription ${subscription} has ended; an ended subscription never becomes live again`,
      };
    }
    if (workspace.payments_state_at && event.created < workspace.payments_state_at) {
      return { workspaceId: workspace.id, outcome: "ignored: older than the billing state it would change" };
    }
    const decision = decide(event.object, workspace);
    if ("ignored" in decision) return { workspaceId: workspace.id, outcome: `ignored: ${decision.ignored}` };
    if ("reported" in decision) {
      this.log?.error({ workspace_id: workspace.id, event_id: event.id }, `payments: ${decision.reported}`);
      return { workspaceId: workspace.id, outcome: `reported: ${decision.reported}` };
    }
    await trx("workspaces")
      .where({ id: workspace.id })
      .update({ ...decision.changes, payments_state_at: event.created, updated_at: trx.fn.now() });
    return { workspaceId: workspace.id, outcome: "applied" };
  }
}

/** The four handled event types (docs/product-rules.md#billing), each a pure decision on the locked workspace row. */
const DECISIONS: Record<string, (object: StripeObject, workspace: WorkspaceBilling) => Decision> = {
  /** A checkout completed: the customer and subscription are the workspace's; once paid, so is the plan. */
  "checkout.session.completed": (session, workspace) => {
    if (session.mode !== undefined && session.mode !== "subscription")
      return { ignored: "not a subscription checkout" };
    const paid = session.payment_status === "paid" || session.payment_status === "no_payment_required";
    const plan = paidPlan(metadataOf(session).plan);
    const subscription = idOf(session.subscription);
    if (subscription !== null && replaced(workspace, subscription)) {
      // A second subscription while one is live (two checkouts both paid): applying it would drop the live one from
      // view while both bill. Someone must cancel one and refund it at the provider.
      return {
        reported:
          `a second subscription (${subscription}) was paid while ${workspace.payments_subscription_id} is ` +
          `${workspace.subscription_status}; not applied: cancel and refund one of them at the payments provider`,
      };
    }
    const sessionId = idOf(session.id);
    return {
      changes: {
        ...(sessionId !== null && sessionId === workspace.payments_checkout_session_id
          ? { payments_checkout_session_id: null }
          : {}),
        payments_customer_id: idOf(session.customer) ?? workspace.payments_customer_id,
        payments_subscription_id: idOf(session.subscription) ?? workspace.payments_subscription_id,
        // Not paid yet (a delayed payment method): the subscription's own update will say when it is.
        subscription_status: paid ? "active" : "incomplete",
        ...(paid && plan ? { plan } : {}),
      },
    };
  },

  /** The subscription changed (status, period, cancellation): its status decides the plan. */
  "customer.subscription.updated": (subscription, workspace) => {
    const id = idOf(subscription.id);
    if (!id) return { ignored: "subscription without an id" };
    if (replaced(workspace, id)) return { ignored: `subscription ${id} is not the workspace's current one` };
    const status = typeof subscription.status === "string" ? subscription.status : null;
    const plan = paidPlan(metadataOf(subscription).plan);
    let planChange: { plan?: PlanName } = {};
    if (status !== null && LIVE_SUBSCRIPTION_STATUSES.has(status) && plan) planChange = { plan };
    else if (status !== null && ENDED_STATUSES.has(status)) planChange = { plan: "free" };
    return {
      changes: {
        payments_customer_id: idOf(subscription.customer) ?? workspace.payments_customer_id,
        payments_subscription_id: id,
        subscription_status: status ?? workspace.subscription_status,
        current_period_end: periodEndOf(subscription),
        ...planChange,
      },
    };
  },

  /** The subscription ended: back to `free`, data kept (limits apply to new writes). */
  "customer.subscription.deleted": (subscription, workspace) => {
    const id = idOf(subscription.id);
    if (!id) return { ignored: "subscription without an id" };
    if (workspace.payments_subscription_id && workspace.payments_subscription_id !== id) {
      return { ignored: `subscription ${id} was replaced by ${workspace.payments_subscription_id}` };
    }
    return {
      changes: {
        plan: "free",
        payments_customer_id: idOf(subscription.customer) ?? workspace.payments_customer_id,
        payments_subscription_id: id,
        subscription_status: "canceled",
        current_period_end: periodEndOf(subscription),
      },
    };
  },

  /** A renewal failed: the provider retries; the plan stays until it updates or deletes the subscription. */
  "invoice.payment_failed": (invoice, workspace) => {
    const subscription = subscriptionOfInvoice(invoice);
    if (subscription && replaced(workspace, subscription)) {
      return { ignored: `subscription ${subscription} is not the workspace's current one` };
    }
    return {
      changes: {
        payments_customer_id: idOf(invoice.customer) ?? workspace.payments_customer_id,
        payments_subscription_id: subscription ?? workspace.payments_subscription_id,
        subscription_status: "past_due",
      },
    };
  },
};

/**
 * Whether an event about subscription `id` is about one the workspace has since replaced: another subscription is
 * stored and still live. One stored but ended gives way to the new one.
 */
function replaced(workspace: WorkspaceBilling, id: string): boolean {
  return (
    workspace.payments_subscription_id !== null &&
    workspace.payments_subscription_id !== id &&
    workspace.subscription_status !== null &&
    LIVE_SUBSCRIPTION_STATUSES.has(workspace.subscription_status)
  );
}

/**
 * The workspace an event is about, locked for the change: by our own id in the metadata (or the checkout's
 * `client_reference_id`), else by the stored subscription id, else by the stored customer id.
 */
async function findWorkspace(
  trx: Knex.Transaction,
  subscription: string | null,
  object: StripeObject,
): Promise<WorkspaceBilling | null> {
  const columns = [
    "id",
    "plan",
    "payments_checkout_session_id",
    "payments_customer_id",
    "payments_subscription_id",
    "subscription_status",
    "payments_state_at",
  ];
  const byId = [metadataOf(object).workspace_id, object.client_reference_id].find(
    (value): value is string => typeof value === "string" && UUID.test(value),
  );
  if (byId) {
    const row = await trx("workspaces").where({ id: byId }).forUpdate().first(columns);
    if (row) return row;
  }
  if (subscription) {
    const row = await trx("workspaces").where({ payments_subscription_id: subscription }).forUpdate().first(columns);
    if (row) return row;
  }
  const customer = idOf(object.customer);
  if (customer) {
    const row = await trx("workspaces").where({ payments_customer_id: customer }).forUpdate().first(columns);
    if (row) return row;
  }
  return null;
}

/** The subscription an event is about: the object itself, an invoice's, or a checkout session's. */
function subscriptionOf(type: string, object: StripeObject): string | null {
  if (type.startsWith("customer.subscription.")) return idOf(object.id);
  if (type.startsWith("invoice.")) return subscriptionOfInvoice(object);
  return idOf(object.subscription);
}

/** Whether the event ends its subscription for good: a deletion, or an update to a terminal status. */
function endsSubscription(type: string, object: StripeObject): boolean {
  if (type === "customer.subscription.deleted") return true;
  return (
    type === "customer.subscription.updated" &&
    typeof object.status === "string" &&
    TERMINAL_STATUSES.has(object.status)
  );
}

/** `{id, type, created, data: {object}}`; a body without a string `id` and `type` is not an event (422). */
function parseEvent(body: unknown, now: Date): PaymentsEvent {
  const event = (body ?? {}) as Record<string, unknown>;
  const issues = [];
  if (typeof event.id !== "string" || event.id === "") {
    issues.push({ loc: ["body", "id"], msg: "Field required: the event's id", type: "missing" });
  }
  if (typeof event.type !== "string" || event.type === "") {
    issues.push({ loc: ["body", "type"], msg: "Field required: the event's type", type: "missing" });
  }
  if (issues.length > 0) throw new ApiError(422, issues);
  if (String(event.id).length > 255) throw invalid(["body", "id"], "Event id is too long");
  const created =
    typeof event.created === "number" && Number.isFinite(event.created) && event.created > 0
      ? new Date(Math.min(event.created * 1000, now.getTime() + 300_000))
      : now;
  const data = event.data as { object?: unknown } | undefined;
  const object =
    data && typeof data.object === "object" && data.object !== null && !Array.isArray(data.object)
      ? (data.object as StripeObject)
      : null;
  return { id: event.id as string, type: event.type as string, created, object, payload: body };
}

function metadataOf(object: StripeObject): Record<string, unknown> {
  const metadata = object.metadata;
  return metadata && typeof metadata === "object" && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : {};
}

/** A Stripe reference: the id string, or the expanded object's `id`. */
function idOf(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") {
    return (value as { id: string }).id || null;
  }
  return null;
}

/** A paid plan named in metadata; anything else (absent, `free`, unknown) is none. */
function paidPlan(value: unknown): PlanName | null {
  return typeof value === "string" && isPlanName(value) && value !== "free" ? value : null;
}

/**
 * The subscription's period end: on the subscription in older API versions, on its items since Stripe moved it there
 * (2025-03-31); null when neither says.
 */
function periodEndOf(subscription: StripeObject): Date | null {
  const items = (subscription.items as { data?: unknown } | undefined)?.data;
  const fromItem = Array.isArray(items)
    ? (items[0] as { current_period_end?: unknown } | undefined)?.current_period_end
    : undefined;
  const seconds = subscription.current_period_end ?? fromItem;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 && seconds < 1e11
    ? new Date(seconds * 1000)
    : null;
}

/** An invoice's subscription: `subscription` in older API versions, `parent.subscription_details.subscription` now. */
function subscriptionOfInvoice(invoice: StripeObject): string | null {
  const parent = invoice.parent as { subscription_details?: { subscription?: unknown } } | undefined;
  return idOf(invoice.subscription) ?? idOf(parent?.subscription_details?.subscription);
}
