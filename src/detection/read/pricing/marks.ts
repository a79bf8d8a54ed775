/**
 * Price marks: the smallest elements of a page whose text states a price ("$49/mo", "€19 MONTHLY", `<span>$</span>
 * <span>49</span>`, "$10/year or $1/month"), found bottom-up in one pass over the tree, before anything decides what
 * they belong to. Everything the pricing readers know about a page's prices starts here: records are built around
 * marks (records.ts), grids align them with their columns' names (grids.ts), and a mark nothing claims is still a
 * price, named by its context (context.ts).
 *
 * A number without a currency is a price only inside an element classed as one (`<span class="amount">49</span>`).
 * "Free", "Contact sales", "Custom" are soft marks: they make a record of a plan that shows no number, but a soft mark
 * alone is never a price of its own.
 */
import type { BillingPeriod } from "../../types.js";
import {
  blockText,
  collapse,
  inDigitRun,
  isElement,
  isHeading,
  tagName,
  textContent,
  type AnyNode,
  type Element,
} from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import { nameText, plausibleName } from "./names.js";
import { switchedOption } from "./toggles.js";
import {
  detectBilling,
  detectPeriod,
  firstPriceIndex,
  periodSaid,
  parseAmount,
  parsePrice,
  statedPrices,
  type ParsedPrice,
  type StatedPrice,
} from "./money.js";

export interface PriceOption {
  /** Exact, in major units; null for a soft mark ("Contact sales"). */
  amount: number | null;
  currency: string | null;
  /** What the amount is per: "$8/month" is month. */
  period: BillingPeriod | null;
  /** How it is billed when the page says so: "$8/month billed annually" is billed per year. */
  billing: "month" | "year" | null;
}

export interface PriceMark {
  el: Element;
  /**
   * Its text is the price and little else ("€15/month", "$4 / user / month"), not a sentence that mentions one
   * ("Optional custom domain for €5"): in a record's feature list only a standalone price is the record's own.
   */
  standalone: boolean;
  /** The element's text, collapsed (at most MARK_MAX_CHARS). */
  text: string;
  /** The text the period and billing were read from: the mark's own, and what follows it up to the next price. */
  window: string;
  options: PriceOption[];
  /** "Free" (amount 0 without a digit), "Contact sales", "Custom": a plan's price, never a price on its own. */
  soft: boolean;
  /** Struck through (a list price beside a promotional one). */
  struck: boolean;
  /** A price written as an increment ("+ $49 per user/month"): bought on top of something. */
  increment: boolean;
  /**
   * The words before the price on its own line, when one element's text holds several labelled prices ("Memory -
   * $10 / GB per month vCPU - $20 / vCPU per month" in one paragraph): each is a mark of its own with its label.
   */
  lead?: string;
  /**
   * Read from running text (a paragraph longer than a price element): a sentence that mentions a price. Such a price
   * names a record only where nothing else on the page does (a prose pricing page); beside plan cards it is a mention.
   */
  prose: boolean;
}

/** A price is short: an element with more visible text is a sentence or a block that holds one. */
const MARK_MAX_CHARS = 120;
/** Nor does a price element hold many elements: a bound that keeps the bottom-up pass linear on hostile pages. */
const MARK_MAX_ELEMENTS = 40;
/** Read after a mark, for its period and billing, when the mark itself does not say. */
const WINDOW_AFTER_CHARS = 80;

const PRICE_CLASS_RE = /price|amount|cost|fee|rate|tarif|preis|prix|precio/i;
/** Wording of a struck list price, on the element or its classes. */
const STRUCK_TAGS = new Set(["del", "s", "strike"]);
const STRUCK_CLASS_RE =
  /strike|line[-_]?through|crossed|old[-_]?price|\bold\b|original|was[-_]?price|regular[-_]?price|list[-_]?price|outdated|former[-_]?price|previous[-_]?price/i;
const STRUCK_STYLE_RE = /text-decoration(?:-line)?\s*:[^;]*line-through/i;
/** A footnote's marker at the start of a line: "* plus taxes", "† billed yearly", "¹ per seat". */
const FOOTNOTE_RE = /^\s*[*†‡¹²³]/;
export const isFootnote = (text: string): boolean => FOOTNOTE_RE.test(text);
const INCREMENT_RE = /^\s*\+\s*\D{0,4}?\s*\d/;
/** "Free" in the languages pricing pages are written in (a whole word: the text is matched whole). */
const FREE_WORD =
  "free|gratis|kostenlos|kostenfrei|gratuit|gratuite|gratuito|gratuita|grátis|bezpłatn\\w*|darmow\\w*|бесплатно|безкоштовно|無料|免费|免費|ücretsiz|miễn\\s+phí|zdarma|ingyenes|gratis\\s+für\\s+immer";
/**
 * What may follow "Free" and leave it free: what it is (plan, tier), for whom, for how long ("forever", "for now",
 * "in beta", "during early access", "until launch"), a remark after a separator, a footnote mark or a remark in
 * brackets. Not a trial ("Free to try", "Free for 14 days" are no price).
 */
const FREE_QUALIFIER =
  "\\s+(?:forever|plan|tier|allowances?|quotas?|usage|for\\s+now|(?:while\\s+|during\\s+(?:the\\s+)?)?in\\s+(?:beta|preview|alpha|early\\s+access)|during\\s+(?:the\\s+)?(?:beta|preview|alpha|early\\s+access)|while\\s+in\\s+(?:beta|preview)|until\\s+(?:launch|general\\s+availability|GA)|for\\s+early\\s+adopters|for\\s+ever|for\\s+life|to\\s+start|to\\s+use|for\\s+(?:personal|non-?commercial|open[-\\s]source|individuals|hobby\\w*|small\\s+teams|everyone)(?:\\s+\\w+)?)|\\s+but\\b[^$€£\\d]*|\\s*[,;:–—+/-][^$€£\\d]*|\\s*\\([^()$€£\\d]{1,40}\\)";
