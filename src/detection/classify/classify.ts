/**
 * Diff → event drafts (the "classify" step). Deterministic rules (docs/product-rules.md#classification): every draft
 * names a change that is in the diff, with severity, confidence and evidence derived from it; nothing is guessed beyond
 * the wording rules below, and where a judgement is derived (a launch read from a title, a leadership hire, a "contact
 * sales" plan, a page rewrite) the draft is marked `is_inferred` and its reasoning says so.
 *
 * Output order is fixed (pricing by plan key, hiring opened then closed, product items newest first, narrative), and
 * every subject is unique within one call: events are unique per (diff, subject).
 */
import { createHash } from "node:crypto";
import { canonicalText } from "../diff/diff.js";
import {
  formatAmount,
  formatPercent,
  formatPlanPrice,
  formatPlanPrices,
  formatPriceOption,
  indefiniteArticle,
  joinList,
  periodSuffix,
  roundMoney,
  slug,
  truncate,
} from "./format.js";
import {
  optionChanges,
  otherViewOfOnePrice,
  pairAsShown,
  pairDiffers,
  pairPrices,
  priceOptions,
} from "../read/pricing/plan.js";
import type { PriceOption } from "../types.js";
import type {
  ClassifyContext,
  ContentItem,
  EventDraft,
  EvidenceDraft,
  JobPosting,
  NarrativeChange,
  PricingPlan,
  RecordChange,
  Severity,
  SnapshotDiff,
} from "../types.js";
import { maxSeverity } from "../../lib/severity.js";

/** Below this, a draft is marked inferred (docs/product-rules.md#classification: `is_inferred` below 0.7). */
const INFERRED_BELOW = 0.7;

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

const EVIDENCE_EXCERPT_MAX = 1000;

// ---------------------------------------------------------------------------------------------------------------
// Pricing
// ---------------------------------------------------------------------------------------------------------------

const PLAN_CONFIDENCE: Record<PricingPlan["origin"], number> = {
  jsonld: 0.95,
  card: 0.85,
  table: 0.8,
  token: 0.55,
  context: 0.5,
};

const PLAN_ORIGIN_REASON: Record<PricingPlan["origin"], string> = {
  jsonld:
    "the plan was read from the page's JSON-LD structured data (schema.org offers), the most reliable source of prices",
  card: "the plan was read from one of a set of repeated blocks on the page (a card, a column or a row), each with its name and its price",
  table: "the price was read from a comparison grid and named by the header of its column",
  context:
    "the price could not be tied to a named plan: it is named by where it stands on the page (its section's heading and the words before it), so what it belongs to is less certain",
  token:
    "the price was matched as a loose price token near the plan name, not from a pricing card or structured data, so it may belong to something else",
};

/** The weaker of two origins decides: a change is only as reliable as its least reliable reading. */
function weakerOrigin(a: PricingPlan["origin"], b: PricingPlan["origin"]): PricingPlan["origin"] {
  return PLAN_CONFIDENCE[a] <= PLAN_CONFIDENCE[b] ? a : b;
}

/**
 * How a record is named in a sentence: "Pro plan" ("Pro Plan" stays as it is rather than becoming "Pro Plan plan"),
 * "SSO add-on", "Bandwidth usage price".
 */
function planLabel(plan: Pick<PricingPlan, "name" | "kind" | "origin" | "context">): string {
  const { name } = plan;
  // A context price already named for a sentence (asNamed) drops its article after "its".
  if (plan.origin === "context")
    return (name.startsWith('the price "') ? name : contextName(plan)).replace(/^the /, "");
  if (plan.kind === "addon") return /\badd-?on$/i.test(name) ? name : `${name} add-on`;
  if (plan.kind === "usage") return `${name} usage price`;
  return /\bplan$/i.test(name) ? name : `${name} plan`;
}

/**
 * A price no plan could be named for, as a sentence names it: `the price "Extra seats" under "Add-ons"`
 * (docs/real-pages.md#a-price-change-is-never-silent).
 */
function contextName(plan: Pick<PricingPlan, "name" | "context">): string {
  return `the price "${plan.name}"${plan.context ? ` under "${plan.context}"` : ""}`;
}

/** The record as titles and summaries name it: a context price by where it stands, a plan by its name. */
function asNamed(plan: PricingPlan): PricingPlan {
  return plan.origin === "context" ? { ...plan, name: contextName(plan) } : plan;
}

/** An add-on's or usage meter's change weighs a step less than a plan's (docs/product-rules.md#classification). */
const STEP_DOWN: Record<Severity, Severity> = { critical: "high", high: "medium", medium: "low", low: "low" };

/** The state compared by flap damping: the compared fields only, features in canonical set order. */
function planState(plan: PricingPlan | null): string {
  if (plan === null) return "null";
  return JSON.stringify({
    key: plan.key,
    name: plan.name,
    amount: plan.amount,
    currency: plan.currency?.toUpperCase() ?? null,
    period: plan.period,
    is_free: plan.is_free,
    features: [...plan.features].map(canonicalText).sort(),
    // Only when they say something: a plain plan's state reads as it did before they existed.
    ...(plan.kind && plan.kind !== "plan" ? { kind: plan.kind } : {}),
    ...(plan.promo_amount != null ? { promo_amount: plan.promo_amount } : {}),
  });
}

function featureDelta(before: PricingPlan, after: PricingPlan): { added: string[]; removed: string[] } {
  const old = new Set(before.features.map(canonicalText));
  const current = new Set(after.features.map(canonicalText));
  return {
    added: after.features.filter((f) => !old.has(canonicalText(f))),
    removed: before.features.filter((f) => !current.has(canonicalText(f))),
  };
}

interface PricingJudgement {
  severity: Severity;
  title: string;
  summary: string;
  impact: string;
  tag: string;
  /** A derived judgement to disclose, if any. */
  inference?: string;
}

function judgeAddedPlan(company: string, plan: PricingPlan): PricingJudgement {
  const label = planLabel(plan);
  const price = formatPlanPrice(plan);
  const listed = plan.features.length > 0 ? `, listing ${plan.features.length} features` : "";
  return {
    // docs/product-rules.md#classification: a new plan is medium.
    severity: "medium",
    title: `${company} added ${indefiniteArticle(label)} ${label}`,
    summary:
      plan.amount === null
        ? `${company} now lists ${indefiniteArticle(label)} ${label} with no public price (contact sales)${listed}.`
        : `${company} now lists ${indefiniteArticle(label)} ${label} at ${price}${listed}.`,
    impact:
      plan.amount === null
        ? `${company} now sells ${plan.name} through sales conversations: expect it in larger deals and ask prospects what they were quoted.`
        : `${company} now sells ${plan.name} at ${price}: check how it compares with your equivalent tier before your next deal against them.`,
    tag: "plan-added",
  };
}

