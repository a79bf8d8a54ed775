/**
 * One priced record, however it was read (structured data in offers.ts, records, grids and context in index.ts): its
 * key, name and the free rule are the same, so a structured plan and a card of the same name are one plan.
 */
import type { PriceKind, PriceOption, PricingPlan } from "../../types.js";
import { collapse } from "../../parse/html.js";
import type { ParsedPrice } from "./money.js";

/**
 * A record's identity across fetches: its name lowercased, without a leading article or a trailing "plan"/"tier" ("The
 * Pro plan", "Pro Plan" and "Pro" are one plan: a page that starts writing "plan" after its names renamed nothing).
 */
export function planKey(name: string): string {
  const key = collapse(name).toLowerCase();
  const bare = key.replace(/^(?:the|our)\s+/, "").replace(/\s+(?:plan|tier|package|edition|subscription)$/, "");
  return bare === "" ? key : bare;
}

/** What a record is beyond its price (plan, add-on, usage meter), and a promotion beside its list price. */
export interface Reading {
  kind: PriceKind;
  promoAmount: number | null;
}

const PLAIN: Reading = { kind: "plan", promoAmount: null };

/** A plan named "Free" (or "Free plan", "Free tier") is free whatever its price field says. */
const FREE_NAME_RE = /^free(?:\s+(?:plan|tier))?$/i;

export function makePlan(
  name: string,
  price: Pick<ParsedPrice, "amount" | "currency" | "period"> & { isFree?: boolean },
  origin: PricingPlan["origin"],
  features: string[],
  reading: Reading = PLAIN,
  more: { prices?: PriceOption[]; context?: string } = {},
): PricingPlan {
  const cleanName = collapse(name);
  return {
    key: planKey(cleanName),
    name: cleanName,
    amount: price.amount,
    currency: price.amount === null ? null : price.currency,
    period: price.amount === null ? null : price.period,
    is_free: price.isFree === true || price.amount === 0 || FREE_NAME_RE.test(cleanName),
    origin,
    features,
    // Written only when they say something, so a plain plan's stored shape is what it was before they existed.
    ...(reading.kind !== "plan" ? { kind: reading.kind } : {}),
    ...(reading.promoAmount !== null && price.amount !== null ? { promo_amount: reading.promoAmount } : {}),
    ...(more.prices && more.prices.length > 0 ? { prices: more.prices } : {}),
    ...(more.context ? { context: more.context } : {}),
  };
}

/** The prices of a record, the first being its `amount`: `prices` when it has them, else its one price. */
export function priceOptions(plan: PricingPlan): PriceOption[] {
  if (plan.prices && plan.prices.length > 0) return plan.prices;
  return [{ amount: plan.amount, currency: plan.currency, period: plan.period, billing: null }];
}
