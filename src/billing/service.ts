/**
 * The caller's plan, beta claims, checkout and the billing portal (docs/product-rules.md#billing, spec/plans.tsp).
 * Built per request from the caller's workspace; the plan is the caller's (docs/architecture.md#tenancy-in-the-query),
 * the billing state is the workspace row's. Checkout and the portal talk to the payments provider with no transaction
 * open (docs/architecture.md#no-transaction-across-the-network): they read the row, then call; the provider's answer
 * changes nothing here (the plan changes when the webhook reports a completed checkout, src/billing/webhook.ts).
 */
import type { Knex } from "knex";
import { chatUsedThisMonth } from "../chat/usage.js";
import { enqueueEmail } from "../email/outbox.js";
import { ApiError, conflict, invalid, tooManyRequests, unauthorized } from "../http/errors.js";
import type { AppServices, Workspace } from "../http/handler.js";
import type { Schemas, Wire } from "../http/schemas.js";
import { escapeHtml } from "../lib/html.js";
import { RateLimiter, type RateLimitRule } from "../lib/rate-limit.js";
import { PLANS, limitsOf, type PlanName } from "../workspaces/plans.js";
import { PaymentsClient } from "./payments.js";

type BetaClaimRequest = Schemas["BetaClaimRequest"];
type CheckoutRequest = Schemas["CheckoutRequest"];
type BillingCycle = Schemas["BillingCycle"];

/**
 * Subscription statuses that still bill the workspace. A second checkout while one is live would create a second
 * subscription and charge twice, so it is refused (409) until the first is cancelled through the portal.
 */
export const LIVE_SUBSCRIPTION_STATUSES: ReadonlySet<string> = new Set(["active", "trialing", "past_due"]);

/** Beta claims per workspace per hour (docs/product-rules.md#billing): each may send a mail to any address. */
export const BETA_CLAIMS_PER_HOUR: Omit<RateLimitRule, "key"> = { limit: 10, windowSeconds: 3600 };

/** docs/product-rules.md#open-differences (billing cycle): a year costs ten months. */
export const ANNUAL_MONTHS_BILLED = 10;

interface BillingRow {
  payments_checkout_session_id: string | null;
  payments_customer_id: string | null;
  payments_subscription_id: string | null;
  subscription_status: string | null;
  current_period_end: Date | null;
  beta_claimed_at: Date | null;
  beta_grandfathered: boolean;
}

const BILLING_COLUMNS = [
  "payments_checkout_session_id",
  "payments_customer_id",
  "payments_subscription_id",
  "subscription_status",
  "current_period_end",
  "beta_claimed_at",
  "beta_grandfathered",
] as const;

interface BetaClaimRow {
  id: string;
  contact_email: string;
  requested_tier: PlanName;
  seat_count: number;
  created_at: Date;
}

/** The amount Stripe charges per seat per billing interval, in cents: the table's monthly price, × 10 for a year. */
export function unitAmountCents(perSeatMonthly: number, cycle: BillingCycle): number {
  return Math.round(perSeatMonthly * 100) * (cycle === "annual" ? ANNUAL_MONTHS_BILLED : 1);
}

export class BillingService {
  constructor(
    private readonly workspace: Workspace,
    private readonly services: Pick<AppServices, "config" | "http" | "jobs">,
  ) {}

  /** `GET /me/plan`: every figure computed from the tables it counts, none stored twice. */
  async myPlan(): Promise<Wire<Schemas["WorkspacePlan"]>> {
    const { caller, scope } = this.workspace;
    const [row, competitors, seats, chatUsed] = await Promise.all([
      this.billingRow(scope.db),
      scope.from("competitors").count({ n: "*" }).first(),
      scope.from("memberships").count({ n: "*" }).first(),
      chatUsedThisMonth(scope),
    ]);
    return {
      plan: caller.plan,
      plan_label: PLANS[caller.plan].label,
      beta_claimed_at: row.beta_claimed_at,
      beta_grandfathered: row.beta_grandfathered,
      billing: {
        current_period_end: row.current_period_end,
        payments_customer_id: row.payments_customer_id,
        payments_subscription_id: row.payments_subscription_id,
        subscription_status: row.subscription_status,
      },
      limits: limitsOf(caller.plan),
      usage: { chat_used: chatUsed, competitors: Number(competitors?.n ?? 0), seats: Number(seats?.n ?? 0) },
    };
  }