function judgeRemovedPlan(company: string, plan: PricingPlan): PricingJudgement {
  const label = planLabel(plan);
  if (plan.is_free) {
    return {
      // docs/product-rules.md#classification: a removed free tier is high.
      severity: "high",
      title: `${company} removed its ${label}`,
      summary: `${company} no longer lists its ${label}, the free tier it offered before.`,
      impact: `Without a free tier, ${company} loses its self-serve entry point: offer your free plan or trial to teams that would have started on ${company} ${plan.name}.`,
      tag: "free-tier-removed",
    };
  }
  return {
    severity: "medium",
    title: `${company} removed its ${label}`,
    summary: `${company} no longer lists its ${label}, previously ${formatPlanPrice(plan)}.`,
    impact: `${company} customers on ${plan.name} may be moved to another tier or a new price: a window to approach them with a migration offer.`,
    tag: "plan-removed",
  };
}

/** A plan that shows a number in this fetch. */
type PricedPlan = PricingPlan & { amount: number };

function isPriced(plan: PricingPlan): plan is PricedPlan {
  return plan.amount !== null;
}

/** ISO code uppercased, `null` when unknown. */
function upperCurrency(plan: PricingPlan): string | null {
  return plan.currency?.toUpperCase() ?? null;
}

/**
 * Decides what changed in a plan listed in both fetches, checking in a fixed order (free tier, then price, then
 * features) and reporting the first change found; null when nothing a reader would recognise changed.
 */
function judgeChangedPlan(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const [pb, pa] = alignedPrices(b, a);
  return (
    judgeFreeTierChange(company, pb, pa) ??
    judgePromotionChange(company, pb, pa) ??
    judgePriceChange(company, pb, pa) ??
    judgePeriodStated(company, b, a) ??
    judgeSeatChange(company, pb, pa) ??
    judgeOptionChange(company, b, a) ??
    judgeFeatureChange(company, b, a)
  );
}

const SEAT_NAME_RE = /\b(?:users?|seats?|members?|licen[cs]es?|agents?|editors?)\b/i;

/**
 * Decides whether a priced plan started or stopped being priced per user, seat or member at an unchanged amount
 * ("$10/month" → "$10/user/month"): what a team pays now grows with its size, or no longer does. Medium, a change of
 * the pricing model like a change of billing period. Null otherwise.
 */
function judgeSeatChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  if (!isPriced(b) || !isPriced(a) || (b.per_seat ?? false) === (a.per_seat ?? false)) return null;
  // A record that is a seat ("Additional user", "Extra seats") is priced per seat whether or not its line says so.
  if (SEAT_NAME_RE.test(a.name) || SEAT_NAME_RE.test(b.name)) return null;
  const name = a.name;
  const label = planLabel(a);
  const price = formatPlanPrice(a);
  return a.per_seat
    ? {
        severity: "medium",
        title: `${company} now prices ${name} per user (${price} each)`,
        summary: `${company}'s ${label} is now priced per user, seat or member: ${price} each, where it was ${formatPlanPrice(b)} for the whole account.`,
        impact: `Larger teams now pay ${company} more for ${name}: a flat or cheaper per-team price is a talking point with them.`,
        tag: "per-seat",
      }
    : {
        severity: "medium",
        title: `${company} no longer prices ${name} per user (${price})`,
        summary: `${company}'s ${label} is no longer priced per user, seat or member: ${price} for the account, where it was ${formatPlanPrice(b)} each.`,
        impact: `${company} ${name} now costs larger teams less: re-check your price comparison for teams of their size.`,
        tag: "per-seat",
      };
}

/**
 * Decides whether a billing option was added beside the prices that stayed, or dropped (plan.ts optionChanges): low,
 * since what was already offered did not change. Null otherwise.
 */
function judgeOptionChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const { added, dropped } = optionChanges(b, a);
  if (added.length === 0 && dropped.length === 0) return null;
  const label = planLabel(a);
  const shown = (options: PriceOption[]) => joinList(options.map(formatPriceOption));
  if (added.length > 0) {
    return {
      severity: "low",
      title: `${company} added a price option to ${a.name}: ${shown(added)}`,
      summary: `${company}'s ${label} now also shows ${shown(added)}, beside ${formatPlanPrice(b)}.`,
      impact: `${company} gives buyers of ${a.name} another way to pay: check whether your equivalent tier offers the same terms.`,
      tag: "price-option-added",
    };
  }
  return {
    severity: "low",
    title: `${company} dropped a price option of ${a.name}: ${shown(dropped)}`,
    summary: `${company}'s ${label} no longer shows ${shown(dropped)}; it still shows ${formatPlanPrice(a)}.`,
    impact: `Buyers of ${company} ${a.name} have one way less to pay: a talking point if your tier keeps it.`,
    tag: "price-option-dropped",
  };
}

/**
 * The two fetches' prices as one comparable price each (read/pricing/plan.ts pairPrices): the first pair on the same
 * billing cycle whose amounts differ, else the first pair. When no price is comparable (a monthly view switched to
 * the annual one) the price is taken as unchanged, unless its currency changed (€20/month → $238/year); one price at
 * the same number per another period ($49/month → $49/year) is the billing-terms change it is.
 */
function alignedPrices(b: PricingPlan, a: PricingPlan): [PricingPlan, PricingPlan] {
  if (b.amount === null || a.amount === null) return [b, a];
  const pairs = pairPrices(b, a);
  if (pairs.length === 0) {
    // One price each, at the same number per another period, or at numbers no switch of view explains ($9.99/year
    // → $49.99/month): a change of terms, told as one.
    const single =
      priceOptions(b).length === 1 &&
      priceOptions(a).length === 1 &&
      (b.amount === a.amount || !otherViewOfOnePrice(priceOptions(b)[0]!, priceOptions(a)[0]!));
    // A view switched shows the same prices in the same money: another currency is a change of terms, told as one.
    const otherMoney = b.currency !== null && a.currency !== null && upperCurrency(b) !== upperCurrency(a);
    return single || otherMoney ? [b, a] : [b, { ...a, amount: b.amount, currency: b.currency, period: b.period }];
  }
  const [x, y] = pairAsShown(pairs.find(pairDiffers) ?? pairs[0]!);
  return [
    { ...b, amount: x.amount, currency: x.currency, period: x.period },
    { ...a, amount: y.amount, currency: y.currency, period: y.period },
  ];
}

/** The list price is shown: no promotion, or a promotional price beside a different list price. */
function listShown(plan: PricingPlan): boolean {
  return plan.promo_amount == null || plan.promo_amount !== plan.amount;
}

/**
 * Decides whether a promotion started, changed or ended (docs/product-rules.md#classification: low, and not a
 * price change); null when it did not, or when the list price moved too (that is told as the price change it is).
 */
function judgePromotionChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const before = b.promo_amount ?? null;
  const after = a.promo_amount ?? null;
  if (before === after) return null;
  // A struck "list" price appearing over an unchanged price is a promotion starting, not a raise to the list price:
  // what a buyer pays did not move.
  const startedOverSamePrice =
    before === null && after !== null && b.amount !== null && roundMoney(b.amount) === roundMoney(after);
  if (!startedOverSamePrice && listShown(b) && listShown(a) && b.amount !== null && a.amount !== null) {
    if (roundMoney(b.amount) !== roundMoney(a.amount)) return null;
  }
  const name = a.name;
  const label = planLabel(a);
  const currency = upperCurrency(a) ?? upperCurrency(b);
  const suffix = periodSuffix(a.period ?? b.period);
  const money = (amount: number) => `${formatAmount(amount, currency)}${suffix}`;
  if (before === null) {
    const list = listShown(a) && a.amount !== null ? ` (list price ${money(a.amount)})` : "";
    return {
      severity: "low",
      title: `${company} started a promotion on ${name}: ${money(after!)}`,
      summary: `${company}'s ${label} is on promotion at ${money(after!)}${list}.`,
      impact: `${company} is discounting ${name} for now: prospects may quote the promotional price; ask when it ends and price against the list price.`,
      tag: "promotion-started",
    };
  }
  if (after === null) {
    return {
      severity: "low",
      title: `${company} ended its promotion on ${name}`,
      summary: `${company}'s ${label} is back to ${formatPlanPrice(a)}; the promotion at ${money(before)} is over.`,
      impact: `Prospects who saw ${company}'s promotional price on ${name} now face ${formatPlanPrice(a)}: a moment to compare your price with theirs.`,
      tag: "promotion-ended",
    };
  }
  return {
    severity: "low",
    title: `${company} changed its promotion on ${name} from ${money(before)} to ${money(after)}`,
    summary: `${company}'s ${label} is now on promotion at ${money(after)}, where it was ${money(before)}.`,
    impact: `${company} adjusted its discount on ${name}: prospects may quote the new promotional price of ${money(after)}.`,
    tag: "promotion-changed",
  };
}

/** Decides whether the plan stopped or started being free; null when `is_free` is the same in both fetches. */
function judgeFreeTierChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const name = a.name;
  const label = planLabel(a);
  if (b.is_free && !a.is_free) {
    const now = formatPlanPrice(a);
    return {
      // docs/product-rules.md#classification counts a plan whose is_free went true → false as a removed free tier.
      severity: "high",
      title: `${company} started charging for its ${label} (now ${now})`,
      summary: `${company}'s ${label} is no longer free: it is now ${now}.`,
      impact: `Without a free tier, ${company} loses its self-serve entry point: offer your free plan or trial to teams that would have started on ${company} ${name}.`,
      tag: "free-tier-removed",
    };
  }
  if (!b.is_free && a.is_free) {
    const was = formatPlanPrice(b);
    return {
      // A price cut to zero: ≥ 20 % down, so medium like any large cut.
      severity: "medium",
      title: `${company} made its ${label} free (was ${was})`,
      summary: `${company}'s ${label} is now free; it was ${was}.`,
      impact: `${company} now gives ${name} away: expect prospects to ask why they should pay for your equivalent tier, and lead with what the free plan lacks.`,
      tag: "now-free",
    };
  }
  return null;
}

/**
 * Decides whether the price changed, once the free tier did not: hidden or published first, then (both priced)
 * billing terms, then the amount. Null when the plan is free in both fetches or its price did not move.
 */
function judgePriceChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  // Both free: "$0" becoming "Free" (or back) is how the card is written, not a price change.
  if (b.is_free && a.is_free) return null;
  const visibility = judgePriceVisibilityChange(company, b, a);
  if (visibility !== null) return visibility;
  if (isPriced(b) && isPriced(a)) return judgeBillingTermsChange(company, b, a) ?? judgeAmountChange(company, b, a);
  return null;
}

/** Decides whether the price was hidden ("contact sales") or published; null when it is shown in both or neither. */
function judgePriceVisibilityChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const name = a.name;
  const label = planLabel(a);
  if (b.amount !== null && a.amount === null) {
    const was = formatPlanPrice(b);
    return {
      severity: "medium",
      title: `${company} moved ${name} to contact sales (was ${was})`,
      summary: `${company}'s ${label} no longer shows a price; it was ${was}.`,
      impact: `Prospects must now talk to ${company}'s sales team to price ${name}: your published pricing is a talking point, and ask prospects what they were quoted.`,
      tag: "contact-sales",
      inference: `that the plan moved to "contact sales" is inferred from its price no longer being shown`,
    };
  }
  if (b.amount === null && a.amount !== null) {
    const now = formatPlanPrice(a);
    return {
      severity: "medium",
      title: `${company} published a price for ${name}: ${now}`,
      summary: `${company}'s ${label} now shows a price of ${now}; before, it showed none.`,
      impact: `Prospects can now compare ${company} ${name} with you on price (${now}): check your equivalent tier against it.`,
      tag: "price-published",
    };
  }
  return null;
}

/** Decides whether a priced plan switched billing period or currency; null when both are the same or unknown. */
function judgeBillingTermsChange(company: string, b: PricedPlan, a: PricedPlan): PricingJudgement | null {
  const name = a.name;
  const label = planLabel(a);
  const bCurrency = upperCurrency(b);
  const aCurrency = upperCurrency(a);
  const currencyChanged = bCurrency !== null && aCurrency !== null && bCurrency !== aCurrency;
  const periodChanged = b.period !== null && a.period !== null && b.period !== a.period;
  if (!currencyChanged && !periodChanged) return null;
  const was = formatPlanPrice(b);
  const now = formatPlanPrice(a);
  return {
    // docs/product-rules.md#classification: a billing period change is medium. A currency switch is priced like
    // one: amounts are not comparable across either, so no increase/decrease is claimed.
    severity: "medium",
    title: `${company} changed ${name} from ${was} to ${now}`,
    summary: `${company}'s ${label} went from ${was} to ${now}${periodChanged ? ", a different billing period" : ", a different currency"}.`,
    impact: periodChanged
      ? `${company} now bills ${name} ${a.period === "year" ? "yearly" : a.period === "month" ? "monthly" : "once"}: buyers who wanted the old terms may be open to yours; re-check your side-by-side comparison.`
      : `${company} now prices ${name} in ${aCurrency}: re-check your price comparison for buyers in that market.`,
    tag: periodChanged ? "billing-period" : "currency",
  };
}

/**
 * Decides whether the price, at the same amount, now says per what period it is billed or stopped saying it ("€5" →
 * "€5/month": the page clarified that it is per month, not once); null when neither.
 */
function judgePeriodStated(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  // One price each, as the page shows it (a plan with several, a monthly and a yearly price, says its periods), and a
  // record's own: a price read by its context gains or loses its sentence's period with how the sentence is cut.
  if (!isPriced(b) || !isPriced(a) || b.is_free || a.is_free || a.origin === "context" || b.origin === "context")
    return null;
  if (priceOptions(b).length !== 1 || priceOptions(a).length !== 1) return null;
  if ((b.period === null) === (a.period === null) || roundMoney(a.amount) !== roundMoney(b.amount)) return null;
  const label = planLabel(a);
  const was = formatPlanPrice(b);
  const now = formatPlanPrice(a);
  const period = a.period ?? b.period;
  const per = period === "year" ? "per year" : period === "month" ? "per month" : "as paid once";
  return {
    // docs/product-rules.md#classification: the same amount with its period said or unsaid is low.
    severity: "low",
    title:
      a.period !== null
        ? `${company} now states ${a.name}'s price ${per}: ${now}`
        : `${company} no longer states ${a.name}'s price ${per}: ${now}`,
    summary: `${company}'s ${label} now reads ${now}; it read ${was}.`,
    impact: `The amount is the same, but how often it is charged is ${a.period !== null ? "now said" : "no longer said"}: check your side-by-side comparison states ${company}'s ${a.name} on the same terms as yours.`,
    tag: "billing-period",
  };
}

