/**
 * One priced record, however it was read (structured data in offers.ts, records, grids and context in index.ts): its
 * key, name and the free rule are the same, so a structured plan and a card of the same name are one plan.
 */
import type { BillingPeriod, PriceKind, PriceOption, PricingPlan } from "../../types.js";
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
  more: { prices?: PriceOption[]; context?: string; perSeat?: boolean } = {},
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
    ...(more.perSeat === true && price.amount !== null ? { per_seat: true } : {}),
  };
}

/** The prices of a record, the first being its `amount`: `prices` when it has them, else its one price. */
export function priceOptions(plan: PricingPlan): PriceOption[] {
  if (plan.prices && plan.prices.length > 0) return plan.prices;
  return [{ amount: plan.amount, currency: plan.currency, period: plan.period, billing: null }];
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing like with like (docs/real-pages.md#a-period-switch-is-not-a-price-change)

/** The cycle a price is charged on: how it is billed when the page says ("billed annually"), else its period. */
export function billingCycle(option: PriceOption): BillingPeriod | null {
  return option.billing ?? option.period;
}

/** The amount charged per billing cycle: "$8/month billed annually" is $96 a year. */
function perCycle(option: PriceOption): number | null {
  if (option.amount === null) return null;
  if (option.billing === "year" && option.period === "month") return option.amount * 12;
  return option.amount;
}

/** Two prices of one record in two fetches that can be compared: charged on the same cycle. */
export interface PricePair {
  before: PriceOption;
  after: PriceOption;
  /** Shown per the same period: compared exactly. Otherwise compared per billing cycle. */
  sameDisplay: boolean;
}

/**
 * The prices of a record in two fetches that say the same kind of thing, paired: same billing cycle and period first,
 * then same cycle, then a price whose cycle is not stated with one that is (when either side shows one price). A
 * monthly price is never compared with a yearly one: a page that switched from its monthly to its annual view changed
 * no price.
 */
export function pairPrices(before: PricingPlan, after: PricingPlan): PricePair[] {
  return pairOptions(
    priceOptions(before).filter((o) => o.amount !== null),
    priceOptions(after).filter((o) => o.amount !== null),
  );
}

function pairOptions(b: PriceOption[], a: PriceOption[]): PricePair[] {
  const used = new Set<PriceOption>();
  const pairs: PricePair[] = [];
  const take = (test: (x: PriceOption, y: PriceOption) => boolean) => {
    for (const x of b) {
      if (pairs.some((pair) => pair.before === x)) continue;
      const y = a.find((candidate) => !used.has(candidate) && test(x, candidate));
      if (!y) continue;
      used.add(y);
      pairs.push({ before: x, after: y, sameDisplay: x.period === y.period });
    }
  };
  take((x, y) => billingCycle(x) === billingCycle(y) && x.period === y.period);
  take((x, y) => billingCycle(x) !== null && billingCycle(x) === billingCycle(y));
  if (b.length === 1 || a.length === 1) take((x, y) => billingCycle(x) === null || billingCycle(y) === null);
  // A side that stopped (or started) saying per what its prices are ("$549/year · $49/month" → "$539 · $49", the
  // periods now only in a switch's labels): the same amounts pair first, the others in the order shown, so a price
  // that moved is told rather than taken as another view.
  const unstated = (o: PriceOption) => billingCycle(o) === null;
  if (pairs.length < Math.min(b.length, a.length) && (b.every(unstated) || a.every(unstated))) {
    take((x, y) => (unstated(x) || unstated(y)) && x.amount === y.amount);
    take((x, y) => unstated(x) || unstated(y));
  }
  return pairs;
}

/** A price's monthly equivalent, when it is per month or per year. */
function perMonth(option: PriceOption): number | null {
  if (option.amount === null) return null;
  if (option.period === "month") return option.amount;
  if (option.period === "year") return option.amount / 12;
  return null;
}

/**
 * Whether two prices per another period can be one price seen in a page's other view: the yearly one is at most
 * half off the monthly one a month ($49/month and $490/year can; $9.99/year and $49.99/month cannot).
 */
export function otherViewOfOnePrice(x: PriceOption, y: PriceOption): boolean {
  const mx = perMonth(x);
  const my = perMonth(y);
  if (mx === null || my === null || x.period === y.period) return false;
  const [low, high] = mx < my ? [mx, my] : [my, mx];
  return high === 0 || low / high >= 0.5;
}

/** The pair's amounts differ: exactly when shown per the same period, by more than rounding per billing cycle. */
export function pairDiffers(pair: PricePair): boolean {
  if (pair.sameDisplay) return pair.before.amount !== pair.after.amount;
  const x = perCycle(pair.before)!;
  const y = perCycle(pair.after)!;
  // "$8.33/month billed annually" is the page's rounding of $100 a year.
  return Math.abs(x - y) > Math.max(x, y) * 0.005;
}

/**
 * A pair as one price on each side, for telling the change: the prices as shown when shown per the same period,
 * else both per billing cycle ($96 a year for "$8/month billed annually").
 */
export function pairAsShown(pair: PricePair): [PriceOption, PriceOption] {
  if (pair.sameDisplay) return [pair.before, pair.after];
  const cycle = billingCycle(pair.before) ?? billingCycle(pair.after);
  const norm = (o: PriceOption): PriceOption => ({ ...o, amount: perCycle(o), period: cycle, billing: null });
  return [norm(pair.before), norm(pair.after)];
}

/** Same prices: every price of one matches a price of the other (the order they are shown in aside). */
export function samePriceList(before: PricingPlan, after: PricingPlan): boolean {
  const key = (o: PriceOption) => `${o.amount}|${o.currency?.toUpperCase() ?? ""}|${o.period}|${o.billing ?? ""}`;
  const b = priceOptions(before).map(key).sort();
  const a = priceOptions(after).map(key).sort();
  return b.length === a.length && b.every((k, i) => k === a[i]);
}

/**
 * Prices one fetch shows that the other does not, where the rest of them pair up: a billing option added beside the
 * prices that stayed ("$4 billed monthly" next to the "$3 billed annually" that was there), or one dropped. When
 * neither side's prices all pair up, the page switched the prices it shows (its monthly view for its annual one):
 * nothing was added or dropped.
 */
export function optionChanges(
  before: PricingPlan,
  after: PricingPlan,
): { added: PriceOption[]; dropped: PriceOption[] } {
  if (before.amount === null || after.amount === null) return { added: [], dropped: [] };
  const b = priceOptions(before).filter((o) => o.amount !== null);
  const a = priceOptions(after).filter((o) => o.amount !== null);
  const pairs = pairOptions(b, a);
  const unpairedBefore = b.filter((o) => !pairs.some((pair) => pair.before === o));
  const unpairedAfter = a.filter((o) => !pairs.some((pair) => pair.after === o));
  if (unpairedBefore.length > 0 && unpairedAfter.length > 0) return { added: [], dropped: [] };
  return { added: unpairedAfter, dropped: unpairedBefore };
}