  /**
   * `POST /beta-claims`: stored with the contract's fields as sent, acknowledged by mail, idempotent per workspace,
   * `contact_email` (case-insensitively) and `requested_tier` through the table's unique index, so two concurrent
   * duplicates make one claim and one mail (docs/product-rules.md#billing; the contract's "each call records a new
   * claim" was the open difference, settled for idempotency). The mail goes to an address the caller chooses, so it
   * carries none of the caller's text, and claims are rate limited per workspace: the endpoint cannot relay mail.
   */
  async claimBeta(input: BetaClaimRequest, rawBody: Buffer | undefined): Promise<Wire<Schemas["BetaClaimResponse"]>> {
    const { caller } = this.workspace;
    if (input.requested_tier === "free") {
      throw invalid(["body", "requested_tier"], "Beta pricing is for paid plans: starter, growth or enterprise");
    }
    // Every attempt counts, repeats included: each may send a mail, and answers must not be probed in bulk.
    const wait = await new RateLimiter(this.workspace.scope.db as Knex).hit({
      key: `beta-claims:workspace:${caller.workspaceId}`,
      ...BETA_CLAIMS_PER_HOUR,
    });
    if (wait !== null) {
      throw tooManyRequests(
        wait,
        `A workspace may send ${BETA_CLAIMS_PER_HOUR.limit} beta claims per hour; try again later`,
      );
    }
    const label = PLANS[input.requested_tier].label;
    const cycle = input.billing_cycle ?? "monthly";
    const seats = input.seat_count ?? 1;
    return this.workspace.scope.transaction(async (scope) => {
      const [created] = (await scope
        .insert("beta_claims", {
          user_id: caller.userId,
          contact_email: input.contact_email.trim(),
          requested_tier: input.requested_tier,
          billing_cycle: cycle,
          seat_count: seats,
          contact_name: input.contact_name ?? null,
          notes: input.notes ?? null,
          fields: JSON.stringify(sentFields(rawBody, input)),
        })
        // The unique index on (workspace_id, lower(contact_email), requested_tier) is the one that can conflict.
        .onConflict()
        .ignore()
        .returning(["id", "contact_email", "requested_tier", "seat_count", "created_at"])) as BetaClaimRow[];
      if (!created) {
        // Waited for a concurrent duplicate to commit (ON CONFLICT does), so the row it made is visible here.
        const existing: BetaClaimRow | undefined = await scope
          .from("beta_claims")
          .whereRaw("lower(contact_email) = lower(?)", [input.contact_email.trim()])
          .where({ requested_tier: input.requested_tier })
          .first("id", "contact_email", "requested_tier", "seat_count", "created_at");
        if (!existing) throw new Error("a beta claim conflicted with a claim that cannot be read");
        return {
          id: existing.id,
          requested_tier: existing.requested_tier,
          seat_count: existing.seat_count,
          message: `Beta pricing for ${label} was already reserved for ${existing.contact_email} on ${existing.created_at.toISOString().slice(0, 10)}; nothing changed.`,
        };
      }
      await scope
        .db("workspaces")
        .where({ id: caller.workspaceId })
        .update({
          beta_claimed_at: scope.db.raw("coalesce(beta_claimed_at, now())"),
          beta_grandfathered: true,
          updated_at: scope.db.fn.now(),
        });
      await enqueueEmail(this.services.jobs, betaClaimMail(created, cycle), scope.db as Knex.Transaction);
      return {
        id: created.id,
        requested_tier: created.requested_tier,
        seat_count: created.seat_count,
        message: `Beta pricing for ${label} is reserved for ${created.contact_email}; we sent a confirmation and will be in touch.`,
      };
    });
  }