/**
 * Decides whether a priced plan, on the same billing terms, was raised or cut, and how severely by the relative
 * change; null when the amount is the same once rounded.
 */
function judgeAmountChange(company: string, b: PricedPlan, a: PricedPlan): PricingJudgement | null {
  if (roundMoney(a.amount) === roundMoney(b.amount)) return null;
  const name = a.name;
  const label = planLabel(a);
  // Either side's currency may be unknown; show both amounts in the one that is known.
  const currency = upperCurrency(a) ?? upperCurrency(b);
  const suffix = periodSuffix(a.period ?? b.period);
  const from = formatAmount(b.amount, currency);
  const to = formatAmount(a.amount, currency);
  const delta = `${formatAmount(Math.abs(a.amount - b.amount), currency)}${suffix}`;
  const change = b.amount === 0 ? Infinity : (a.amount - b.amount) / b.amount;
  // Rounded so 50 → 60 is exactly 20 % despite float arithmetic.
  const magnitude = Math.round(Math.abs(change) * 1e6) / 1e6;
  const pct = Number.isFinite(magnitude) ? ` (${change > 0 ? "+" : "−"}${formatPercent(magnitude)})` : "";
  if (change > 0) {
    return {
      // docs/product-rules.md#classification: increase ≥ 20 % high, ≥ 5 % medium, else low.
      severity: magnitude >= 0.2 ? "high" : magnitude >= 0.05 ? "medium" : "low",
      title: `${company} raised ${name} from ${from} to ${to}${suffix}`,
      summary: `${company}'s ${label} now costs ${to}${suffix}, up from ${from}${suffix}${pct}.`,
      impact: `Prospects comparing on price now see a ${delta} gap in your favour on the ${name} tier.`,
      tag: "price-increase",
    };
  }
  return {
    // docs/product-rules.md#classification: a decrease ≥ 20 % is medium, else low.
    severity: magnitude >= 0.2 ? "medium" : "low",
    title: `${company} cut ${name} from ${from} to ${to}${suffix}`,
    summary: `${company}'s ${label} now costs ${to}${suffix}, down from ${from}${suffix}${pct}.`,
    impact: `${company}'s ${name} tier is now ${delta} cheaper: expect prospects to bring the new price into negotiations, and refresh your price comparison against that tier.`,
    tag: "price-decrease",
  };
}

/** Decides whether the plan's feature list gained or lost lines; null when it did not (nothing else is left). */
function judgeFeatureChange(company: string, b: PricingPlan, a: PricingPlan): PricingJudgement | null {
  const features = featureDelta(b, a);
  if (features.added.length > 0 || features.removed.length > 0) {
    const label = planLabel(a);
    return {
      severity: "low",
      title: `${company} changed what the ${label} includes`,
      summary: `${company}'s ${label} (${formatPlanPrice(a)}) ${featureSentence(features)}.`,
      impact: `What ${company} bundles in ${a.name} changed: update the feature comparison for that tier in your battlecard.`,
      tag: "features",
    };
  }
  // Left: a name whose case changed (the key is the lowercased name), a currency that became known or unknown without
  // the amount moving, or a period so on a price read by its context. None is a change a reader would recognise.
  return null;
}

function featureSentence(features: { added: string[]; removed: string[] }): string {
  const quote = (list: string[]) => joinList(list.slice(0, 5).map((f) => `"${truncate(f, 80)}"`));
  const more = (list: string[]) => (list.length > 5 ? ` and ${list.length - 5} more` : "");
  const parts: string[] = [];
  if (features.added.length > 0) parts.push(`now lists ${quote(features.added)}${more(features.added)}`);
  if (features.removed.length > 0) parts.push(`no longer lists ${quote(features.removed)}${more(features.removed)}`);
  return parts.join(" and ");
}

function pricingEvidence(change: RecordChange<PricingPlan>, context: ClassifyContext): EvidenceDraft[] {
  const plan = (change.after ?? change.before)!;
  const label = planLabel(plan);
  if (change.kind === "added") {
    const features = plan.features.length > 0 ? ` · Features: ${plan.features.join("; ")}` : "";
    return [
      {
        evidence_type: "record",
        title: label,
        excerpt: truncate(`${formatPlanPrice(plan)}${features}`, EVIDENCE_EXCERPT_MAX),
        metadata: { plan: plan.name, before: null, after: plan, url: context.sourceUrl },
      },
    ];
  }
  const before = change.before!;
  const after = change.after;
  const evidence: EvidenceDraft[] = [
    {
      evidence_type: "before_after",
      title: `${label} price`,
      excerpt: `Before: ${formatPlanPrices(before)} · After: ${after ? formatPlanPrices(after) : "no longer listed"}`,
      metadata: { plan: plan.name, before, after, url: context.sourceUrl },
    },
  ];
  if (after) {
    const features = featureDelta(before, after);
    if (features.added.length > 0 || features.removed.length > 0) {
      const parts = [
        features.added.length > 0 ? `Added: ${features.added.join("; ")}` : null,
        features.removed.length > 0 ? `Removed: ${features.removed.join("; ")}` : null,
      ].filter((p): p is string => p !== null);
      evidence.push({
        evidence_type: "before_after",
        title: `${label} features`,
        excerpt: truncate(parts.join(" · "), EVIDENCE_EXCERPT_MAX),
        metadata: {
          plan: plan.name,
          before: before.features,
          after: after.features,
          added: features.added,
          removed: features.removed,
        },
      });
    }
  }
  return evidence;
}

function pricingEvent(change: RecordChange<PricingPlan>, context: ClassifyContext): EventDraft | null {
  const company = context.competitorName;
  const judgement =
    change.kind === "added"
      ? judgeAddedPlan(company, asNamed(change.after!))
      : change.kind === "removed"
        ? judgeRemovedPlan(company, asNamed(change.before!))
        : judgeChangedPlan(company, asNamed(change.before!), asNamed(change.after!));
  if (judgement === null) return null;

  const origin =
    change.kind === "changed"
      ? weakerOrigin(change.before!.origin, change.after!.origin)
      : (change.after ?? change.before)!.origin;
  const confidence = PLAN_CONFIDENCE[origin];
  const reasons = [
    `${capitalise(PLAN_ORIGIN_REASON[origin])}${change.kind === "changed" && change.before!.origin !== change.after!.origin ? " (the weaker of the two fetches' readings)" : ""}.`,
  ];
  if (confidence < INFERRED_BELOW)
    reasons.push(`Confidence ${confidence} is below ${INFERRED_BELOW}: marked inferred.`);
  if (judgement.inference) reasons.push(`${capitalise(judgement.inference)}: marked inferred.`);
  const plan = (change.after ?? change.before)!;
  const kind = plan.kind ?? "plan";
  return {
    event_type: "pricing_change",
    severity: kind === "plan" ? judgement.severity : STEP_DOWN[judgement.severity],
    title: judgement.title,
    summary: `${judgement.summary}${featuresAlongside(change, judgement)}`,
    impact_summary: judgement.impact,
    confidence_score: confidence,
    confidence_reasoning: reasons.join(" "),
    is_inferred: confidence < INFERRED_BELOW || judgement.inference !== undefined,
    tags: [
      "pricing",
      judgement.tag,
      ...(kind === "plan" ? [] : [kind === "addon" ? "add-on" : "usage"]),
      slug(plan.key),
    ].filter(Boolean),
    evidence: pricingEvidence(change, context),
    subject: `pricing:plan:${change.key}`,
    before_state: planState(change.before),
    after_state: planState(change.after),
  };
}