/** A whole text that prices a plan without a number: free, or priced by the sales team. */
const FREE_TEXT_RE = new RegExp(
  `^(?:(?:it'?s\\s+|100%\\s+|for\\s+)?(?:${FREE_WORD})(?:\\s+forever(?=\\s+for\\s))?(?:${FREE_QUALIFIER})?|forever\\s+free|always\\s+free)[*†‡¹²³]*[.!]?$`,
  "i",
);
const CONTACT_TEXT_RE =
  /^(?:contact(?:\s+(?:us|me|sales|our\s+sales(?:\s+team)?|our\s+team))?(?:\s+for\s+(?:pricing|a\s+quote|details|a\s+price))?|talk\s+to\s+(?:us|sales|an?\s+expert)|get\s+in\s+touch|call\s+us|let'?s\s+talk|custom(?:\s+(?:pricing|quote|price|plan))?|get\s+(?:a\s+)?quote|request\s+(?:a\s+)?(?:quote|pricing)|(?:price\s+)?on[-\s](?:request|demand)|pay[-\s]what[-\s]you[-\s](?:want|like)(?:\s*\([^)]{0,40}\))?|name\s+your\s+(?:own\s+)?price|(?:book|schedule|request)\s+(?:a\s+)?(?:demo|call)|auf\s+anfrage|sur\s+devis|nous\s+contacter|kontakt(?:ieren\s+sie\s+uns)?)[.!]?(?:\s*\/\s*(?:mo|month|yr|year))?$/i;
/** A saving stated with a verb ("Save $20", "save 2 months"): it is no price, but the prices beside it are. */
const SAVING = /\b(?:save[ds]?|saving|savings|spare|économisez|sparen?)\b\D{0,12}\d/.source;
/**
 * A discount ("$5 off", "50% off … ($15/year instead of $30/year)": the prices it applies to are a promotion's), a
 * calculation or a credit anywhere in a short price text leaves it no price.
 */
const NOT_A_PRICE =
  /\d\s*%?\s*(?:off|discount|rabatt|de\s+réduction)\b|\d\s*[×x*]\s*[\d($€£¥₹]|[\d)]\s*=\s*[$€£¥₹]?\s*\d|(?:^|[^=!<>])=\s*[$€£¥₹]\s*\.?\d|\b(?:worth|valued\s+at)\s*[$€£¥₹]\s*\d|[$€£¥₹]\s*\d[\d,.]*\s+(?:(?:in|of)\s+)?(?:free\s+)?(?:trial\s+|usage\s+|promotional\s+|sign[-\s]?up\s+)?credits?\b|[$€£¥₹]\s*\d[\d,.]*[kK]?\s+(?:(?:in|of)\s+)?(?:(?:monthly|yearly|annual|weekly)\s+)?savings\b/
    .source;
/**
 * Amounts that are no price: a saving ("$5 off", "50% off", "Save $20", "a $10 discount"), a worked calculation ("(223,200
 * / 10,000) * $1.20 = $26.80 per month", "7200 x 31"), a value a plan includes ("Includes check runs worth $70") and a
 * credit given ("a one-time $5 free trial credit", "$300 in free credits"). A sentence that states one states no price.
 */
const DISCOUNT_RE = new RegExp(`${SAVING}|${NOT_A_PRICE}`, "i");
const NOT_A_PRICE_RE = new RegExp(NOT_A_PRICE, "i");
const SAVING_RE = new RegExp(SAVING, "gi");

/** The prices of a short price text that no saving states: "or $490/year (save 2 months)" keeps $490, "Save $20" none. */
function outsideSavings<T extends StatedPrice>(text: string, prices: readonly T[]): T[] {
  const savings = [...text.matchAll(SAVING_RE)].map((match) => [match.index, match.index + match[0].length] as const);
  if (savings.length === 0) return [...prices];
  return prices.filter((price) => !savings.some(([start, end]) => price.start < end && start < price.end));
}

/**
 * A free allowance stated in a sentence: "Your first 50 GBs transferred each month are free", "free up to 10,000
 * requests", "5 GB of storage free each month". An offer at no price (the free tier a product gives), read by its
 * context like any price in running text; its size is no amount.
 */
const FREE_ALLOWANCE_RE =
  /\bfirst\s+\d[\d.,]*\s*[\p{L}]*\b[^.!?$€£]{0,60}?\b(?:is|are)\s+(?:always\s+|completely\s+|totally\s+)?free\b|\bfree\s+(?:(?:for\s+)?up\s+to|for\s+the\s+first)\s+[$€£]?\d|\b\d[\d.,]*\s*(?:[KMGT]B|GBs?)\s+(?:of\s+[\p{L} ]{1,30}?\s+)?free\s+(?:each|every|per|a)\s+month\b/iu;

/** "Free for 14 days", "FREE for 30 days": free for a length of time, and nothing more said. */
const FREE_FOR_A_TIME_RE = /^\s*free\s+for\s+(?:the\s+first\s+)?\d{1,3}\s+(?:days?|weeks?|months?)[.!*]?\s*$/i;

function freeAllowance(el: Element, text: string, index: ElementIndex): PriceMark | null {
  // In an element classed as the price, "Free for 14 days" prices an offer of its own (an "Evaluation" card beside the
  // paid ones): free, for that long.
  if (FREE_FOR_A_TIME_RE.test(text) && priceClassed(el)) return softMark(el, text, 0);
  if (!FREE_ALLOWANCE_RE.test(text)) return null;
  const mark = newMark(el, text, [{ amount: 0, currency: null, period: null, isFree: true }], index, false);
  // In an element classed as the price and led by "Free" ("Free up to 3 users" where the cards beside it say "$9/mo"),
  // it is the offer's price: free, with an allowance.
  const priceOfItsOffer = /^\s*free\b/i.test(text) && priceClassed(el);
  return { ...mark, window: text, soft: true, prose: !priceOfItsOffer };
}

/** A price that is a share of something: "Up to 5% of savings", "2% per transaction", "10% of revenue". */
const SHARE_RE =
  /^\s*(?:up\s+to\s+|only\s+|just\s+)?\d{1,2}(?:[.,]\d{1,2})?\s*%\s+(?:of|per|on)\s+\p{L}[^$€£¥₹\d]{0,40}$/iu;

/**
 * In an element classed as the price, a share of something prices its offer with no amount of money: a price with no
 * number to compare, as "Contact us" is, where reading the card as unpriced would miss it and its set.
 */
function shareOf(el: Element, text: string): PriceMark | null {
  return SHARE_RE.test(text) && priceClassed(el) ? softMark(el, text, null) : null;
}

export function isStruck(el: Element): boolean {
  return (
    STRUCK_TAGS.has(tagName(el)) ||
    STRUCK_CLASS_RE.test(el.attribs.class ?? "") ||
    STRUCK_STYLE_RE.test(el.attribs.style ?? "")
  );
}

/** A line that says what stands above it is a price: "Price per month", "Harga per tahun", "Preis pro Monat". */
const PRICE_LINE_RE = /^\s*(?:price|pricing|cost|harga|biaya|preis|prix|precio|preço|prezzo|prijs|cena|pris)\b/i;

/** A text that is a number and nothing else ("49", "1.299,00", "50K"). */
const BARE_NUMBER_RE = /^\d[\d.,' ]*[kK]?$/;

/** A text that starts with its number (or "from", "only" before it). */
const BARE_LEAD_RE = /^\s*(?:(?:from|only|just|starting\s+(?:at|from)|ab|dès|desde|a\s+partir\s+de)\s+)?\d/i;
/**
 * A bare number followed by what it counts ("3,600 instance hours/month", "5 users") is a quantity, even in a
 * price-classed element: a price's number is followed by its period or nothing ("49 / mo", "49 per month").
 */
const BARE_COUNT_RE =
  /^\s*(?:(?:from|only|just|starting\s+(?:at|from)|ab|dès|desde|a\s+partir\s+de)\s+)?[\d.,]+\s*[kKmM]?\s+(?!(?:per|a|an|each|every|month|mo|months|year|yr|years|annually|monthly|yearly|user|seat|net|gross|excl|incl|plus|vat|tax)\b)\p{L}/iu;

/** The element or its parent is classed as a price (`<span class="amount">49</span>`). */
function priceClassed(el: Element): boolean {
  let current: AnyNode | null = el;
  for (let depth = 0; depth < 2 && current && isElement(current); depth++, current = current.parent) {
    if (PRICE_CLASS_RE.test(current.attribs.class ?? "") || PRICE_CLASS_RE.test(current.attribs.id ?? "")) return true;
  }
  return false;
}

/** Billing cycle from the classes of a mark's ancestors: a monthly and an annual pane of one pricing table. */
const MONTHLY_CLASS_RE = /(?:^|[-_\s])(?:monthly|month|mo|per-month)(?:$|[-_\s])/i;
const YEARLY_CLASS_RE = /(?:^|[-_\s])(?:annual|annually|yearly|year|yr|per-year)(?:$|[-_\s])/i;
function billingFromAncestors(el: Element, stop: number): "month" | "year" | null {
  let current: AnyNode | null = el;
  for (let depth = 0; depth < stop && current && isElement(current); depth++, current = current.parent) {
    const names = `${current.attribs.class ?? ""} ${current.attribs.id ?? ""} ${current.attribs["data-period"] ?? ""} ${current.attribs["data-billing"] ?? ""} ${current.attribs["data-interval"] ?? ""}`;
    const yearly = YEARLY_CLASS_RE.test(names);
    const monthly = MONTHLY_CLASS_RE.test(names);
    if (yearly !== monthly) return yearly ? "year" : "month";
  }
  return null;
}

/** The next sibling that is an element or text with something in it. */
function nextNode(node: AnyNode): AnyNode | null {
  let next = node.next;
  while (next && next.type === "text" && (next as { data: string }).data.trim() === "") next = next.next;
  return next && (isElement(next) || next.type === "text") ? next : null;
}

/** A line that only says per what a price is: "/mo", "per month", "/ user / month". */
const PERIOD_LINE_RE = /^(?:\/|per\b)[\s\p{L}/.]{0,30}$/iu;

/** The text right after a mark, up to WINDOW_AFTER_CHARS, stopping at a heading or another price. */
function textAfter(el: Element, index: ElementIndex, currency: string | null = null): string {
  let out = "";
  let node: AnyNode | null = el;
  // Climb to the first ancestor that has a following sibling, at most three levels (the period often sits in the
  // parent's next element: `<p><b>$49</b></p><p>per month</p>`).
  // Not out of a row's last cell: the next row is another line of the table ("Setup fee | £99" over "Monthly cost |
  // Free"), not what the price is per.
  for (let depth = 0; depth < 3 && node && !nextNode(node); depth++) {
    if (isElement(node) && /^(?:td|th)$/.test(tagName(node))) {
      node = null;
      break;
    }
    node = node.parent;
  }
  for (
    let next = node ? nextNode(node) : null, steps = 0;
    next && out.length < WINDOW_AFTER_CHARS && steps < 4;
    next = nextNode(next)
  ) {
    if (isElement(next)) {
      steps++;
      if (index.visibleChars(next) > WINDOW_AFTER_CHARS) break;
      const text = collapse(textContent(next));
      // A heading starts what follows, unless it only says per what the price is (MUI's pricing template sets the
      // price and its "/mo" as two headings).
      if (isHeading(next) && !(PERIOD_LINE_RE.test(text) && detectPeriod(text) !== null)) break;
      // Another amount starts another price, except the same price in another currency with no words of its own
      // (`<span>$10</span><span hidden>€9</span> /month`: a currency switch's other side, and the period after it
      // is this price's too).
      if (/\d/.test(text) && statedPrices(text).length > 0) {
        if (currency !== null && otherCurrencyAlone(text, currency)) continue;
        break;
      }
      out += ` ${text}`;
    } else out += ` ${(next as { data: string }).data}`;
  }
  return collapse(out).slice(0, WINDOW_AFTER_CHARS);
}

/** The text is one price, alone, with no period, in a currency other than `currency`. */
function otherCurrencyAlone(text: string, currency: string): boolean {
  const [price, ...rest] = statedPrices(text);
  return (
    rest.length === 0 &&
    price !== undefined &&
    price.period === null &&
    price.currency !== null &&
    price.currency !== currency &&
    price.start === 0 &&
    price.end >= text.length - 1
  );
}

function optionsOf(prices: ParsedPrice[], window: string, el: Element): PriceOption[] {
  const billing = detectBilling(window) ?? billingFromAncestors(el, 6);
  // A table's price cell says its period in its column's head ("Plan | Monthly | Annual"), unless it says its own that
  // no billing period states ("£50 per hour" of training under a plan priced per month).
  const said = periodSaid(window);
  const period =
    said === "other" ? null : (said ?? (prices.every((price) => price.period === null) ? columnPeriod(el) : null));
  const source = collapse(window);
  // Several prices none of which states its period (the two ends of "$12-25" before "per user/month") share the one
  // written after them.
  const shared =
    prices.length === 1 || prices.every((price) => price.period === null)
      ? period
      : currencyRunPeriod(prices as StatedPrice[], source);
  return prices.map((price, k) => {
    // A price says its own billing after it: "$3 (annual) or $4 (monthly)", and "Billed annually or $18
    // month-to-month" bills $18 by the month whatever the words before it say of another price.
    const stated = "start" in price ? (price as StatedPrice) : null;
    const next = prices[k + 1] as StatedPrice | undefined;
    const after = stated ? source.slice(stated.end, next && "start" in next ? next.start : undefined) : "";
    const own = prices.length > 1 || MONTH_TO_MONTH_RE.test(after) ? segmentBilling(after) : null;
    return {
      amount: price.amount,
      currency: price.amount === null ? null : price.currency,
      // A price whose own text states no period takes the one written after it ("$49" then "per month").
      period: price.period ?? shared,
      billing: own ?? billing,
    };
  });
}

const MONTH_TO_MONTH_RE = /\bmonth[-\s]to[-\s]month\b/i;

/**
 * The period the last of a run of one price in several currencies states for all of them ("$10 €9 £8 /month": a
 * currency switch's three sides side by side in the markup), else null. Prices in one currency do not share it this
 * way: "$10 $100/year" may be a month's and a year's price.
 */
function currencyRunPeriod(prices: StatedPrice[], source: string): BillingPeriod | null {
  const last = prices[prices.length - 1]!;
  if (last.period === null || !prices.every((price) => "start" in price)) return null;
  const currencies = new Set(prices.map((price) => price.currency));
  if (currencies.size !== prices.length || currencies.has(null)) return null;
  for (let k = 0; k + 1 < prices.length; k++) {
    if (prices[k]!.period !== null || source.slice(prices[k]!.end, prices[k + 1]!.start).trim() !== "") return null;
  }
  return last.period;
}

/** The period a table cell's column head states ("Monthly", "Annual", "Per year"), if the cell is in a table. */
function columnPeriod(el: Element): BillingPeriod | null {
  let cell: AnyNode | null = el;
  for (let depth = 0; cell && isElement(cell) && depth < 3 && tagName(cell) !== "td"; depth++) cell = cell.parent;
  if (!cell || !isElement(cell) || tagName(cell) !== "td") return null;
  const row = cell.parent;
  if (!row || !isElement(row) || tagName(row) !== "tr") return null;
  const column = row.children.filter(isElement).indexOf(cell);
  let table: AnyNode | null = row.parent;
  if (table && isElement(table) && /^(?:tbody|thead|tfoot)$/.test(tagName(table))) table = table.parent;
  if (!table || !isElement(table) || tagName(table) !== "table") return null;
  const head = headRow(table);
  if (!head || head === row) return null;
  const headCell = head.children.filter(isElement)[column];
  if (!headCell) return null;
  const text = collapse(textContent(headCell));
  return text.length <= 40 ? detectPeriod(text) : null;
}

/** A table's head row: its `thead`'s first row, else its first row when that row is all `th`. */
function headRow(table: Element): Element | null {
  for (const child of table.children) {
    if (!isElement(child) || /^(?:caption|colgroup|col)$/.test(tagName(child))) continue;
    if (tagName(child) === "thead")
      return (child.children.find((row) => isElement(row) && tagName(row) === "tr") as Element | null) ?? null;
    const first =
      tagName(child) === "tr" ? child : child.children.find((row) => isElement(row) && tagName(row) === "tr");
    if (!first || !isElement(first)) return null;
    return first.children.filter(isElement).every((cell) => tagName(cell) === "th") ? first : null;
  }
  return null;
}

/** The billing a price's own words state: "billed annually", or a bare "(annual)" / "monthly" after it. */
function segmentBilling(segment: string): "month" | "year" | null {
  return (
    detectBilling(segment) ??
    (/\b(?:annual|annually|yearly)\b/i.test(segment)
      ? "year"
      : /\bmonthly\b/i.test(segment) || MONTH_TO_MONTH_RE.test(segment)
        ? "month"
        : null)
  );
}

/**
 * Every price mark under the index's root, in document order. An element is a mark when its short text states a
 * price and no element inside it already does (so `<p>$<b>49</b>/mo</p>` is one mark, the `p`).
 */
export function findMarks(index: ElementIndex, limit = Infinity): PriceMark[] {
  const { elements } = index;
  // A page is read for its first `limit` prices: past the element where four times as many texts with a digit have
  // been seen, nothing is looked at (a hostile page of a hundred thousand prices costs what its first part costs).
  let end = elements.length;
  if (Number.isFinite(limit)) {
    let seen = 0;
    for (let i = 0; i < elements.length && end === elements.length; i++) {
      const el = elements[i]!;
      if (el.children.some((child) => child.type === "text" && /\d/.test((child as { data: string }).data)))
        if (++seen > limit * 4) end = i;
    }
  }
  const hasDigit = index.textMatches(/\d/);
  // Every word FREE_TEXT_RE or CONTACT_TEXT_RE needs, to pass by elements without one quickly.
  const hasWord = index.textMatches(
    /\b(?:free|custom|contact|contacter|kontakt\w*|talk|touch|quote|request|demand|anfrage|devis|kostenlos|kostenfrei|gratuit\w*|gratis|bezpłatn\w*|darmow\w*|zdarma|ingyenes|pay[-\s]what|name\s+your|demo|call)\b|grátis|бесплатно|безкоштовно|無料|免费|免費|ücretsiz|miễn\s+phí/i,
  );
  const markedInside = new Uint8Array(elements.length);
  /** The one mark under an element when it is a bare number (`<span class="amount">49</span>`), to give it a currency. */
  const bareInside = new Map<number, PriceMark>();
  const dead = new Set<PriceMark>();
  const marks: PriceMark[] = [];
  for (let i = end - 1; i >= 0; i--) {
    const el = elements[i]!;
    const parent = el.parent && isElement(el.parent) ? index.at(el.parent) : -1;
    if (markedInside[i]) {
      if (parent !== -1) markedInside[parent] = 1;
      // A bare number whose currency sits beside it (`<span>€</span><span class="amount">1.299,00</span>`): the
      // element around both is the price.
      const bare = bareInside.get(i);
      if (bare && index.visibleChars(el) <= MARK_MAX_CHARS && index.sizeInside(el) <= MARK_MAX_ELEMENTS) {
        const text = markText(el);
        // A list price struck beside it (Elementor's `original-price` before `<span>$</span><span>99</span>`) is a
        // mark of its own: not this one's.
        const struck = struckAmountsInside(index, el, marks);
        const priced = statedPrices(text).filter(
          (p) => p.amount !== null && p.currency !== null && !struck.has(p.amount),
        );
        // The number may be the whole part only: `<span>$</span><span class="num">29</span><span>.99</span>` is 29.99.
        const whole = priced.length === 1 ? priced[0]!.amount : null;
        const amount = bare.options[0]!.amount;
        if (whole !== null && amount !== null && (whole === amount || Math.trunc(whole) === amount)) {
          dead.add(bare);
          // Its cents set apart in an element of their own after it (Elementor's `<span>$</span><span>9</span><div>
          // <span class="…fractional-part">99</span><span>/month</span></div>`): 9.99, not 9 and a second price of 99.
          const cents = whole === amount && Number.isInteger(whole) ? centsAfter(index, el, bare, text, marks) : null;
          if (cents) {
            dead.add(cents);
            priced[0] = { ...priced[0]!, amount: whole + Number(cents.text.trim()) / 100 };
          }
          marks.push(newMark(el, text, priced, index, bare.struck));
          continue;
        }
        if (parent !== -1 && !bareInside.has(parent)) bareInside.set(parent, bare);
      }
      // Its own text may state a price beside the marked element: `<p><del>$49</del> $39</p>`.
      const own = ownText(el);
      if (/\d/.test(own) && own.length <= MARK_MAX_CHARS && !DISCOUNT_RE.test(own)) {
        const prices = statedPrices(own).filter((p) => p.amount !== null && p.currency !== null);
        const bare = bareInside.get(i);
        const beside = bare && prices.length === 1 ? bareBeside(el, bare, prices[0]!) : null;
        if (bare && beside === "cents") {
          // `35€<sup>99</sup>`: one price, 35.99, not 35 and a second option of 99.
          dead.add(bare);
          // Its whole text is the mark's: the period may follow the cents in an element of its own (`<span>/mo</span>`).
          const cents = Number(bare.text.trim()) / 100;
          const whole = markText(el);
          const text = whole.length <= MARK_MAX_CHARS ? whole : own;
          marks.push(newMark(el, text, [{ ...prices[0]!, amount: prices[0]!.amount! + cents }], index, false));
          continue;
        }
        // `10$ <span>20</span>`: a higher bare number beside the price is the list price it replaces, not an option.
        if (bare && beside === "list") bare.struck = true;
        if (prices.length > 0) marks.push(newMark(el, own, withInnerPeriod(el, prices), index, false));
      }
      continue;
    }
    // One digit of a number written a digit per element ("1", "9" of an animated "$19"): the element around the
    // digits is the price (parse/html.ts joins them), never each digit.
    if (inDigitRun(el)) continue;
    if (index.visibleChars(el) > MARK_MAX_CHARS || index.sizeInside(el) > MARK_MAX_ELEMENTS) {
      // Running text: each sentence of its own text that states a price is a prose mark.
      if (hasDigit(el)) for (const mark of proseMarks(el, index)) marks.push(mark);
      continue;
    }
    const digit = hasDigit(el);
    const onRequest = !digit && onRequestHeading(el, index, { contactOnly: true });
    if (!digit && !hasWord(el) && !onRequest) continue;
    const text = markText(el);
    if (text === "") continue;
    // Counted with its spacing the text may run past the bound its visible characters kept: still running text.
    if (text.length > MARK_MAX_CHARS) {
      if (digit) for (const mark of proseMarks(el, index)) marks.push(mark);
      continue;
    }
    let mark: PriceMark | null = null;
    if (digit) {
      // A discount on a line of its own for the first few of something ("$40/month per seat<br>Your first 3 seats
      // are 50% off") leaves the price on its line standing: the list price, not a promotion's.
      const priceText = NOT_A_PRICE_RE.test(text) ? withoutFirstFewDiscount(el, text) : text;
      const stated = NOT_A_PRICE_RE.test(priceText)
        ? []
        : outsideSavings(
            priceText,
            statedPrices(priceText).filter((p) => p.amount !== null && p.currency !== null),
          );
      let prices: ParsedPrice[] = stated;
      // A bare number is a price only in an element classed as one, and only when it leads ("49 / mo", "from 49"):
      // "Active products 1" in a priced column is a count.
      if (
        prices.length === 0 &&
        !DISCOUNT_RE.test(text) &&
        BARE_LEAD_RE.test(text) &&
        priceClassed(el) &&
        !footnoteMarker(el) &&
        // What follows a lone number on its line says what it counts ("<span>3,600</span> instance hours/month").
        !BARE_COUNT_RE.test(BARE_NUMBER_RE.test(text) ? `${text} ${textAfter(el, index).slice(0, 40)}` : text)
      ) {
        const bare = parsePrice(text, { bareNumber: true });
        if (bare && bare.amount !== null) prices = [bare];
      }
      // A bare number whose currency is the next line's first word ("50K" over "Rupiah Per Tahun", "49" over "USD /
      // month"): the number is the price, in that currency.
      // Without a currency, only where the next line says it is a price and per what ("50K" over "Harga per tahun",
      // "12" over "Price per month"): a number over "per month" alone is as often a quota.
      if (prices.length === 0 && BARE_NUMBER_RE.test(text)) {
        const after = textAfter(el, index);
        const beside = statedPrices(`${text} ${after}`).filter(
          (p) => p.amount !== null && p.currency !== null && p.start === 0,
        );
        if (beside.length > 0) prices = beside.slice(0, 1);
        else {
          const line = after.slice(0, 40);
          const period = PRICE_LINE_RE.test(line) ? detectPeriod(line) : null;
          const whole = period ? parseAmount(text.replace(/\s?[kK]$/, "")) : null;
          if (whole !== null)
            prices = [
              { amount: /[kK]$/.test(text) ? whole * 1000 : whole, currency: null, period, isFree: whole === 0 },
            ];
        }
      }
      // A price in credits is read as running text: by its context, never as another option of a plan's own price.
      const credits = prices.length === 0 ? creditPrices(text) : [];
      if (credits.length > 0) {
        marks.push({ ...newMark(el, text, credits, index, false), prose: true });
        if (parent !== -1) markedInside[parent] = 1;
        continue;
      }
      // "Android - Free, iOS - $3.99": a line that prices its label at "Free" is one of those lines.
      const lined = stated.length > 0 ? withFreeLines(text, stated) : stated;
      if (lined.length > 1) {
        // Several prices, each after a label of its own, are several lines run together: a mark per line.
        const lines = labelledLines(text, lined);
        if (lines) {
          for (const line of lines)
            marks.push({ ...newMark(el, line.text, [line.price], index, false), lead: line.lead });
          if (parent !== -1) markedInside[parent] = 1;
          continue;
        }
      }
      if (prices.length > 0 && !inlineLinkTitle(el, index) && !calculationResult(el))
        mark = newMark(el, text, prices, index, isStruckMark(el));
      // A footnote ("* plus Stripe's fees, typically 2.9% + 30¢" under each plan) qualifies the lines it is marked
      // from: read as running text, by its context, never as a plan's own price or a record of its own.
      if (mark && FOOTNOTE_RE.test(text)) mark = { ...mark, prose: true };
      else if (prices.length === 0) mark = freeAllowance(el, text, index) ?? shareOf(el, text);
      if (mark && mark.options[0]!.currency === null && parent !== -1) bareInside.set(parent, mark);
    }
    // "Free" or "Contact us" is a price even as a heading (`<h2>Free Trial</h2><h3>Free</h3>`); where it is the plan's
    // name as well, the reader of records takes it as the name (names.ts reads soft marks as names).
    if (!mark && text.length <= 40) {
      // A numbered heading ("1. Free plan") says the same without its number.
      const words = isHeading(el) ? text.replace(/^\d{1,2}[.)]\s+/, "") : text;
      const soft = onRequest ? null : softAmount(words);
      if (soft !== undefined) mark = softMark(el, text, soft);
      else if (isHeading(el)) {
        // A heading that names its offer and prices it in words ("1. Shared Agora: name your price").
        const line = labelledSoftLine(words);
        if (line && plausibleName(line.label)) mark = { ...softMark(el, text, line.amount), lead: line.label };
      }
    }
    // "Always free for eligible open source projects and NGOs": a heading that gives its offer away to whom it names.
    // Only as an offer one can take: beside a button or link in a block of its own, not a slogan over a section.
    if (!mark && isHeading(el) && text.length <= FREE_FOR_MAX_CHARS) {
      const whom = freeFor(text);
      if (whom && withAction(index, el)) mark = { ...softMark(el, text, 0), lead: whom };
    }
    if (mark) {
      marks.push(mark);
      if (parent !== -1) markedInside[parent] = 1;
    }
  }
  return marks.filter((mark) => !dead.has(mark)).sort((a, b) => index.at(a.el) - index.at(b.el));
}

/**
 * An element's own price whose period is written after it inside the element, in a part that is a mark of its own
 * ("$39<span> /year or $4/mo</span>"): the period said between the price and the next one is its period.
 */
function withInnerPeriod(el: Element, prices: ParsedPrice[]): ParsedPrice[] {
  if (prices.length !== 1 || prices[0]!.period !== null) return prices;
  const full = markText(el);
  if (full.length > MARK_MAX_CHARS) return prices;
  const stated = statedPrices(full).filter((p) => p.amount !== null && p.currency !== null);
  const at = stated.findIndex((p) => p.amount === prices[0]!.amount && p.currency === prices[0]!.currency);
  if (at === -1) return prices;
  const period = detectPeriod(full.slice(stated[at]!.end, stated[at + 1]?.start));
  return period ? [{ ...prices[0]!, period }] : prices;
}

/** Elements that mark a phrase inside a line rather than make a line of their own. */
const PHRASE_TAGS = new Set(["strong", "b", "em", "i", "span", "small", "big", "mark", "u"]);

/**
 * A price in bold inside a paragraph of running text ("The blogging basics are <strong>free forever</strong>. Upgrade
 * any time … for <strong>$39/year</strong> or <strong>$4/month</strong>."): a sentence states it.
 */
export function phraseOfParagraph(index: ElementIndex, el: Element): boolean {
  if (!PHRASE_TAGS.has(tagName(el))) return false;
  let block: AnyNode | null = el.parent;
  while (block && isElement(block) && PHRASE_TAGS.has(tagName(block))) block = block.parent;
  if (!block || !isElement(block) || tagName(block) !== "p") return false;
  if (index.visibleChars(block) > MARK_MAX_CHARS) return true;
  // A shorter paragraph is running text when the words around the phrase make a sentence.
  const around = collapse(textContent(block)).replace(collapse(textContent(el)), " ");
  return (around.match(/\p{L}{2,}/gu) ?? []).length >= SENTENCE_WORDS;
}

/** Words around a phrase that make its paragraph a sentence, not a price line ("Pro: <b>$10</b> per month"). */
const SENTENCE_WORDS = 8;

/**
 * The result of a calculation written beside it: the text just before the element ends with "=" (`<code>1 million
 * requests × $.15/GB</code> = <strong>$18.3 /month</strong>`). What a customer would pay, not a price.
 */
function calculationResult(el: Element): boolean {
  let previous: AnyNode | null = el.prev;
  while (previous && previous.type === "text" && (previous as { data: string }).data.trim() === "")
    previous = previous.prev;
  return previous?.type === "text" && /=\s*$/.test((previous as { data: string }).data);
}

/** "Hobby — free", "Enterprise: contact us": a label of a few words, a colon or a dash, and a price in words. */
const LABELLED_SOFT_RE = /^([^:–—-]{1,30}?)\s*(?::|\s[–—-]\s|[–—])\s*(.{1,40})$/;

/** How long a heading that offers something free to someone may be. */
const FREE_FOR_MAX_CHARS = 80;
/**
 * "Free for open source", "Always free for eligible open source projects and NGOs": whom the offer is free for. Not a
 * length of time or an allowance ("Free for 14 days", "Free for up to 3 users", "Free for the first month"), nor
 * everyone ("Free for everyone", "Free forever").
 */
const FREE_FOR_RE =
  /^(?:always\s+|forever\s+|100%\s+)?free\s+for\s+(?!\d|up\s+to\b|the\s+first\b|a\s+|an\s+|one\s+|ever\b|everyone\b|everybody\b|all\b|life\b|now\b|good\b|\S+\s+(?:days?|weeks?|months?|years?)\b)(\p{L}[^.!?]{2,60}?)[.!]?$/iu;

/** The most a block holding a heading and its button may say: an offer's box, not a section. */
const OFFER_BOX_MAX_CHARS = 300;

/** A heading in a short block with a button or link of its own ("Get started"). */
function withAction(index: ElementIndex, heading: Element): boolean {
  // In a table, the heading's row is its box (the button in the next cell).
  let box = heading.parent;
  if (box && isElement(box) && /^(?:td|th)$/.test(tagName(box))) box = box.parent;
  if (!box || !isElement(box) || index.visibleChars(box) > OFFER_BOX_MAX_CHARS) return false;
  return !!index.findInside(box, (el) => /^(?:a|button)$/.test(tagName(el)) && !index.contains(heading, el));
}

function freeFor(text: string): string | null {
  const whom = FREE_FOR_RE.exec(text)?.[1] ?? FREE_PLAN_LEAD_RE.exec(text)?.[1];
  return whom ? whom.charAt(0).toUpperCase() + whom.slice(1) : null;
}

/** A heading that opens by naming a free plan and then says what it gives: "Free Plan: Unlimited public workstreams". */
const FREE_PLAN_LEAD_RE = /^(free\s+(?:plan|tier|account|edition))\s*:\s+\S/i;

/** A line that prices its label in words ("Basics: free", "Shared Agora: name your price"), or null. */
export function labelledSoftLine(text: string): { label: string; words: string; amount: 0 | null } | null {
  const line = LABELLED_SOFT_RE.exec(text);
  const amount = line ? softAmount(line[2]!) : undefined;
  return line && amount !== undefined ? { label: line[1]!, words: line[2]!, amount } : null;
}

/** What a whole text prices without a number: 0 for "Free", null for "Contact us", undefined for anything else. */
export function softAmount(text: string): 0 | null | undefined {
  return FREE_TEXT_RE.test(text) ? 0 : CONTACT_TEXT_RE.test(text) ? null : undefined;
}

/** A price without a number: "Free" (0) or "Contact us" (null), stated by `el`'s text. */
export function softMark(el: Element, text: string, amount: 0 | null): PriceMark {
  return {
    el,
    standalone: true,
    text,
    window: text,
    options: [{ amount, currency: null, period: null, billing: null }],
    soft: true,
    struck: false,
    increment: false,
    prose: false,
  };
}

function newMark(el: Element, text: string, prices: ParsedPrice[], index: ElementIndex, struck: boolean): PriceMark {
  // The text after the price and the options read from it are worked out when first asked for: a page of a hundred
  // thousand prices is read for its first MAX_PRICE_MARKS (index.ts), and the rest are never asked.
  let window: string | undefined;
  let options: PriceOption[] | undefined;
  return {
    el,
    standalone: standalonePrice(text),
    text,
    get window() {
      return (window ??= `${text} ${textAfter(el, index)}`);
    },
    set window(value: string) {
      window = value;
    },
    get options() {
      if (options === undefined) {
        const after = textAfter(el, index, prices.length === 1 ? prices[0]!.currency : null);
        options = withSwitchedOption(optionsOf(prices, `${text} ${after}`, el), el, struck);
      }
      return options;
    },
    set options(value: PriceOption[]) {
      options = value;
    },
    soft: false,
    struck,
    increment: INCREMENT_RE.test(text),
    prose: false,
  };
}

/** One price shown, and the other side of its billing switch kept in data attributes (toggles.ts), when it has one. */
function withSwitchedOption(options: PriceOption[], el: Element, struck: boolean): PriceOption[] {
  if (options.length !== 1 || struck) return options;
  const shown = options[0]!;
  const switched = switchedOption(el, shown);
  if (!switched) return options;
  // The price shown is billed on the switch's other side: monthly beside a yearly one, yearly beside a monthly one.
  return [{ ...shown, billing: shown.billing ?? (switched.billing === "month" ? "year" : "month") }, switched];
}

/**
 * The lines of a text that states several prices each after a label of its own ("Memory - $10 / GB per month vCPU -
 * $20 / vCPU per month"), or null when the prices are options of one thing ("$10/year or $1/month", "$29 monthly, $290
 * yearly"): what stands between two prices must name something, not only say how it is billed.
 */
function labelledLines(
  text: string,
  prices: StatedPrice[],
): { text: string; lead: string; price: StatedPrice }[] | null {
  const source = collapse(text);
  // The label before each price: the words between the previous price (with its period words and bracketed
  // conversion) and this one.
  const labelStarts = prices.map((price, k) => {
    const from = k === 0 ? 0 : prices[k - 1]!.end;
    const between = source.slice(from, price.start);
    const words = [...between.matchAll(/\S+/g)];
    let first = 0;
    let depth = 0;
    for (; first < words.length; first++) {
      const word = words[first]![0];
      depth += (word.match(/\(/g)?.length ?? 0) - (word.match(/\)/g)?.length ?? 0);
      const bare = word.replace(/^[^\p{L}]+/u, "");
      // "pro Monat" says per what; "Pro – $29/month" names the Pro plan.
      const planPro = /^(?:pro|im)$/i.test(bare) && !GERMAN_PER_WHAT_RE.test(words[first + 1]?.[0] ?? "");
      if (depth > 0 || /[()]/.test(word) || !/\p{L}/u.test(word) || (COMPANION_WORD_RE.test(bare) && !planPro))
        continue;
      break;
    }
    return first < words.length ? from + words[first]!.index! : price.start;
  });
  if (!labelStarts.slice(1).every((at, k) => at < prices[k + 1]!.start)) return null;
  return prices.map((price, k) => ({
    text: source.slice(labelStarts[k]!, k + 1 < prices.length ? labelStarts[k + 1] : undefined).trim(),
    lead: source.slice(labelStarts[k]!, price.start).trim(),
    price,
  }));
}

/** "Label - Free" / "Label: free" inside a longer text: the word "free" after a label and a separator. */
const FREE_LINE_RE = /\p{L}[^\p{L}\p{N}]{0,2}?\s*[-–—:]\s*(free)\b(?!\s*(?:trial|for|to|of|with|until|shipping))/giu;

/**
 * The prices a text states, with each "Free" that prices a label of its own among them ("Android - Free Ios - 3.99$"):
 * the lines of one plan's prices per platform or per part. Only beside a stated price (a text that says nothing but
 * "Label - Free" is no price line).
 */
function withFreeLines(text: string, stated: readonly StatedPrice[]): StatedPrice[] {
  const source = collapse(text);
  if (!/free/i.test(source)) return [...stated];
  const free: StatedPrice[] = [];
  for (const match of source.matchAll(FREE_LINE_RE)) {
    const start = match.index! + match[0].length - match[1]!.length;
    free.push({ amount: 0, currency: null, period: null, isFree: true, start, end: start + match[1]!.length });
  }
  return free.length === 0 ? [...stated] : [...stated, ...free].sort((a, b) => a.start - b.start);
}

/** One word of those that go with a price (PRICE_COMPANION_RE), whole. */
/** What German "pro" or "im" says a price is per: "pro Monat", "im Jahr", "pro Nutzer". */
const GERMAN_PER_WHAT_RE = /^(?:monat|jahr|nutzer|benutzer|user|platz|arbeitsplatz|mitglied|lizenz|gerät|stunde|tag)/i;
const COMPANION_WORD_RE =
  /^(?:per|a|an|each|user|users|seat|seats|member|members|month|months|monthly|mo|year|years|yearly|annually|annual|yr|billed|paid|only|from|starting|at|just|now|then|excl|incl|vat|tax|taxes|usd|eur|gbp|or|and|forever|one-time|once|payment|pro|im|monat|jahr|gb|mb|tb|hour|hours|minute|minutes|request|requests)[.,;:/]*$/i;

/**
 * A paragraph that says an offer is priced on request: "we offer the ability to customize the pricing and service
 * contract…", "Customized plan to suit your needs", "contact our sales team for a quote".
 */
const ON_REQUEST_RE =
  /\bcustomi[sz](?:e|ed|able)\b[^.]{0,40}\b(?:pric|plan|contract|quote)|\bcustom\s+(?:pricing|plan|quote|contract)s?\b|\b(?:contact|reach\s+out\s+to|talk\s+to|get\s+in\s+touch\s+with)\s+(?:us|sales|our\s+sales(?:\s+team)?)\b[^.]{0,60}\b(?:pric|quote)/i;

/**
 * A heading that names an offer priced on request: its first paragraph says so and states no amount ("## Enterprise
 * pricing" over "…customize the pricing and service contract… reach out to us"). The offer is a record without an
 * amount, named by the heading. `contactOnly`: a paragraph that only asks to get in touch counts too (for a heading
 * among headings of plans, context.ts).
 */
export function onRequestHeading(el: Element, index: ElementIndex, options: { contactOnly?: boolean } = {}): boolean {
  if (!isHeading(el) || index.visibleChars(el) > 40) return false;
  // Its first paragraph, after a feature list at most, before the next heading.
  let paragraph: Element | null = null;
  for (let next = el.next, blocks = 0; next && blocks < 3 && !paragraph; next = next.next) {
    if (!isElement(next)) continue;
    if (isHeading(next)) break;
    blocks++;
    if (tagName(next) === "p") paragraph = next;
    else if (!/^(?:ul|ol)$/.test(tagName(next))) break;
  }
  if (!paragraph || index.visibleChars(paragraph) > 400) return false;
  const text = collapse(textContent(paragraph));
  const name = nameText(el).replace(/\s+(?:pricing|prices)$/i, "");
  if (/\d/.test(text.replace(/\S+@\S+/g, "")) || !plausibleName(name)) return false;
  return ON_REQUEST_RE.test(text) || (options.contactOnly === true && CONTACT_LINE_RE.test(text));
}

/** A paragraph that only asks to get in touch ("Send us an email to sales@…"): an offer on request among plans. */
const CONTACT_LINE_RE =
  /^(?:please\s+)?(?:send\s+us\s+an\s+email|e-?mail\s+us|contact\s+(?:us|me|sales|our\s+sales\s+team)|get\s+in\s+touch|reach\s+out|talk\s+to\s+(?:us|sales))\b/i;

/**
 * The title of a link inside running text ("…please refer to the blog post <a>Unlimited Kagi searches for $10 per
 * month</a>."): it names another page, it offers nothing here. A link that is a price line of its own (a buy button,
 * "Upgrade for <a>$10/month</a>") is not one: its words are few beside the sentence around it.
 */
const BLOCK_IN_LINK_RE = /^(?:div|p|figure|h[1-6]|ul|ol|section|article|header|footer)$/;

function inlineLinkTitle(el: Element, index: ElementIndex): boolean {
  let link: Element | null = null;
  for (let node: AnyNode | null = el, depth = 0; node && isElement(node) && depth < 3; node = node.parent, depth++)
    if (tagName(node) === "a") link = node;
  if (!link || !link.parent || !isElement(link.parent)) return false;
  // A link around blocks (a whole card made clickable: `<a><figure>$100</figure><div><h2>Student</h2>…</div></a>`) is
  // no title in running text.
  if (index.findInside(link, (inner) => BLOCK_IN_LINK_RE.test(tagName(inner)))) return false;
  const block = link.parent;
  // Running text is the block's own words around the link: a column of button links (each "Full access on iOS €10")
  // has none, however long the other buttons are.
  const around = ownWords(block);
  const words = collapse(textContent(link))
    .split(/\s+/)
    .filter((word) => /\p{L}{2}/u.test(word)).length;
  return words >= 4 && around >= 60;
}

/** How many characters of words an element holds in its own text nodes, counted once per element. */
function ownWords(el: Element): number {
  let count = ownWordCounts.get(el);
  if (count === undefined) {
    count = 0;
    for (const child of el.children)
      if (child.type === "text") count += collapse((child as { data: string }).data).length;
    ownWordCounts.set(el, count);
  }
  return count;
}

/** ownWords' answers: a block of a hundred thousand links is counted once, not once per link. */
const ownWordCounts = new WeakMap<Element, number>();

/**
 * A footnote's marker: a link around a superscript ("$40/month per seat<a href="#seats"><sup>1</sup></a>"). A
 * superscript alone may be a price's cents ("35€<sup>99</sup>").
 */
function footnoteMarker(el: Element): boolean {
  if (tagName(el) !== "a") return false;
  const inner = el.children.filter((child) => isElement(child) || collapse(textContent(child)) !== "");
  return inner.length === 1 && isElement(inner[0]!) && tagName(inner[0]) === "sup";
}

/** A discount on the first few of something: "Your first 3 seats are 50% off", "50% off your first 2 months". */
const FIRST_FEW_RE = /\bfirst\s+(?:\d{1,3}|two|three|four|five|six)\b/i;

/**
 * `text` without the lines of `el` (split at its `br`s) that state a discount on the first few of something and no
 * amount of money; `text` itself when there are no such lines, or when a line priced with a discount would remain.
 */
function withoutFirstFewDiscount(el: Element, text: string): string {
  if (!el.children.some((child) => isElement(child) && tagName(child) === "br")) return text;
  const lines: string[] = [""];
  for (const child of el.children) {
    if (isElement(child) && tagName(child) === "br") lines.push("");
    else lines[lines.length - 1] += textContent(child);
  }
  const kept = lines.map(collapse).filter((line) => {
    if (!NOT_A_PRICE_RE.test(line)) return true;
    return !(FIRST_FEW_RE.test(line) && firstPriceIndex(line) === null);
  });
  return kept.length < lines.length ? kept.join(" ") : text;
}

/** Prices a paragraph's own text states, one mark per sentence (at most a few per element). */
function proseMarks(el: Element, index: ElementIndex): PriceMark[] {
  const own = ownText(el);
  if (!/\d/.test(own)) return [];
  const out: PriceMark[] = [];
  for (const sentence of own.split(/(?<=[.!?;])\s+/)) {
    if (out.length >= 8) break;
    if (!/\d/.test(sentence) || sentence.length > 400 || DISCOUNT_RE.test(sentence)) continue;
    const stated = statedPrices(sentence).filter((p) => p.amount !== null && p.currency !== null);
    const prices: ParsedPrice[] = stated.length > 0 ? stated : creditPrices(sentence);
    if (prices.length === 0) {
      const free = freeAllowance(el, sentence, index);
      if (free) out.push(free);
      continue;
    }
    const offers = stated.length > 1 ? enumeratedOffers(sentence, stated) : null;
    if (offers) {
      for (const offer of offers)
        out.push({
          ...newMark(el, offer.text, [offer.price], index, false),
          window: offer.text,
          lead: offer.name,
          prose: true,
        });
      continue;
    }
    out.push({ ...newMark(el, sentence, prices, index, false), window: sentence, prose: true });
  }
  return out;
}

/** A name and the bracket its price opens: "Premium ($199/month", "Enterprise (starting at $2500/month". */
const ENUMERATED_RE = /(\p{Lu}[\p{L}\p{N}-]*(?:\s+\p{Lu}[\p{L}\p{N}-]*){0,2})\s*\([^()]{0,20}$/u;

/**
 * The offers a sentence enumerates, each named before its price in brackets ("a Standard ($29/month), Premium
 * ($199/month), or Enterprise (starting at $2500/month) package"): one offer per price, not one offer with three.
 * Null unless every price stands so, under names all different.
 */
function enumeratedOffers(
  sentence: string,
  prices: StatedPrice[],
): { name: string; text: string; price: StatedPrice }[] | null {
  const offers: { name: string; text: string; price: StatedPrice }[] = [];
  for (const [k, price] of prices.entries()) {
    const before = sentence.slice(k === 0 ? 0 : prices[k - 1]!.end, price.start);
    const named = ENUMERATED_RE.exec(before);
    if (!named) return null;
    const start = price.start - before.length + named.index;
    const close = sentence.indexOf(")", price.end);
    offers.push({ name: named[1]!, text: sentence.slice(start, close === -1 ? price.end : close + 1), price });
  }
  return new Set(offers.map((offer) => offer.name.toLowerCase())).size === offers.length ? offers : null;
}

/**
 * A price in the credits a product sells ("1000 minutes of 1 virtual CPU for Linux for 5 compute credits", "costs 2
 * credits per image"): what is bought comes before "for N credits", or the credits are per a unit of use. An amount of
 * credits per month or year is an allowance ("10,000 credits per month"), not a price. The amount is in credits, so
 * it has no currency.
 */
const CREDIT_PRICE_RE =
  /\b(?:for|costs?|at|uses?|consumes?)\s+(\d[\d,.]*)\s+(?:[\p{L}-]+\s+)?credits?\b(?!\s*(?:per|\/|a|each|every)\s*(?:month|year|mo|yr|day|week)\b)|\b(\d[\d,.]*)\s+(?:[\p{L}-]+\s+)?credits?\s+(?:per|\/)\s*(?!(?:month|year|mo|yr|day|week)\b)(?=\S)/iu;

/** Words that make an amount of credits an allowance: "includes 500 credits per seat", "get 10 credits per invite". */
const CREDIT_ALLOWANCE_RE =
  /\b(?:includes?|including|included|get|gets|receive|receives|comes?\s+with|with|up\s+to|bonus|free|earn|earns|grant|granted)\b/i;

function creditPrices(text: string): ParsedPrice[] {
  if (!/credit/i.test(text)) return [];
  const match = CREDIT_PRICE_RE.exec(text);
  if (!match || CREDIT_ALLOWANCE_RE.test(text.slice(Math.max(0, match.index - 40), match.index + 8))) return [];
  const amount = parseAmount(match[1] ?? match[2]!);
  return amount === null ? [] : [{ amount, currency: null, period: null, isFree: amount === 0 }];
}

/** Words that go with a price without saying what it is for: currency, period, billing, "from". */
const PRICE_COMPANION_RE =
  /\b(?:per|a|an|each|user|users|seat|seats|member|members|month|months|monthly|mo|year|years|yearly|annually|annual|yr|billed|paid|only|from|starting|at|just|now|then|excl|incl|vat|tax|taxes|usd|eur|gbp|or|and|forever|one-time|once|payment|pro|im|monat|jahr)\b\.?/gi;

/** The price is (nearly) all the text says: what is left without amounts, currency and period words is short. */
function standalonePrice(text: string): boolean {
  let known = standalone.get(text);
  if (known === undefined) {
    if (standalone.size >= 20_000) standalone.clear();
    standalone.set(text, (known = readStandalone(text)));
  }
  return known;
}
const standalone = new Map<string, boolean>();

function readStandalone(text: string): boolean {
  const rest = text
    .replace(/[\d.,'’\s]+/g, " ")
    .replace(/\p{Sc}/gu, " ")
    .replace(PRICE_COMPANION_RE, " ")
    .replace(/[^\p{L}]+/gu, "");
  return rest.length <= 12;
}

/**
 * An element's text as it reads: a line break (`<br>`) or a block inside it separates words ("billed annually<br>or"
 * is not "annuallyor"), inline elements do not ("<span>$</span><span>49</span>" is "$49").
 */
function markText(el: Element): string {
  // A footnote's marker linked after the price ("$40/month per seat<a href="#seats"><sup>1</sup></a>") is no part of
  // its text: "seat1" would hide the seat.
  const marker = el.children.find((child) => isElement(child) && tagName(child) === "a" && footnoteMarker(child));
  if (marker) {
    const parts = el.children.map((child) =>
      child === marker
        ? ""
        : isElement(child) && BREAKING_TAGS.has(tagName(child))
          ? ` ${blockText(child)} `
          : textContent(child),
    );
    return collapse(parts.join(""));
  }
  if (!el.children.some((child) => isElement(child) && BREAKING_TAGS.has(tagName(child)))) {
    return collapse(textContent(el));
  }
  return collapse(blockText(el));
}
const BREAKING_TAGS = new Set([
  "br",
  "p",
  "div",
  "li",
  "ul",
  "ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "tr",
  "td",
  "th",
]);

/** The text of an element's own text children, collapsed. */
function ownText(el: Element): string {
  return collapse(
    el.children
      .map((child) =>
        child.type === "text" ? (child as { data: string }).data : isElement(child) ? currencyOnly(child) : "",
      )
      .filter((text) => text !== "")
      .join(" "),
  );
}

/**
 * The text of an element that holds only a currency sign or code (`<sup>$</sup>` before a price's digits, set as
 * text of its parent), else "". It belongs to the parent's own text: `<sup>$</sup>9<sup>99</sup>` is $9.99.
 */
function currencyOnly(el: Element): string {
  if (el.children.length !== 1 || el.children[0]!.type !== "text") return "";
  const text = collapse((el.children[0] as { data: string }).data);
  if (text === "" || text.length > 3 || /[\d\s]/.test(text)) return "";
  return statedPrices(`${text}1`).some((p) => p.currency !== null && p.amount === 1 && p.start === 0) ? text : "";
}

/** The mark's element, or an ancestor within two levels, is struck through. */
function isStruckMark(el: Element): boolean {
  let current: AnyNode | null = el;
  for (let depth = 0; depth < 3 && current && isElement(current); depth++, current = current.parent) {
    if (isStruck(current)) return true;
  }
  // A struck part inside the mark (`<span>$<del>49</del></span>`: the currency outside it) makes it a list price.
  return el.children.some((child) => isElement(child) && isStruck(child));
}

/** The amounts of the struck marks inside `el`. The marks of `el`'s descendants are the last ones pushed. */
function struckAmountsInside(index: ElementIndex, el: Element, marks: PriceMark[]): Set<number> {
  const amounts = new Set<number>();
  for (let k = marks.length - 1; k >= 0 && index.contains(el, marks[k]!.el); k--) {
    const mark = marks[k]!;
    if (!mark.struck) continue;
    for (const option of mark.options) if (option.amount !== null) amounts.add(option.amount);
  }
  return amounts;
}

/**
 * The bare two digits inside `el` right after its whole amount `bare`, with nothing but spacing between them in its
 * text (`$9 99/month`): the amount's cents. The marks of `el`'s descendants are the last ones pushed.
 */
function centsAfter(
  index: ElementIndex,
  el: Element,
  bare: PriceMark,
  text: string,
  marks: PriceMark[],
): PriceMark | null {
  const whole = bare.text.trim();
  for (let k = marks.length - 1; k >= 0 && index.contains(el, marks[k]!.el); k--) {
    const mark = marks[k]!;
    if (mark === bare || mark.struck || !/^\d{2}$/.test(mark.text.trim()) || mark.options[0]?.currency !== null)
      continue;
    if (index.at(mark.el) < index.at(bare.el)) continue;
    const digits = mark.text.trim();
    if (new RegExp(`(?:^|\\D)${whole}\\s*${digits}(?!\\d)`).test(text)) return mark;
  }
  return null;
}

/**
 * What a bare number (no currency of its own) inside a price element is beside that element's own price: its cents
 * when it is two digits set as cents (`35€<sup>99</sup>`, `$29<span>99</span>` with nothing between), the list price
 * the price replaces when it is higher and stands apart (`10$ <span class="discounted">20</span>`), else nothing said.
 */
function bareBeside(el: Element, bare: PriceMark, price: ParsedPrice): "cents" | "list" | null {
  if (bare.struck || bare.el.parent !== el || !/^\s*\d+(?:[.,]\d+)?\s*$/.test(bare.text)) return null;
  const amount = bare.options[0]?.amount;
  if (amount == null || price.amount === null) return null;
  const previous = bare.el.prev;
  const touching = previous?.type === "text" && /\S$/.test((previous as { data: string }).data);
  if (/^\d{2}$/.test(bare.text.trim()) && Number.isInteger(price.amount) && (tagName(bare.el) === "sup" || touching))
    return "cents";
  return amount > price.amount ? "list" : null;
}
