/** Plan catalogue and limits, exactly as DESIGN.md §3 fixes them. */

export const PLAN_NAMES = ["free", "starter", "growth", "enterprise"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  competitors: number;
  seats: number;
  history_days: number;
  chat_quota: number;
  api_access: boolean;
  daily_digest: boolean;
  realtime: boolean;
  slack: boolean;
}

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