/**
 * Plans renamed at the same prices (docs/real-pages.md#renames-at-the-same-price): one low event for all of them, never
 * a removed plan and an added one. A price read by its context that moved to another context is no event at all.
 */
function renameEvent(changes: RecordChange<PricingPlan>[], context: ClassifyContext): EventDraft | null {
  if (changes.length === 0) return null;
  const company = context.competitorName;
  const sorted = [...changes].sort((a, b) => compare(a.key, b.key));
  const pairs = sorted.map((change) => `${change.before!.name} → ${change.after!.name}`);
  const prices = sorted.map((change) => `${change.after!.name} (${formatPlanPrice(change.after!)})`);
  const origin = sorted
    .map((change) => weakerOrigin(change.before!.origin, change.after!.origin))
    .reduce((a, b) => weakerOrigin(a, b));
  const confidence = PLAN_CONFIDENCE[origin];
  return {
    event_type: "pricing_change",
    severity: "low",
    title:
      sorted.length === 1
        ? `${company} renamed its ${sorted[0]!.before!.name} plan to ${sorted[0]!.after!.name} at the same price`
        : `${company} renamed ${sorted.length} plans at the same prices`,
    summary: `${company} renamed ${joinList(pairs)}; the prices stayed the same: ${joinList(prices)}.`,
    impact_summary: `${company} repositioned its tiers without changing their prices: update the plan names in your battlecard and comparison pages.`,
    confidence_score: confidence,
    confidence_reasoning: `${capitalise(PLAN_ORIGIN_REASON[origin])}. A record that disappeared and one that appeared with exactly the same prices are one plan renamed.`,
    is_inferred: true,
    tags: ["pricing", "plan-renamed"],
    evidence: sorted.map((change) => ({
      evidence_type: "before_after" as const,
      title: `${change.before!.name} → ${change.after!.name}`,
      excerpt: `Before: ${change.before!.name}, ${formatPlanPrice(change.before!)} · After: ${change.after!.name}, ${formatPlanPrice(change.after!)}`,
      metadata: { before: change.before, after: change.after, url: context.sourceUrl },
    })),
    subject: `pricing:renamed:${sorted.map((change) => change.before!.key).join("+")}`,
    before_state: JSON.stringify(sorted.map((change) => change.before!.name)),
    after_state: JSON.stringify(sorted.map((change) => change.after!.name)),
  };
}

