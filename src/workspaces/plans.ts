/** Plan catalogue and limits, exactly as docs/product-rules.md#plans-and-limits fixes them. */

import type { Plan, Schemas } from "../http/schemas.js";

export const PLAN_NAMES = ["free", "starter", "growth", "enterprise"] as const satisfies readonly Plan[];
export type PlanName = Plan;
export type PlanLimits = Schemas["PlanLimits"];
/** The yes/no features of a plan (`api_access`, `realtime`, …), as opposed to its counted limits. */
export type PlanFlag = { [K in keyof PlanLimits]: PlanLimits[K] extends boolean ? K : never }[keyof PlanLimits];

export interface PlanDefinition {
  plan: PlanName;
  label: string;
  limits: PlanLimits;
  list_price_per_seat_monthly: number;
  beta_price_per_seat_monthly: number;
}

export const PLANS: Readonly<Record<PlanName, PlanDefinition>> = Object.freeze({
  free: {
    plan: "free",
    label: "Free",
    limits: {
      competitors: 3,
      seats: 1,
      history_days: 30,
      chat_quota: 20,
      api_access: false,
      daily_digest: false,
      realtime: false,
      slack: false,
      partner_workspaces: 0,
    },
    list_price_per_seat_monthly: 0,
    beta_price_per_seat_monthly: 0,
  },
  starter: {
    plan: "starter",
    label: "Starter",
    limits: {
      competitors: 10,
      seats: 3,
      history_days: 90,
      chat_quota: 200,
      api_access: false,
      daily_digest: true,
      realtime: false,
      slack: true,
      partner_workspaces: 0,
    },
    list_price_per_seat_monthly: 49,
    beta_price_per_seat_monthly: 29,
  },
  growth: {
    plan: "growth",
    label: "Growth",
    limits: {
      competitors: 25,
      seats: 10,
      history_days: 365,
      chat_quota: 1000,
      api_access: true,
      daily_digest: true,
      realtime: true,
      slack: true,
      partner_workspaces: 25,
    },
    list_price_per_seat_monthly: 99,
    beta_price_per_seat_monthly: 59,
  },
  enterprise: {
    plan: "enterprise",
    label: "Enterprise",
    limits: {
      competitors: 100,
      seats: 50,
      history_days: 730,
      chat_quota: 5000,
      api_access: true,
      daily_digest: true,
      realtime: true,
      slack: true,
      partner_workspaces: 250,
    },
    list_price_per_seat_monthly: 199,
    beta_price_per_seat_monthly: 119,
  },
});

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

export function limitsOf(plan: PlanName): PlanLimits {
  return PLANS[plan].limits;
}

/**
 * The plans that have a flag, for the 403s that name the plan lifting a limit (docs/product-rules.md#plans-and-limits):
 * "Growth or Enterprise". Read from the table, so messages follow it.
 */
export function plansWith(flag: PlanFlag): string {
  const labels = PLAN_NAMES.filter((plan) => PLANS[plan].limits[flag]).map((plan) => PLANS[plan].label);
  return labels.length > 1 ? `${labels.slice(0, -1).join(", ")} or ${labels.at(-1)}` : (labels[0] ?? "another plan");
}

/** The counted limits of a plan (competitors, seats, …), as opposed to its flags. */
export type PlanCount = Exclude<keyof PlanLimits, PlanFlag>;

/**
 * The first plan after `plan` that allows more of a counted limit (Starter, for a fourth competitor on Free), for the
 * 403s that name the plan lifting it; null on the plan that allows the most.
 */
export function planLifting(plan: PlanName, limit: PlanCount): PlanDefinition | null {
  const mine = PLANS[plan].limits[limit];
  return PLAN_NAMES.map((name) => PLANS[name]).find((next) => next.limits[limit] > mine) ?? null;
}

/** "upgrade to Starter (10 competitors)", or, on the plan that allows the most, a word to contact the vendor. */
export function upgradeFor(plan: PlanName, limit: PlanCount, unit: string): string {
  const next = planLifting(plan, limit);
  return next ? `upgrade to ${next.label} (${next.limits[limit]} ${unit})` : "contact us for a larger plan";
}
