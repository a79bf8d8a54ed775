/**
 * The other side of a billing switch kept in data attributes. Many pricing templates show one billing period's price
 * and keep both on the element for their script to swap in when the visitor flips the switch:
 * `<span class="amount" data-monthly="29" data-annual="23">29</span><span data-monthly="/mo" data-annual="/mo">`, or
 * bind its text to the switch: `<span x-text="annual ? '$24' : '$29'">$29</span>`.
 * The price a visitor sees after the switch is on the page as much as the one shown first: a change of it alone must
 * not go unseen. Only a pair of attributes (one monthly, one yearly) with numbers, one of which is the number shown,
 * is read; what the yearly number is per (a year, or a month billed yearly) is taken from the period element's own
 * pair, else from its size beside the monthly one, else it is left unsaid (the number is read, its period null).
 */
import { collapse, isElement, type AnyNode, type Element } from "../../parse/html.js";
import type { BillingPeriod } from "../../types.js";
import { detectBilling, detectPeriod, parseAmount } from "./money.js";

/** The period word of a switch attribute's name: `data-monthly`, `data-price-yearly`, `data-annual-price`. */
const MONTHLY_WORD_RE = /(?<=^data-(?:[a-z]+[-_])*)(?:month|monthly|mo)(?=(?:[-_][a-z]+)*$)/i;
const YEARLY_WORD_RE = /(?<=^data-(?:[a-z]+[-_])*)(?:year|yearly|annual|annually|yr)(?=(?:[-_][a-z]+)*$)/i;
/** Attributes that hold something else than the shown text (a price id, a plan id): never prices. */
const NOT_A_PRICE_ATTRIBUTE_RE = /[-_](?:id|ids|url|link|href|plan|sku|key)$/i;
/** How many elements of a price element (and of its parent, for the period beside it) are looked at. */
const MAX_LOOKED_AT = 40;
/** A yearly number this many times the monthly one, or more, is the price of a year. */
const YEAR_TOTAL_RATIO = 6;

/** A price as marks.ts reads one (its PriceOption). */
interface ShownPrice {
  amount: number | null;
  currency: string | null;
  period: BillingPeriod | null;
  billing: "month" | "year" | null;
}

interface TogglePair {
  monthly: string;
  yearly: string;
}

/**
 * The monthly and yearly values of an element's switch attributes: two names alike but for their period word
 * (`data-price-monthly` and `data-price-yearly`; never `data-monthly` beside `data-annual-savings`).
 */
function togglePair(el: Element): TogglePair | null {
  const monthly = new Map<string, string>();
  const yearly = new Map<string, string>();
  for (const [name, value] of Object.entries(el.attribs)) {
    if (NOT_A_PRICE_ATTRIBUTE_RE.test(name)) continue;
    if (MONTHLY_WORD_RE.test(name)) monthly.set(name.replace(MONTHLY_WORD_RE, "*"), value);
    else if (YEARLY_WORD_RE.test(name)) yearly.set(name.replace(YEARLY_WORD_RE, "*"), value);
  }
  for (const [shape, value] of monthly) {
    const other = yearly.get(shape);
    if (other !== undefined) return { monthly: value, yearly: other };
  }
  return bindingPair(el);
}

/** Attributes a front-end framework fills an element's text from (Alpine's `x-text`, Vue's `v-text`). */
const TEXT_BINDINGS = ["x-text", "v-text", "x-html", "v-html", ":textcontent"];
/** `annual ? '$24' : '$29'`, `!yearly ? "/mo" : "/yr"`, `billing === 'monthly' ? '9' : '90'`. */
const TERNARY_RE = /^\s*(!?)\s*([\w.$\s=!'"]{1,60}?)\s*\?\s*(['"`])([^'"`]{0,40})\3\s*:\s*(['"`])([^'"`]{0,40})\5\s*$/;

/** The two sides of a text binding that switches on a billing period written in its condition. */
function bindingPair(el: Element): TogglePair | null {
  for (const name of TEXT_BINDINGS) {
    const match = TERNARY_RE.exec(el.attribs[name] ?? "");
    if (!match) continue;
    const [, not, condition, , first, , second] = match;
    const yearly = /annual|year/i.test(condition!);
    if (!yearly && !/month/i.test(condition!)) continue;
    const firstIsYearly = yearly !== (not === "!");
    return firstIsYearly ? { monthly: second!, yearly: first! } : { monthly: first!, yearly: second! };
  }
  return null;
}

/** `el` and the elements inside it, in document order, at most `limit`. */
function elementsOf(el: Element, limit: number): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && out.length < limit) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
  }
  return out;
}

/** A number written in an attribute ("29", "$29", "2,499", "49,90"), or null. */
function amountIn(value: string): number | null {
  const digits = collapse(value)
    .replace(/^[^\d]{0,4}/, "")
    .replace(/[^\d]{0,6}$/, "");
  return digits === "" ? null : parseAmount(digits);
}

/**
 * The price the switch shows besides `shown` (the one option read from the element's text), or null when the element
 * has no switch, when neither of its numbers is the one shown, or when what the yearly number is per cannot be told.
 */
export function switchedOption(el: Element, shown: ShownPrice): ShownPrice | null {
  if (shown.amount === null || shown.currency === null) return null;
  const looked = elementsOf(el, MAX_LOOKED_AT);
  let amountPair: { monthly: number; yearly: number } | null = null;
  for (const candidate of looked) {
    const pair = togglePair(candidate);
    if (!pair) continue;
    const monthly = amountIn(pair.monthly);
    const yearly = amountIn(pair.yearly);
    if (monthly === null || yearly === null || monthly === yearly) continue;
    if (shown.amount !== monthly && shown.amount !== yearly) continue;
    amountPair = { monthly, yearly };
    break;
  }
  if (!amountPair) return null;
  const showsMonthly = shown.amount === amountPair.monthly;
  if (!showsMonthly) return { amount: amountPair.monthly, currency: shown.currency, period: "month", billing: "month" };
  // What the yearly number is per: the words the period element swaps in ("/yr", "per month, billed yearly")…
  const parent = el.parent && isElement(el.parent) ? el.parent : el;
  for (const candidate of elementsOf(parent, MAX_LOOKED_AT)) {
    const pair = togglePair(candidate);
    if (!pair || amountIn(pair.yearly) !== null) continue;
    const period = detectPeriod(pair.yearly);
    if (period === null) continue;
    return {
      amount: amountPair.yearly,
      currency: shown.currency,
      period,
      billing: detectBilling(pair.yearly) ?? "year",
    };
  }
  // …else its size: ten times the monthly number is a year's price, a smaller number a month's billed yearly; in
  // between, what it is per is not said, but the number is the yearly side's and its change must not go unseen.
  const ratio = amountPair.yearly / amountPair.monthly;
  const period = ratio >= YEAR_TOTAL_RATIO ? "year" : ratio < 1 ? shown.period : null;
  return { amount: amountPair.yearly, currency: shown.currency, period, billing: "year" };
}