/** Feature changes that came with a price change are told in the same event (one event per plan change). */
function featuresAlongside(change: RecordChange<PricingPlan>, judgement: PricingJudgement): string {
  if (change.kind !== "changed" || judgement.tag === "features") return "";
  const features = featureDelta(change.before!, change.after!);
  if (features.added.length === 0 && features.removed.length === 0) return "";
  return ` The plan also ${featureSentence(features)}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------------------------------
// Hiring
// ---------------------------------------------------------------------------------------------------------------

const JOB_CONFIDENCE: Record<JobPosting["origin"], number> = { jsonld: 0.95, list: 0.8 };

// The leadership markers of docs/product-rules.md#classification: VP, Head of, Director, Chief, C?O (CEO, CTO, CRO…).
const LEADERSHIP_TITLE = /\bVP\b|\bvice[- ]president\b|\bhead of\b|\bdirector\b|\bchief\b/i;
const C_LEVEL_TITLE = /\bC[A-Z]O\b/;

function isLeadership(title: string): boolean {
  return LEADERSHIP_TITLE.test(title) || C_LEVEL_TITLE.test(title);
}

function sortJobs(jobs: JobPosting[]): JobPosting[] {
  return [...jobs].sort((a, b) => compare(a.title, b.title) || compare(a.key, b.key));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The department all jobs share, as a reader writes it ("engineering", but "R&D" and "AI" keep their case). */
function sharedDepartment(jobs: JobPosting[]): string | null {
  const departments = new Set(jobs.map((j) => (j.department ? j.department.trim().toLowerCase() : null)));
  if (departments.size !== 1) return null;
  const department = jobs[0]!.department?.trim() ?? "";
  if (department === "") return null;
  return /^[A-Z0-9&/ -]{2,}$/.test(department) && /[A-Z]/.test(department) ? department : department.toLowerCase();
}

function jobLine(job: JobPosting): string {
  return job.location ? `${job.title} (${job.location})` : job.title;
}

function jobListSentence(jobs: JobPosting[]): string {
  const shown = jobs.slice(0, 10).map(jobLine);
  if (jobs.length > 10) return `${shown.join(", ")} and ${jobs.length - 10} more`;
  return joinList(shown);
}

function jobState(jobs: JobPosting[]): string {
  return JSON.stringify(
    [...jobs]
      .sort((a, b) => compare(a.key, b.key))
      .map((j) => ({ key: j.key, title: j.title, location: j.location, department: j.department })),
  );
}

function jobTags(kind: string, jobs: JobPosting[], leadership: boolean): string[] {
  const values = new Set<string>();
  for (const job of jobs) {
    for (const value of [job.department, job.location]) {
      const tag = value?.trim().toLowerCase();
      if (tag) values.add(tag);
    }
  }
  return ["hiring", kind, ...(leadership ? ["leadership"] : []), ...[...values].sort(compare)];
}

function jobEvidence(jobs: JobPosting[]): EvidenceDraft[] {
  return jobs.slice(0, 20).map((job) => ({
    evidence_type: "record" as const,
    title: job.title,
    excerpt: [job.title, job.location, job.department].filter(Boolean).join(" · "),
    metadata: { key: job.key, title: job.title, location: job.location, department: job.department, url: job.url },
  }));
}

function jobConfidence(jobs: JobPosting[]): { score: number; reason: string } {
  const origins = new Set(jobs.map((j) => j.origin));
  const score = Math.min(...jobs.map((j) => JOB_CONFIDENCE[j.origin]));
  const reason = !origins.has("list")
    ? "The postings were read from JSON-LD JobPosting data, which names each role explicitly."
    : origins.has("jsonld")
      ? "Some postings were read from the page's job list (titles and links) rather than JSON-LD JobPosting data; the weaker reading decides."
      : "The postings were read from the page's job list (titles and links), without JobPosting structured data.";
  return { score, reason };
}

function hiringImpact(company: string, department: string | null): string {
  const dept = department?.toLowerCase() ?? "";
  if (/engineer|product|design|r&d|research|data|\bai\b|\bml\b/.test(dept)) {
    return `${company} is adding ${department} capacity: expect faster releases, and make sure your reps can speak to your own roadmap in competitive deals.`;
  }
  if (/sales|marketing|growth|business development|partnership/.test(dept)) {
    return `${company} is growing ${department}: expect more outbound and competing demos in your accounts; warn your reps and protect renewals.`;
  }
  if (/support|success|customer|service/.test(dept)) {
    return `${company} is investing in ${department}: expect them to lean on service quality in deals; have your own support story ready.`;
  }
  return `Hiring shows where ${company} is investing: watch what these roles build or sell next and brief your team on the areas they cover.`;
}

function openedJobsEvent(jobs: JobPosting[], context: ClassifyContext): EventDraft {
  const company = context.competitorName;
  const sorted = sortJobs(jobs);
  const count = sorted.length;
  const department = sharedDepartment(sorted);
  const leaders = sorted.filter((j) => isLeadership(j.title));
  // docs/product-rules.md#classification: 1 → low, 2–4 → medium, ≥ 5 → high; a leadership title bumps one level (max
  // high).
  const base: Severity = count >= 5 ? "high" : count >= 2 ? "medium" : "low";
  const bumped = leaders.length > 0 && base !== "high";
  const severity: Severity = bumped ? (base === "low" ? "medium" : "high") : base;
  const only = sorted[0]!;
  const title =
    count === 1
      ? `${company} opened ${indefiniteArticle(only.title)} ${only.title} role`
      : `${company} opened ${count} ${department ? `${department} ` : ""}roles`;
  const leadershipNote = leaders.length > 0 ? ` Leadership: ${joinList(leaders.slice(0, 5).map((j) => j.title))}.` : "";
  const summary =
    count === 1
      ? `${company} posted a new job opening: ${jobLine(only)}.${leadershipNote}`
      : `${company} posted ${count} new job openings: ${jobListSentence(sorted)}.${leadershipNote}`;
  const leadershipImpact =
    leaders.length > 0
      ? `A new leadership hire (${truncate(leaders[0]!.title, 80)}) often precedes a change of strategy in that function. `
      : "";
  const confidence = jobConfidence(sorted);
  const reasons = [confidence.reason];
  if (bumped) {
    reasons.push(
      `Severity was raised one level because ${leaders.length === 1 ? "a title reads" : "titles read"} as leadership (${joinList(leaders.slice(0, 3).map((j) => `"${j.title}"`))}): a judgement from wording, so marked inferred.`,
    );
  }
  return {
    event_type: "hiring_change",
    severity,
    title,
    summary,
    impact_summary: `${leadershipImpact}${hiringImpact(company, department)}`,
    confidence_score: confidence.score,
    confidence_reasoning: reasons.join(" "),
    is_inferred: confidence.score < INFERRED_BELOW || bumped,
    tags: jobTags("roles-opened", sorted, leaders.length > 0),
    evidence: jobEvidence(sorted),
    subject: `hiring:opened:${shortHash(
      sorted
        .map((j) => j.key)
        .sort(compare)
        .join("\n"),
    )}`,
    before_state: "null",
    after_state: jobState(sorted),
  };
}

function closedJobsEvent(jobs: JobPosting[], context: ClassifyContext): EventDraft {
  const company = context.competitorName;
  const sorted = sortJobs(jobs);
  const count = sorted.length;
  const department = sharedDepartment(sorted);
  const only = sorted[0]!;
  const confidence = jobConfidence(sorted);
  return {
    event_type: "hiring_change",
    // docs/product-rules.md#classification: closed roles are low, ≥ 5 closed medium.
    severity: count >= 5 ? "medium" : "low",
    title:
      count === 1
        ? `${company} closed its ${only.title} role`
        : `${company} closed ${count} ${department ? `${department} ` : ""}roles`,
    summary:
      count === 1
        ? `${company} no longer lists the ${jobLine(only)} opening.`
        : `${company} no longer lists ${count} job openings: ${jobListSentence(sorted)}.`,
    impact_summary: `Closed postings usually mean roles were filled or hiring was paused; if ${company} paused, it may be slowing down in that area, which is worth probing in deals.`,
    confidence_score: confidence.score,
    confidence_reasoning: `${confidence.reason} The postings were on the previous fetch and are gone from this one.`,
    is_inferred: confidence.score < INFERRED_BELOW,
    tags: jobTags("roles-closed", sorted, false),
    evidence: jobEvidence(sorted),
    subject: `hiring:closed:${shortHash(
      sorted
        .map((j) => j.key)
        .sort(compare)
        .join("\n"),
    )}`,
    before_state: jobState(sorted),
    after_state: "null",
  };
}

function hiringEvents(changes: RecordChange<JobPosting>[], context: ClassifyContext): EventDraft[] {
  // Retitled or moved postings (`changed`) make no event: docs/product-rules.md#classification defines events for
  // opened and closed roles only.
  const opened = changes.filter((c) => c.kind === "added").map((c) => c.after!);
  const closed = changes.filter((c) => c.kind === "removed").map((c) => c.before!);
  const events: EventDraft[] = [];
  if (opened.length > 0) events.push(openedJobsEvent(opened, context));
  if (closed.length > 0) events.push(closedJobsEvent(closed, context));
  return events;
}

// ---------------------------------------------------------------------------------------------------------------
// Product
// ---------------------------------------------------------------------------------------------------------------

const PRODUCT_SOURCES = new Set(["changelog", "docs", "blog", "rss", "press", "news"]);
const ITEMS_MAX_EVENTS = 10;
const ITEM_CONFIDENCE = 0.9;

// The launch wording of docs/product-rules.md#classification:
// launch|introducing|announcing|now available|new:|general availability|GA|beta|v\d+(\.\d+)?
const LAUNCH_WORDING =
  /\b(?:launch(?:es|ed|ing)?|introduc(?:ing|es|e)|announc(?:ing|es|e)|now available|general availability|beta)\b|\bnew:|\bv\d+(?:\.\d+)?\b/i;
// Upper case only: "ga" in lower case is not a release stage.
const GA_WORDING = /\bGA\b/;

function launchWording(title: string): string | null {
  return LAUNCH_WORDING.exec(title)?.[0] ?? GA_WORDING.exec(title)?.[0] ?? null;
}

function itemState(items: ContentItem[]): string {
  const project = (i: ContentItem) => ({ key: i.key, title: i.title, date: i.date, url: i.url });
  return JSON.stringify(items.length === 1 ? project(items[0]!) : items.map(project));
}

/** Newest first (undated last), then by key: the newest entries get their own events when there are many. */
function sortItems(items: ContentItem[]): ContentItem[] {
  return [...items].sort((a, b) => {
    if (a.date !== b.date) {
      if (a.date === null) return 1;
      if (b.date === null) return -1;
      return compare(b.date, a.date);
    }
    return compare(a.key, b.key);
  });
}

function itemEvidence(item: ContentItem, context: ClassifyContext): EvidenceDraft {
  return {
    evidence_type: "record",
    title: item.title,
    excerpt: truncate(item.summary ?? item.title, EVIDENCE_EXCERPT_MAX),
    metadata: { key: item.key, url: item.url ?? context.sourceUrl, date: item.date, source_url: context.sourceUrl },
  };
}

function productEvent(item: ContentItem, rest: ContentItem[], context: ClassifyContext): EventDraft {
  const company = context.competitorName;
  const shipped = context.sourceType === "changelog";
  const verb = shipped ? "shipped" : "published";
  const covered = [item, ...rest];
  const launches = covered.map((i) => ({ item: i, wording: launchWording(i.title) })).filter((l) => l.wording);
  const severity: Severity = launches.length > 0 ? "medium" : "low";
  const itemTitle = truncate(item.title, 150);
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
  const dated = item.date ? ` dated ${item.date.slice(0, 10)}` : "";
  const gist = item.summary ? truncate(item.summary, 200) : "";
  const excerpt = gist === "" ? "." : `: ${gist}${/[.!?…]$/.test(gist) ? "" : "."}`;
  const restSentence =
    rest.length > 0
      ? ` Also new: ${joinList(rest.slice(0, 10).map((i) => `"${truncate(i.title, 80)}"`))}${rest.length > 10 ? ` and ${rest.length - 10} more` : ""}.`
      : "";
  const impact =
    launches.length > 0
      ? `${company}'s sales team will pitch "${truncate(launches[0]!.item.title, 100)}": check whether it closes a gap you sell against, and update the battlecard before prospects ask.`
      : shipped
        ? `A smaller ${company} update: note it in the battlecard if it touches a feature you compete on.`
        : `${company} is publicly talking about "${itemTitle}": be ready if prospects raise it.`;
  const reasons = [
    `The entry was read as a distinct item (own title${item.url ? " and link" : ""}) from the ${context.sourceType} source and was not in the previous fetch.`,
  ];
  if (launches.length > 0) {
    reasons.push(
      `Severity medium because the wording ${joinList(launches.slice(0, 3).map((l) => `"${l.wording}"`))} suggests a launch: inferred from the title, so marked inferred.`,
    );
  }
  return {
    event_type: "product_change",
    severity,
    title: `${company} ${verb}: ${itemTitle}${more}`,
    summary: `New ${context.sourceType} entry "${itemTitle}"${dated}${excerpt}${restSentence}`,
    impact_summary: impact,
    confidence_score: ITEM_CONFIDENCE,
    confidence_reasoning: reasons.join(" "),
    is_inferred: launches.length > 0,
    tags: ["product", context.sourceType, ...(launches.length > 0 ? ["launch"] : [])],
    evidence: covered.slice(0, 20).map((i) => itemEvidence(i, context)),
    subject: `product:item:${item.key}`,
    before_state: "null",
    after_state: itemState(covered),
    published_at: publicationInstant(item.date),
  };
}