  /**
   * `POST /billing/checkout`: a Stripe Checkout Session in subscription mode with one line item, `seat_count` seats
   * at the plan's per-seat price (beta price once the workspace claimed the beta), monthly or yearly at 10 × the
   * monthly price (docs/product-rules.md#billing). The plan and workspace ride along as metadata on the session and
   * on the subscription it creates, so every later event names them.
   */
  async checkout(input: CheckoutRequest): Promise<Wire<Schemas["CheckoutResponse"]>> {
    const { caller } = this.workspace;
    const plan = input.plan;
    const cycle = input.billing_cycle ?? "monthly";
    const seats = input.seat_count ?? 1;
    if (plan === "free") {
      throw invalid(["body", "plan"], "The free plan needs no checkout; choose starter, growth or enterprise");
    }
    const definition = PLANS[plan];
    if (seats > definition.limits.seats) {
      throw invalid(
        ["body", "seat_count"],
        `The ${definition.label} plan has at most ${definition.limits.seats} seats`,
        "less_than_equal",
      );
    }
    const payments = this.payments();
    const row = await this.billingRow(this.workspace.scope.db);
    if (row.subscription_status !== null && LIVE_SUBSCRIPTION_STATUSES.has(row.subscription_status)) {
      throw conflict(
        `This workspace already has a ${row.subscription_status} subscription (${row.payments_subscription_id ?? "unknown id"}); ` +
          "change or cancel it in the billing portal (POST /billing/portal) before checking out again",
      );
    }
    // The workspace's previous checkout session must not stay payable beside the new one: two unpaid sessions could
    // both be paid, and billed twice. An open one is expired at the provider; a complete one whose subscription the
    // webhook has not reported yet means a subscription is on its way, so this checkout waits for it.
    const previous = row.payments_checkout_session_id;
    if (previous !== null) {
      const state = await payments.checkoutSessionState(previous);
      if (state?.status === "open") await payments.expireCheckoutSession(previous);
      else if (state?.status === "complete" && state.subscription !== row.payments_subscription_id) {
        throw conflict(
          `This workspace's checkout session ${previous} was completed moments ago and its subscription is being set ` +
            "up; once it is, change it in the billing portal (POST /billing/portal) rather than checking out again",
        );
      }
    }
    const beta = row.beta_grandfathered;
    const perSeatMonthly = beta ? definition.beta_price_per_seat_monthly : definition.list_price_per_seat_monthly;
    const metadata = { workspace_id: caller.workspaceId, plan, billing_cycle: cycle, seat_count: seats };
    const base = this.services.config.publicBaseUrl;
    const session = await payments.createCheckoutSession({
      mode: "subscription",
      client_reference_id: caller.workspaceId,
      // An existing customer keeps its payment methods and invoices; otherwise the provider creates one.
      ...(row.payments_customer_id ? { customer: row.payments_customer_id } : { customer_email: caller.email }),
      line_items: [
        {
          quantity: seats,
          price_data: {
            currency: "usd",
            unit_amount: unitAmountCents(perSeatMonthly, cycle),
            recurring: { interval: cycle === "annual" ? "year" : "month" },
            product_data: {
              name: `Rivalscope ${definition.label}${beta ? " (beta price)" : ""}`,
              description: `Per seat, billed ${cycle === "annual" ? "yearly at 10 × the monthly price" : "monthly"}`,
            },
          },
        },
      ],
      metadata,
      subscription_data: { metadata },
      // Stripe fills in {CHECKOUT_SESSION_ID} itself.
      success_url: `${base}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${base}/billing/cancel`,
    });
    // Recorded only if no other checkout recorded its session since this one read the row: of two concurrent
    // checkouts, the second to record expires its own session and answers 409, so one payable session remains.
    const recorded = await this.workspace.scope
      .db("workspaces")
      .where({ id: caller.workspaceId })
      .where((q) =>
        previous === null
          ? q.whereNull("payments_checkout_session_id")
          : q.where({ payments_checkout_session_id: previous }),
      )
      .update({ payments_checkout_session_id: session.id, updated_at: this.workspace.scope.db.fn.now() });
    if (recorded === 0) {
      await payments.expireCheckoutSession(session.id);
      throw conflict("Another checkout of this workspace started at the same time; use that one, or try again");
    }
    return { checkout_url: session.url, session_id: session.id };
  }

