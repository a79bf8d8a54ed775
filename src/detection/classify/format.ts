/**
 * Wording helpers for event titles and summaries: prices, percentages, articles, truncation. Formatting is fixed to
 * en-US digits so the same change always yields the same title (event subjects and flap damping compare them).
 */
import type { BillingPeriod, PriceOption, PricingPlan } from "../types.js";

// docs/product-rules.md#classification names these four; any other currency is shown by its ISO code ("CHF 49").
const CURRENCY_SYMBOLS: Record<string, string> = { USD: "$", EUR: "€", GBP: "£", JPY: "¥" };

const NUMBER_WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const NUMBER_CENTS = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** Sub-cent unit prices ("$0.0004 per request") keep every digit the page showed. */
const NUMBER_FINE = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 9 });

/**
 * Rounds away float noise (59 − 49.99) at a billionth, so it never reaches a title or a comparison, while sub-cent
 * prices keep their digits: $0.0004 and $0.0005 per request are different prices.
 */
export function roundMoney(amount: number): number {
  return Math.round(amount * 1e9) / 1e9;
}

/** `$49`, `€49.50`, `£1,200`, `CHF 49`, `$0.0004`, or a bare number when the currency is unknown. */
export function formatAmount(amount: number, currency: string | null): string {
  const rounded = roundMoney(amount);
  const subCent = Math.round(rounded * 100) / 100 !== rounded;
  const digits = Number.isInteger(rounded)
    ? NUMBER_WHOLE.format(rounded)
    : (subCent ? NUMBER_FINE : NUMBER_CENTS).format(rounded);
  const code = currency?.toUpperCase() ?? null;
  if (code === null) return digits;
  const symbol = CURRENCY_SYMBOLS[code];
  return symbol ? `${symbol}${digits}` : `${code} ${digits}`;
}

/** `/month`, `/year`, ` one-time`, or nothing when the period is unknown. */
export function periodSuffix(period: BillingPeriod | null): string {
  if (period === "month") return "/month";
  if (period === "year") return "/year";
  if (period === "one_time") return " one-time";
  return "";
}

/** A plan's price as a reader sees it: `$49/month`, `free`, or `contact sales` when the card shows no number. */
export function formatPlanPrice(plan: Pick<PricingPlan, "amount" | "currency" | "period" | "is_free">): string {
  if (plan.amount === null) return plan.is_free ? "free" : "contact sales";
  if (plan.amount === 0 && plan.is_free) return "free";
  return `${formatAmount(plan.amount, plan.currency)}${periodSuffix(plan.period)}`;
}

/** One price option as a reader says it: "$23/month billed annually", "$29/month". */
export function formatPriceOption(option: PriceOption): string {
  const price = formatPlanPrice({ ...option, is_free: option.amount === 0 });
  return option.billing ? `${price} billed ${option.billing === "year" ? "annually" : "monthly"}` : price;
}

/**
 * Every price a plan shows ("$29/month billed monthly, $23/month billed annually"), or its one price: evidence of a
 * change to a price behind a billing switch must show that price, not only the first.
 */
export function formatPlanPrices(plan: PricingPlan): string {
  if (!plan.prices || plan.prices.length < 2) return formatPlanPrice(plan);
  return plan.prices.map(formatPriceOption).join(", ");
}

/** `20%`, `20.4%`, `0.5%`: one decimal at most, none when it is zero. */
export function formatPercent(ratio: number): string {
  const value = Math.round(ratio * 1000) / 10;
  return `${Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1)}%`;
}

/** `a` or `an` for the word that follows ("an Enterprise plan", "a Pro plan", "an SSO add-on", "a Unicorn plan"). */
export function indefiniteArticle(word: string): "a" | "an" {
  const text = word.trim();
  // Vowel letters that sound like consonants, and silent h.
  if (/^(uni|use|usa|usu|uti|eu|ewe|one\b|once)/i.test(text)) return "a";
  if (/^(hour|honest|honou?r|heir)/i.test(text)) return "an";
  // Acronyms are read letter by letter: F, H, L, M, N, R, S, X start with a vowel sound ("an SLA", "an HR role").
  const acronym = /^[A-Z]{2,}\b/.exec(text);
  if (acronym) return /^[AEFHILMNORSX]/.test(text) ? "an" : "a";
  if (/^(8|11|18)\b/.test(text)) return "an";
  return /^[aeiou]/i.test(text) ? "an" : "a";
}

/** Cuts text to at most `max` characters (code points), ending with `…` when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars
    .slice(0, max - 1)
    .join("")
    .trimEnd()}…`;
}

/** Lowercase, dash-separated tag text (`Pro Plus` → `pro-plus`). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** `A`, `A and B`, `A, B and C`. */
export function joinList(parts: string[]): string {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}