/**
 * An item's date as the instant it was published: a feed's timestamp as stated; a page's calendar day (no time of
 * day, no zone) as 00:00 UTC of that day, the earliest it can have been, so the hero stat never flatters detection
 * (docs/product-rules.md#public-stats).
 */
export function publicationInstant(date: string | null): string | null {
  if (!date) return null;
  const instant = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date);
  return Number.isFinite(instant) ? new Date(instant).toISOString() : null;
}

function productEvents(changes: RecordChange<ContentItem>[], context: ClassifyContext): EventDraft[] {
  // Only feeds of news about the product count; removed items are pages paginating, not retractions
  // (docs/product-rules.md#classification).
  if (!PRODUCT_SOURCES.has(context.sourceType)) return [];
  const added = sortItems(changes.filter((c) => c.kind === "added").map((c) => c.after!));
  const events: EventDraft[] = [];
  for (let i = 0; i < added.length && i < ITEMS_MAX_EVENTS; i++) {
    // docs/product-rules.md#classification: at most 10 events per diff; the last one also summarises the rest.
    const rest = i === ITEMS_MAX_EVENTS - 1 ? added.slice(ITEMS_MAX_EVENTS) : [];
    events.push(productEvent(added[i]!, rest, context));
  }
  return events;
}

// ---------------------------------------------------------------------------------------------------------------
// Narrative
// ---------------------------------------------------------------------------------------------------------------

const NARRATIVE_SOURCES = new Set(["homepage", "pricing", "other"]);
/**
 * docs/product-rules.md#classification: text-only rewrites at or above this share of words are a (low) narrative
 * change.
 */
const REWRITE_RATIO = 0.15;
const TEXT_ONLY_CONFIDENCE = 0.6;

type NarrativeField = NarrativeChange["field"];

interface FieldRule {
  severity: Severity;
  confidence: number;
  /** The field on its own ("the page title changed too"). */
  label: string;
  /** The field after the page's name ("its homepage title"). */
  pageLabel: string;
  tag: string;
}

// docs/product-rules.md#classification: h1 or hero → medium, title → low, meta description → low; confidence h1/title
// 0.85, hero 0.75.
const FIELD_RULES: Record<NarrativeField, FieldRule> = {
  h1: { severity: "medium", confidence: 0.85, label: "headline", pageLabel: "headline", tag: "headline" },
  hero: { severity: "medium", confidence: 0.75, label: "hero copy", pageLabel: "hero copy", tag: "hero" },
  title: { severity: "low", confidence: 0.85, label: "page title", pageLabel: "title", tag: "page-title" },
  meta_description: {
    severity: "low",
    confidence: 0.85,
    label: "meta description",
    pageLabel: "meta description",
    tag: "meta-description",
  },
  h2: {
    severity: "low",
    confidence: 0.85,
    label: "section headings",
    pageLabel: "section headings",
    tag: "section-headings",
  },
};

const CONFIDENCE_REASON: Record<NarrativeField, string> = {
  h1: "the headline is the page's <h1> element, read directly",
  title: "the page title is the <title> element, read directly",
  meta_description: "the meta description is the page's description meta tag, read directly",
  hero: "the hero copy is taken as the first substantial paragraph of the main content, a heuristic",
  h2: "section headings are the page's <h2> elements, read directly",
};

// Title wording priority: what a visitor reads first.
const FIELD_PRIORITY: NarrativeField[] = ["h1", "hero", "title", "meta_description"];

/** "homepage", "pricing page", or the page's address for other pages ("acme.com/about page"). */
function pageLabel(context: ClassifyContext): string {
  if (context.sourceType === "homepage") return "homepage";
  if (context.sourceType === "pricing") return "pricing page";
  try {
    const url = new URL(context.sourceUrl);
    const path = url.pathname.replace(/\/+$/, "");
    return `${url.host.replace(/^www\./, "")}${path} page`;
  } catch {
    return "page";
  }
}

function narrativeEvidence(changes: NarrativeChange[]): EvidenceDraft[] {
  return changes.map((change) => ({
    evidence_type: "excerpt" as const,
    title: `${capitalise(FIELD_RULES[change.field].label)} (${change.field})`,
    excerpt: `Before: ${change.before === null ? "none" : `"${truncate(change.before, 450)}"`} · After: ${change.after === null ? "none" : `"${truncate(change.after, 450)}"`}`,
    metadata: { field: change.field, before: change.before, after: change.after },
  }));
}

function textEvidence(text: SnapshotDiff["text"]): EvidenceDraft[] {
  if (text.added.length === 0 && text.removed.length === 0) return [];
  const lines = [
    ...text.removed.slice(0, 10).map((l) => `- ${truncate(l, 200)}`),
    ...text.added.slice(0, 10).map((l) => `+ ${truncate(l, 200)}`),
  ];
  return [
    {
      evidence_type: "excerpt",
      title: "Changed text",
      excerpt: truncate(lines.join("\n"), EVIDENCE_EXCERPT_MAX),
      metadata: { added: text.added, removed: text.removed, change_ratio: text.change_ratio },
    },
  ];
}

function narrativeState(changes: NarrativeChange[], side: "before" | "after"): string {
  return JSON.stringify(Object.fromEntries(changes.map((c) => [c.field, c[side]])));
}