  /** `POST /billing/portal`: a portal session for the stored customer; 409 before any checkout completed. */
  async portal(): Promise<Wire<Schemas["PortalResponse"]>> {
    const payments = this.payments();
    const row = await this.billingRow(this.workspace.scope.db);
    if (!row.payments_customer_id) {
      throw conflict(
        "This workspace has no payments customer yet: complete a checkout (POST /billing/checkout) before opening the billing portal",
      );
    }
    const session = await payments.createPortalSession({
      customer: row.payments_customer_id,
      return_url: `${this.services.config.publicBaseUrl}/billing`,
    });
    return { portal_url: session.url };
  }

  /** The provider's client, or 503 when this deployment has none (docs/product-rules.md#status-codes). */
  private payments(): PaymentsClient {
    const { apiBase, apiKey } = this.services.config.payments;
    if (!apiKey) {
      throw new ApiError(
        503,
        "Payments are not configured on this deployment (PAYMENTS_API_KEY is not set); contact the vendor to subscribe",
      );
    }
    return new PaymentsClient(this.services.http, apiBase, apiKey);
  }

  /** The workspace row's billing state (`workspaces` is the tenant itself, not a tenant table). */
  private async billingRow(db: Knex | Knex.Transaction): Promise<BillingRow> {
    const row: BillingRow | undefined = await db("workspaces")
      .where({ id: this.workspace.caller.workspaceId })
      .first(...BILLING_COLUMNS);
    // The caller was authenticated as a member of this workspace moments ago; a workspace deleted since took the
    // membership with it, as a token of a removed member is refused.
    if (!row) throw unauthorized();
    return row;
  }
}

/** The fields of `BetaClaimRequest`: what a claim stores of its body (docs/product-rules.md#billing). */
const CLAIM_FIELDS = [
  "contact_email",
  "requested_tier",
  "billing_cycle",
  "contact_name",
  "notes",
  "seat_count",
  "company_name",
  "use_case",
] as const satisfies readonly (keyof BetaClaimRequest)[];

/**
 * The contract's fields of the claim, as sent: from the raw JSON when it parses to an object (the validated body has
 * the contract's defaults filled in, which the client did not send), else from the validated body. Fields the contract
 * does not know are not stored, so what a claim stores is bounded by the contract's lengths, not by the body's 1 MB.
 */
function sentFields(rawBody: Buffer | undefined, input: BetaClaimRequest): Record<string, unknown> {
  let sent: Record<string, unknown> = input as unknown as Record<string, unknown>;
  if (rawBody && rawBody.length > 0) {
    try {
      const parsed: unknown = JSON.parse(rawBody.toString("utf8"));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) sent = parsed as Record<string, unknown>;
    } catch {
      // Validation has parsed this body already; fall through to the validated copy.
    }
  }
  return Object.fromEntries(CLAIM_FIELDS.filter((name) => name in sent).map((name) => [name, sent[name]]));
}

/** The acknowledgement: the service's own words only (the address is the caller's choice, the text never is). */
function betaClaimMail(claim: BetaClaimRow, cycle: BillingCycle) {
  const plan = PLANS[claim.requested_tier];
  const greeting = "Hello,";
  const price =
    cycle === "annual"
      ? `$${plan.beta_price_per_seat_monthly * ANNUAL_MONTHS_BILLED} per seat per year (instead of $${plan.list_price_per_seat_monthly * ANNUAL_MONTHS_BILLED})`
      : `$${plan.beta_price_per_seat_monthly} per seat per month (instead of $${plan.list_price_per_seat_monthly})`;
  const seats = `${claim.seat_count} seat${claim.seat_count === 1 ? "" : "s"}`;
  return {
    to: claim.contact_email,
    subject: `Your Rivalscope beta pricing for ${plan.label} is reserved`,
    text:
      `${greeting}\n\nThanks for claiming beta pricing for the ${plan.label} plan: ${seats}, billed ${cycle}, ` +
      `at ${price}.\nThe beta price applies to your workspace's checkout from now on. We will be in touch at this ` +
      `address.\n\nReference: ${claim.id}\n`,
    html:
      `<p>${escapeHtml(greeting)}</p><p>Thanks for claiming beta pricing for the ${escapeHtml(plan.label)} plan: ` +
      `${seats}, billed ${cycle}, at ${escapeHtml(price)}.</p><p>The beta price applies to your workspace's checkout ` +
      `from now on. We will be in touch at this address.</p><p>Reference: ${claim.id}</p>`,
  };
}