function fieldsEvent(changes: NarrativeChange[], diff: SnapshotDiff, context: ClassifyContext): EventDraft {
  const company = context.competitorName;
  const page = pageLabel(context);
  const fields = changes.map((c) => c.field);
  const primary = FIELD_PRIORITY.find((f) => fields.includes(f))!;
  const primaryChange = changes.find((c) => c.field === primary)!;
  const label = FIELD_RULES[primary].pageLabel;
  const title =
    primaryChange.after === null
      ? `${company} removed its ${page} ${label}`
      : `${company} changed its ${page} ${label} to "${truncate(primaryChange.after, 100)}"`;
  const first =
    primaryChange.before === null
      ? `${company}'s ${page} ${label} is now "${truncate(primaryChange.after ?? "", 200)}"; it had none before.`
      : primaryChange.after === null
        ? `${company}'s ${page} no longer shows its ${label}; it was "${truncate(primaryChange.before, 200)}".`
        : `${company}'s ${page} ${label} changed from "${truncate(primaryChange.before, 200)}" to "${truncate(primaryChange.after, 200)}".`;
  const others = changes.filter((c) => c.field !== primary).map((c) => FIELD_RULES[c.field].label);
  const summary = others.length > 0 ? `${first} The ${joinList(others)} changed too.` : first;
  const positioning = primary === "h1" || primary === "hero";
  const impact = positioning
    ? `${company} is changing how it pitches itself: visitors now read "${truncate(primaryChange.after ?? "", 120)}" first. Check your battlecard's positioning and talk track against it.`
    : `${company} changed how its ${page} appears in search results and browser tabs: a small signal, but watch for a broader repositioning.`;
  // The event is right if the most reliably read changed field is right.
  const best = changes.reduce((a, b) => (FIELD_RULES[b.field].confidence > FIELD_RULES[a.field].confidence ? b : a));
  const confidence = FIELD_RULES[best.field].confidence;
  const reasoning = `${capitalise(CONFIDENCE_REASON[best.field])}${changes.length > 1 ? `; changed fields: ${fields.join(", ")}` : ""}.`;
  return {
    event_type: "narrative_change",
    severity: maxSeverity(...changes.map((c) => FIELD_RULES[c.field].severity)),
    title,
    summary,
    impact_summary: impact,
    confidence_score: confidence,
    confidence_reasoning: reasoning,
    is_inferred: confidence < INFERRED_BELOW,
    tags: ["narrative", slug(context.sourceType), ...changes.map((c) => FIELD_RULES[c.field].tag)],
    evidence: [...narrativeEvidence(changes), ...textEvidence(diff.text)],
    subject: `narrative:${fields.join("+")}`,
    before_state: narrativeState(changes, "before"),
    after_state: narrativeState(changes, "after"),
  };
}

function rewriteEvent(diff: SnapshotDiff, headings: NarrativeChange[], context: ClassifyContext): EventDraft {
  const company = context.competitorName;
  const page = pageLabel(context);
  const percentWhole = `${Math.round(diff.text.change_ratio * 100)}%`;
  const blocks = `${diff.text.added.length} block${diff.text.added.length === 1 ? "" : "s"} added, ${diff.text.removed.length} removed`;
  return {
    event_type: "narrative_change",
    severity: "low",
    title: `${company} rewrote ${percentWhole} of its ${page}`,
    summary: `About ${percentWhole} of the words on ${company}'s ${page} changed (${blocks}); its headline, hero copy and title stayed the same.`,
    impact_summary: `A large rewrite of ${company}'s ${page} can mean new positioning or a new offer: skim the changed text before your next competitive call.`,
    confidence_score: TEXT_ONLY_CONFIDENCE,
    confidence_reasoning: `Only the page's body text changed (${percentWhole} of words, by a word-level diff of the masked text), with no headline, title, hero or record change; that this is a meaningful rewrite is judged from the amount of changed text, so confidence is ${TEXT_ONLY_CONFIDENCE} and the event is marked inferred.`,
    is_inferred: true,
    tags: ["narrative", slug(context.sourceType), "copy-rewrite"],
    evidence: [...narrativeEvidence(headings), ...textEvidence(diff.text)],
    subject: "narrative:text",
    // Hashes of the changed lines: A→B→A swaps them, which flap damping recognises as a revert.
    before_state: JSON.stringify({ lines_sha256: shortHash(diff.text.removed.join("\n")) }),
    after_state: JSON.stringify({ lines_sha256: shortHash(diff.text.added.join("\n")) }),
  };
}

function narrativeEvents(diff: SnapshotDiff, context: ClassifyContext): EventDraft[] {
  // Title/h1/hero on a blog or careers page name the latest post or role: only pages that present the company count.
  if (!NARRATIVE_SOURCES.has(context.sourceType)) return [];
  // Section headings move with the content below them: alone they are no event, but they are shown as evidence.
  const main = diff.narrative.filter((c) => c.field !== "h2");
  if (main.length > 0) return [fieldsEvent(diff.narrative, diff, context)];
  const recordsChanged = diff.pricing.length > 0 || diff.jobs.length > 0 || diff.items.length > 0;
  // docs/product-rules.md#classification: a text-only rewrite of ≥ 15 % on a homepage/other page is a low narrative
  // change; below that (a typo fix, a reworded sentence) nothing, and on a pricing page the plans speak for themselves.
  if (
    !recordsChanged &&
    context.sourceType !== "pricing" &&
    diff.text.change_ratio >= REWRITE_RATIO &&
    (diff.text.added.length > 0 || diff.text.removed.length > 0)
  ) {
    return [rewriteEvent(diff, diff.narrative, context)];
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------------------

/** Event drafts for one diff of one source; empty when nothing in the diff is worth an event. */
/**
 * The sources whose prices are the competitor's offers: its pricing page, homepage, docs and other pages. On a blog,
 * news, press, changelog, careers, feed, social or reviews page a price is something written about (a product
 * roundup, a release note), and its change is no pricing event (docs/product-rules.md#classification).
 */
const PRICING_SOURCES = new Set(["pricing", "homepage", "docs", "other"]);

export function classify(diff: SnapshotDiff, context: ClassifyContext): EventDraft[] {
  const changes = PRICING_SOURCES.has(context.sourceType) ? [...diff.pricing] : [];
  const pricing = changes
    .filter((change) => change.kind !== "renamed")
    .sort((a, b) => compare(a.key, b.key))
    .map((change) => pricingEvent(change, context))
    .filter((e): e is EventDraft => e !== null);
  // A price read anew under another context, or given a name, is no event; only named plans renamed are (an add-on's
  // line relabelled, "Licensees" to "Licensees/Customers", is wording).
  const planRenamed = (plan: PricingPlan) => plan.origin !== "context" && (plan.kind ?? "plan") === "plan";
  const renames = renameEvent(
    changes.filter((change) => change.kind === "renamed" && planRenamed(change.before!) && planRenamed(change.after!)),
    context,
  );
  return [
    ...pricing,
    ...(renames ? [renames] : []),
    ...hiringEvents(diff.jobs, context),
    ...productEvents(diff.items, context),
    ...narrativeEvents(diff, context),
  ];
}
