/**
 * Pricing records of a page, read without knowing its layout (docs/real-pages.md). Every price on the page is found
 * first (marks.ts); then each reader, from the most to the least reliable, names the prices the previous ones left:
 *
 * 1. structured data: JSON-LD, microdata, product meta tags (offers.ts) — `origin: "jsonld"`;
 * 2. comparison tables: a price under a header row takes its column's name (grids.ts, `<table>` and ARIA grids) —
 *    `origin: "table"`;
 * 3. records from repetition: sibling subtrees of one shape, each named by its most prominent text before its price
 *    (records.ts, names.ts): cards, grid columns, table rows — `origin: "card"`;
 * 4. rows of plain elements under a row of names (grids.ts) — `origin: "table"`;
 * 5. context: a price nothing named is still a record, named by its section heading and its line's label
 *    (context.ts) — `origin: "context"`, the least confident.
 *
 * Records are keyed by name (plan.ts); one name read twice (a monthly and an annual pane) is one record with both
 * prices. Add-ons and usage meters are records of their own kind.
 */
import type { PriceKind, PriceOption, PricingPlan } from "../../types.js";
import {
  blockText,
  classAndId,
  collapse,
  isElement,
  isHeading,
  tagName,
  shortText,
  textContent,
  type AnyNode,
  type Element,
} from "../../parse/html.js";
import { ElementIndex } from "../../parse/tree.js";
import type { JsonLd } from "../jsonld.js";
import { maskVolatile } from "../../parse/mask.js";
import { afterLabel, contextRecords, listItemOf, purchaseLead, wordsBefore } from "./context.js";
import {
  ColumnLabels,
  findColumnLabels,
  findDefinitionRecords,
  findGridRecords,
  findSplitColumns,
  repeatedColumnWords,
  featureValues,
} from "./grids.js";
import { findMarks, type PriceMark } from "./marks.js";
import { detectBilling, detectPeriod, firstPriceIndex, parsePrice, usageUnit } from "./money.js";
import { nameText, priceRowLabel } from "./names.js";
import { pricingFromStructuredData } from "./offers.js";
import { makePlan, planKey, priceOptions } from "./plan.js";
import { contactRecords, findRecords, labelledLineOf } from "./records.js";

// ---------------------------------------------------------------------------------------------------------------
// What a record is: plan, add-on or usage meter

/** Names that sell something beside a plan: "SSO add-on", "Extra seats", "Additional storage". */
const ADDON_NAME_RE = /\badd-?ons?\b|^(?:extra|additional)\b/i;
/** Sections of add-ons: "Add-ons", "Extras", "Optional extras", "Power-ups", "Additional products". */
const ADDON_SECTION_RE =
  /\b(?:add-?ons?|extras|power-?ups?|boosters?|additional\s+(?:products|services|features|options))\b/i;
/** Containers classed or named for add-ons. */
const ADDON_CLASS_RE = /add-?ons?|extras/i;
/** A record is never the page itself. */
const PAGE_TAGS = new Set(["html", "body", "main"]);

/**
 * What a priced record is: a usage meter when its price is per unit of use, an add-on when its price is an increment,
 * or its name, a container or the heading of its section says so; else a plan.
 */
function kindOf(
  index: ElementIndex,
  name: string,
  mark: PriceMark | undefined,
  record: Element,
  section: string | null,
): PriceKind {
  if (mark && usageUnit(mark.window) !== null) return "usage";
  if (ADDON_NAME_RE.test(name) || mark?.increment) return "addon";
  for (let el: AnyNode | null = record, depth = 0; el && isElement(el) && depth < 8; el = el.parent, depth++) {
    if (PAGE_TAGS.has(tagName(el))) break;
    if (ADDON_CLASS_RE.test(classAndId(el))) return "addon";
  }
  return section !== null && ADDON_SECTION_RE.test(section) ? "addon" : "plan";
}

/**
 * The prices read off one page, in page order. The largest real pricing pages state a few hundred (a cloud's price
 * list); a body of tens of thousands is hostile, and reading its first ones keeps the readers' cost bounded.
 */
export const MAX_PRICE_MARKS = 5_000;
/** At most this many visible characters in the element around a struck price and the promotion beside it. */
const SIDE_BY_SIDE_MAX_CHARS = 200;

/** What a meter's price is per: "GB memory" in "$130 / GB memory per month", "1,000 requests" in "$5 per 1,000 requests". */
const METER_UNIT_RE =
  /(?:\/|\bper\b|\beach\b)\s*([^/]{1,40}?)\s*(?:(?:\/|\bper\b|\ba\b)\s*(?:month|year|mo|yr|hour|hr|day|minute)\b.*)?[.,;:]?$/i;

/** A price written as an increment per something ("+ $10 per extra seat", "+£1299 per cluster"). */
const isMeteredIncrement = (mark: PriceMark): boolean => mark.increment && METER_UNIT_RE.test(mark.text);

/**
 * What an increment buys: "Additional cluster" for "+£1299 per cluster", "extra seat" as it says, "device" for a meter
 * ("+ 0.99 € /device").
 */
function incrementName(mark: PriceMark): string {
  // "+ £995/year per cluster support": per cluster support, the year being its period.
  const unit = (METER_UNIT_RE.exec(mark.text)?.[1]?.trim() ?? usageUnit(mark.text) ?? "").replace(
    /^(?:month|year|mo|yr|annum)\s+(?:per|each)\s+/i,
    "",
  );
  // A price per unit of use ("+ 0.99 € /device") is a meter named by its unit.
  if (usageUnit(mark.text) !== null || /^(?:additional|extra|each)\b/i.test(unit)) return unit;
  return unit === "" ? "Additional" : `Additional ${unit}`;
}

/** Sections and blocks of questions and answers, whose prices are mentions. */
const FAQ_RE = /\bfaqs?\b|frequently\s+asked|\bquestions?\b|\?\s*$/i;
const FAQ_CLASS_RE = /faq|accordion|question|collapse|details/i;
/** Answers and worked examples: "Yes, …", "No, …", "If your usage…", "For example, …", "e.g.". */
const EXAMPLE_RE = /^(?:yes|no|if|when)\b|\bfor\s+(?:example|instance)\b|\be\.g\./i;

/** How long a button that prices a variant of its offer may be. */
const VARIANT_BUTTON_CHARS = 60;
/** Words that make "with …" a billing option or a discount, not more of the offer: "with annual billing". */
const NOT_VARIANT_RE =
  /\b(?:billing|billed|annual(?:ly)?|monthly|yearly|discount|off|save|saving|trial|code|coupon|vat|tax(?:es)?|fees?)\b/i;

/**
 * "with Upgrades & Support" on the line right after a short button's price (`<a><big>$394</big><small>with Upgrades &
 * Support</small></a>` in the Komodo IDE card): the offer with more in it, a variant of its own. Null otherwise.
 */
function variantAfter(index: ElementIndex, mark: PriceMark): string | null {
  const button = mark.el.parent;
  if (!button || !isElement(button) || index.visibleChars(button) > VARIANT_BUTTON_CHARS) return null;
  let next = mark.el.next;
  while (next && !isElement(next) && collapse(textContent(next)) === "") next = next.next;
  if (!next || !isElement(next)) return null;
  const words = collapse(textContent(next));
  return /^with\s+\S.{2,40}$/i.test(words) && !NOT_VARIANT_RE.test(words) ? words : null;
}

/** Text as lowercase words between spaces, to find a name in a paragraph as whole words. */
const asWords = (text: string): string =>
  ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;

/**
 * A price equal to the price of a named plan its paragraph (of at most 2,000 characters) names; with `recordsOnly`, a
 * plan read from a record set or structured data, not a price read by its context.
 */
function restatesNamedPlan(
  index: ElementIndex,
  mark: PriceMark,
  plans: Map<string, PricingPlan>,
  recordsOnly = false,
): boolean {
  const price = mark.options[0]!;
  if (price.amount === null || index.visibleChars(mark.el) > 2000) return false;
  let paragraph: string | null = null;
  for (const plan of plans.values()) {
    if (plan.currency !== price.currency || !priceOptions(plan).some((option) => option.amount === price.amount))
      continue;
    // A plan read by a record set, or a price its own line names ("The **Starter** plan offers…"), not by a section.
    if ((plan.origin === "context" && (recordsOnly || plan.key.endsWith("|"))) || plan.name.length < 3) continue;
    paragraph ??= asWords(blockText(mark.el));
    if (paragraph.includes(asWords(plan.name))) return true;
  }
  return false;
}

/** A label that opens a worked example: "Example", "Examples:", "Cost Example 1:", "Pricing examples". */
const EXAMPLE_LABEL_RE = /^(?:(?:cost|pricing|price|billing|usage)\s+)?examples?(?:\s*\d{1,2})?\s*:?$/i;
/** A heading over worked examples of what is paid: "Example Fees for Online Payments", "Examples of monthly bills". */
const EXAMPLES_HEADING_RE =
  /^examples?\s+(?:of\s+)?(?:(?:monthly|yearly|annual|online|total|transaction)\s+)?(?:fees?|costs?|bills?|invoices?|calculations?|charges?|scenarios?|payments?)\b/i;

/**
 * The blocks of worked examples: after a line or heading that says "Example" ("**Cost Example 1:**", "### Examples"),
 * every block up to the next heading (for a heading, the next of its level or above) computes what a customer would
 * pay ("…the total amount charged is $9.10"), and so does the answer folded under a question asking for examples;
 * their amounts are no offer.
 */
function workedExamples(index: ElementIndex): Element[] {
  const out: Element[] = [];
  // Most pages say no "example" at all: one look at the whole text, then a pass that finds where it is written.
  const root = index.elements[0];
  if (!root || !/example/i.test(textContent(root))) return [];
  const saysExample = index.textMatches(/example/i);
  for (const el of index.elements) {
    // A folded answer whose question asks for examples ("Can I see a few pricing examples…?"): all of its answer.
    if (tagName(el) === "summary" && saysExample(el) && /\bexamples?\b/i.test(shortText(index, el, 200) ?? "")) {
      const details = el.parent;
      if (details && isElement(details) && tagName(details) === "details")
        for (const child of details.children) if (isElement(child) && child !== el) out.push(child);
      continue;
    }
    if (!/^(?:p|div|strong|b|h[2-6]|dt)$/.test(tagName(el)) || !saysExample(el)) continue;
    const opensExamples =
      (index.visibleChars(el) <= 30 && EXAMPLE_LABEL_RE.test(shortText(index, el, 30) ?? "")) ||
      (isHeading(el) && EXAMPLES_HEADING_RE.test(shortText(index, el, 60) ?? ""));
    if (!opensExamples) continue;
    // The label's line: a bold phrase stands for the paragraph around it.
    let line: Element = el;
    if (
      /^(?:strong|b)$/.test(tagName(el)) &&
      el.parent &&
      isElement(el.parent) &&
      /^(?:p|div)$/.test(tagName(el.parent))
    )
      line = el.parent;
    const level = isHeading(line) ? Number(tagName(line)[1]) : 7;
    for (let next = line.next; next && out.length < 1000; next = next.next) {
      if (!isElement(next)) continue;
      if (isHeading(next) && Number(tagName(next)[1]) <= level) break;
      if (level === 7 && (isHeading(next) || EXAMPLE_LABEL_RE.test(shortText(index, next, 30) ?? ""))) break;
      out.push(next);
    }
  }
  return out;
}

/** A price a plan sells beside its own: an add-on, or a meter when priced per unit of use. */
const addonOf = (kind: PriceKind): PriceKind => (kind === "usage" ? "usage" : "addon");

const headingLevel = (el: Element): number => Number(tagName(el).slice(1));
/** How many levels above a record its section may start: a heading further out belongs to another part of the page. */
const SECTION_LEVELS = 6;

/**
 * The heading of the section a record sits in: the nearest heading before it, within a few levels above it (not past
 * the page's body or main), that ranks above the record's own name (an h2 over h3 plan names; any heading over a name
 * that is not one).
 */
function sectionHeading(headings: Headings, index: ElementIndex, record: Element, nameEl: Element): string | null {
  // A table's caption heads its rows ("Pro Volume Pricing" and "Enterprise Volume Pricing" side by side, each with rows
  // "1-25", "26-50", …): each table's rows are read apart, not as one row's two prices.
  const caption = rowsCaption(index, record);
  if (caption !== null) return caption;
  let section: Element | null = null;
  for (let el = record.parent, level = 0; el && isElement(el) && level < SECTION_LEVELS; el = el.parent, level++) {
    if (PAGE_TAGS.has(tagName(el))) break;
    section = el;
  }
  if (section === null) return null;
  const nameLevel = isHeading(nameEl) ? headingLevel(nameEl) : 7;
  let heading = headings.before(index.at(record), nameLevel, index.at(section));
  // A heading of the names' own level before the cards' container heads them too ("## Discount pricing" over cards
  // named by h2 "Mini", "Small"): no card's name stands outside the cards.
  const container = record.parent;
  if (nameLevel <= 6 && container && isElement(container)) {
    const peer = headings.before(index.at(container), nameLevel + 1, index.at(section));
    if (peer && (!heading || index.at(peer) > index.at(heading))) heading = peer;
  }
  return heading && !index.contains(heading, record) ? shortText(index, heading, 120) : null;
}

/** The caption of the table `row` is a row of (through its `tbody`), when it is short enough to head a section. */
function rowsCaption(index: ElementIndex, row: Element): string | null {
  if (tagName(row) !== "tr") return null;
  let table: AnyNode | null = row.parent;
  if (table && isElement(table) && /^(?:tbody|thead|tfoot)$/.test(tagName(table))) table = table.parent;
  if (!table || !isElement(table) || tagName(table) !== "table") return null;
  const caption = table.children.find((child): child is Element => isElement(child) && tagName(child) === "caption");
  return caption ? shortText(index, caption, 80) : null;
}

/** The table head cell a column's name is in, when that cell states a price too; else null. */
function pricedHeadCell(index: ElementIndex, nameEl: Element, marks: PriceMark[]): Element | null {
  let cell: AnyNode | null = nameEl.parent;
  for (let depth = 0; cell && isElement(cell) && depth < 3 && tagName(cell) !== "th"; depth++) cell = cell.parent;
  if (!cell || !isElement(cell) || tagName(cell) !== "th") return null;
  const head: Element = cell;
  return marks.some((mark) => index.contains(head, mark.el)) ? head : null;
}

/**
 * The page's headings by level, for "the nearest heading before this element that ranks above level L, inside this
 * section" in logarithmic time: a page of ten thousand cards asks it ten thousand times.
 */
class Headings {
  /** Positions of the headings of each level (index 1–6), ascending. */
  private readonly byLevel: number[][] = [[], [], [], [], [], [], []];

  constructor(private readonly index: ElementIndex) {
    index.elements.forEach((el, i) => {
      // A heading that states a price ("$1000" over a plan's feature list) names no section.
      if (isHeading(el) && !(index.visibleChars(el) <= 120 && firstPriceIndex(nameText(el)) !== null))
        this.byLevel[headingLevel(el)]!.push(i);
    });
  }

  /** The nearest heading before `position`, of a level above `below`, at or after `from`; null when none. */
  before(position: number, below: number, from: number): Element | null {
    let best = -1;
    for (let level = 1; level < below && level <= 6; level++) {
      const list = this.byLevel[level]!;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]! < position) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0 && list[lo - 1]! > best) best = list[lo - 1]!;
    }
    return best >= from ? this.index.elements[best]! : null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Promotions

/** Wording that makes a shown price promotional ("first 3 months", "intro price", "limited time", "launch offer"). */
const PROMO_RE =
  /\b(?:for\s+(?:the\s+)?first\s+\d+\s+(?:months?|years?)|first\s+\d+\s+(?:months?|years?)|intro(?:ductory)?\s+(?:price|offer|rate)|limited[-\s]time|launch\s+(?:price|offer)|promo(?:tion(?:al)?)?\b)/i;
/** The list price after a promotional one: "$39/mo for 3 months, then $49/mo". */
const THEN_RE = /\bthen\s+/i;
const MAX_RECORD_TEXT = 12_000;

interface Priced {
  options: PriceOption[];
  promo: number | null;
  /** Its price is per user, seat or member, as the words right after it say. */
  perSeat?: boolean;
}

/**
 * Right after a price, that it is per user, seat or member: "$10/user/month", "$8 per seat", "$12 per active user per
 * month", "€5 je Nutzer". Not a plan's allowance ("$49/month for 5 users", "up to 10 users").
 */
const PER_SEAT_RE =
  /^[^\d]{0,24}?(?:\/|\bper\b|\beach\b|\bje\b|\bpar\b|\bpor\b)\s*(?:(?:active|billable|additional|extra|paid|team|workspace|monthly\s+active)\s+)?(?:users?|seats?|members?|editors?|agents?|licen[cs]es?|persons?|people|developers?|teammates?|collaborators?|creators?|nutzer(?:in)?|benutzer|utilisateurs?|usuarios?|utenti|utente)\b/i;

/** Whether a mark's price is per seat: the words between its amount and the next price say so. */
function perSeatMark(mark: PriceMark): boolean {
  const window = mark.window;
  const at = firstPriceIndex(window);
  if (at === null) return false;
  const after = window.slice(at).replace(/^\S*\d[\d.,]*/, "");
  return PER_SEAT_RE.test(after.slice(0, 60));
}

/** The prices of a record from its marks (readPrices), and whether its price is per seat. */
function pricesOf(
  index: ElementIndex,
  record: Element | null,
  marks: PriceMark[],
  hints: string[] = [],
): Priced | null {
  const priced = readPrices(index, record, marks, hints);
  const shown = marks.find((mark) => !mark.soft && !mark.struck) ?? marks.find((mark) => !mark.soft);
  return priced && shown && perSeatMark(shown) ? { ...priced, perSeat: true } : priced;
}

/**
 * The prices of a record from its marks: list prices (struck ones beside a lower current price make a promotion),
 * one option per price in page order. "then $49" after a promotional price, or promotional wording, makes the shown
 * price a promotion too.
 */
function readPrices(
  index: ElementIndex,
  record: Element | null,
  marks: PriceMark[],
  hints: string[] = [],
): Priced | null {
  const numeric = marks.filter((mark) => !mark.soft);
  if (numeric.length === 0) {
    const soft = marks[0];
    return soft ? { options: soft.options, promo: null } : null;
  }
  const current = numeric.filter((mark) => !mark.struck);
  const struck = numeric.filter((mark) => mark.struck);
  const options: PriceOption[] = [];
  let promo: number | null = null;
  (current.length > 0 ? current : struck).forEach((mark) => {
    const hint = hints[marks.indexOf(mark)] ?? "";
    for (const option of mark.options) {
      // A row's or pane's label says the period when the price does not ("Monthly | $10 | $20").
      const period = option.period ?? (hint ? detectPeriod(hint) : null);
      const billing = option.billing ?? (hint ? (detectBilling(hint) ?? labelBilling(hint)) : null);
      options.push({ ...option, period, billing });
    }
  });
  const first = options[0];
  if (!first || first.amount === null) return { options, promo };
  // A struck list price above the current one: list = struck, promotion = current.
  for (const mark of struck) {
    const list = mark.options[0];
    if (current.length === 0 || !list || list.amount === null) break;
    if (list.amount > first.amount! && (list.currency ?? first.currency) === first.currency) {
      promo = first.amount;
      options[0] = { ...first, amount: list.amount };
      return { options, promo };
    }
  }
  const text = record && index.visibleChars(record) <= MAX_RECORD_TEXT ? collapse(blockText(record)) : "";
  const then = THEN_RE.exec(text);
  if (then) {
    const list = parsePrice(text.slice(then.index + then[0].length, then.index + then[0].length + 40));
    if (list?.amount != null && list.amount > first.amount! && list.currency === first.currency) {
      promo = first.amount;
      options[0] = { ...first, amount: list.amount };
      return { options, promo };
    }
  }
  if (PROMO_RE.test(text)) promo = first.amount;
  return { options, promo };
}

function labelBilling(label: string): "month" | "year" | null {
  if (/\b(?:annual(?:ly)?|yearly|per\s+year|jährlich)\b/i.test(label)) return "year";
  if (/\b(?:monthly|per\s+month|monatlich)\b/i.test(label)) return "month";
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Building records

function features(index: ElementIndex, record: Element): string[] {
  const out: string[] = [];
  // Innermost list items: an item holding a nested list is its heading, not a feature.
  for (const li of index.innermost(index.inside(record).filter((el) => tagName(el) === "li"))) {
    const line = maskVolatile(collapse(blockText(li)));
    if (line && !out.includes(line)) out.push(line);
    if (out.length >= 20) break;
  }
  return out;
}

/**
 * A record's own price marks: those outside its lists and tables (features, comparisons); when it has none there, the
 * standalone prices of its lists ("€15/month" as the first feature line), never a sentence that mentions a price
 * ("Optional custom domain for €5": an add-on the context reader names). A number beats "Free" or "Contact sales".
 */
function ownPriceMarks(record: Element, marks: PriceMark[]): PriceMark[] {
  const inList = (mark: PriceMark): boolean => {
    for (let el: AnyNode | null = mark.el; el && el !== record; el = el.parent) {
      if (isElement(el) && /^(?:li|table|tr|td|ul|ol|dl)$/.test(tagName(el))) return true;
    }
    return false;
  };
  const outside = marks.filter((mark) => !inList(mark));
  const own = outside.length > 0 ? outside : marks.filter((mark) => mark.standalone);
  const numeric = own.filter((mark) => !mark.soft);
  if (numeric.length === 0) return own;
  // "Free" on a line of its own beside a line priced the same way (`<div>Free</div><div>$3.99</div>`, a price per
  // platform or per part, each marked by an icon) is one of the record's prices, not its name or a badge.
  const lines = own.filter(
    (mark) =>
      mark.soft &&
      mark.options[0]!.amount === 0 &&
      !isHeading(mark.el) &&
      numeric.some((other) => other.el.parent === mark.el.parent && tagName(other.el) === tagName(mark.el)),
  );
  if (lines.length === 0) return numeric;
  return own
    .filter((mark) => !mark.soft || lines.includes(mark))
    .map((mark) => (mark.soft ? { ...mark, soft: false } : mark));
}

function planFrom(
  name: string,
  priced: Priced,
  origin: PricingPlan["origin"],
  featureLines: string[],
  kind: PriceKind,
  context?: string,
): PricingPlan {
  const first = priced.options[0]!;
  const more =
    priced.options.length > 1 || priced.options.some((option) => option.billing) ? priced.options : undefined;
  return makePlan(
    name,
    { amount: first.amount, currency: first.currency, period: first.period },
    origin,
    featureLines,
    { kind, promoAmount: priced.promo },
    { prices: more, context, perSeat: priced.perSeat },
  );
}

/** How far a reading is trusted, to choose between two readings of one name. */
const ORIGIN_RANK: Record<PricingPlan["origin"], number> = { jsonld: 4, card: 3, table: 2, token: 1, context: 0 };

/** The same price: equal amount, currency and period (billing unsaid on one side is not a difference). */
function sameOption(a: PriceOption, b: PriceOption): boolean {
  return (
    a.amount === b.amount &&
    a.currency === b.currency &&
    a.period === b.period &&
    (a.billing == null || b.billing == null || a.billing === b.billing)
  );
}

/**
 * The same price as far as both readings say: a comparison table's "$6" without its period is the card's "$6 per
 * user / month" (a name read twice with a price in common is one record).
 */
function mayBeSame(a: PriceOption, b: PriceOption): boolean {
  return (
    a.amount === b.amount &&
    (a.currency === b.currency || a.currency === null || b.currency === null) &&
    (a.period === b.period || a.period === null || b.period === null)
  );
}

/** How much an option states beyond its amount. */
const said = (option: PriceOption): number => Number(option.currency !== null) + Number(option.period !== null);

/** The records read so far, by key, with the heading of the section each was read in. */
class Readings {
  readonly plans = new Map<string, PricingPlan>();
  private readonly sections = new Map<string, string | null>();
  /** Where on the page each record was first read, to list records in page order whatever reader found them. */
  readonly positions = new Map<string, number>();
  /**
   * Every reading as it was read, with its section: a record read twice (a card, then a comparison table's column
   * further down) shows its prices in both sections, whichever reading its record keeps.
   */
  private readonly read: { section: string | null; plan: PricingPlan }[] = [];

  /** The records in page order (structured data first, as it has no place on the page). */
  inPageOrder(): PricingPlan[] {
    const at = (plan: PricingPlan) => this.positions.get(plan.key) ?? -1;
    return [...this.plans.values()].sort((a, b) => at(a) - at(b));
  }

  /**
   * Adds a record under its key. A name read twice (a card and its comparison table's column, a monthly and an annual
   * pane) is one record: the more trusted reading stands (structured data, then a card, then a table), and it gains
   * the other's prices. But a name read again under another section heading with none of the same prices is another
   * thing priced per plan ("Postman Flows add-on pricing" by plan): it is a record of its own, named after its section.
   */
  add(plan: PricingPlan, section: string | null, position: number): void {
    const existing = this.plans.get(plan.key);
    const before = existing ? (this.sections.get(plan.key) ?? null) : null;
    const apart =
      existing !== undefined &&
      before !== section &&
      plan.amount !== null &&
      existing.amount !== null &&
      !priceOptions(plan).some((option) => priceOptions(existing).some((o) => mayBeSame(o, option)));
    this.saw(plan, section);
    if (!apart || !existing) {
      if (!existing) this.sections.set(plan.key, section);
      this.positions.set(plan.key, Math.min(position, this.positions.get(plan.key) ?? position));
      addPlan(this.plans, plan);
      return;
    }
    // Of the two, the one read under a section heading of its own is the thing priced per plan.
    if (section !== null) this.addRenamed(plan, section, position);
    else if (before !== null) {
      const existingAt = this.positions.get(existing.key) ?? position;
      this.plans.delete(existing.key);
      this.sections.set(plan.key, section);
      this.positions.set(plan.key, position);
      this.plans.set(plan.key, plan);
      this.addRenamed(existing, before, existingAt);
    } else addPlan(this.plans, plan);
  }

  /** A reading read in `section`, for `shows`. */
  saw(plan: PricingPlan, section: string | null): void {
    this.read.push({ section, plan });
  }

  /**
   * A record read under `section` already shows this price; with a `label` (what the price says it is for, "$9 per
   * additional website"), a record that bears it: "Additional user" at $9 shows no price per additional website.
   */
  shows(section: string | null, option: PriceOption, label: string | null = null): boolean {
    const named = label === null || priceRowLabel(label) ? null : asWords(label);
    for (const reading of this.read) {
      if (reading.section !== section) continue;
      const plan = reading.plan;
      if (named !== null && !asWords(plan.name).includes(named)) continue;
      if (priceOptions(plan).some((o) => sameOption(o, option)) || plan.promo_amount === option.amount) return true;
    }
    return false;
  }

  private addRenamed(plan: PricingPlan, section: string, position: number): void {
    const renamed = makePlan(
      `${section} – ${plan.name}`,
      plan,
      plan.origin,
      plan.features,
      {
        kind: ADDON_SECTION_RE.test(section) ? "addon" : (plan.kind ?? "plan"),
        promoAmount: plan.promo_amount ?? null,
      },
      { prices: plan.prices },
    );
    if (!this.plans.has(renamed.key)) {
      this.sections.set(renamed.key, section);
      this.positions.set(renamed.key, position);
    }
    addPlan(this.plans, renamed);
  }
}

/** Adds a record under its key, merging two readings of one name (see Readings.add). */
function addPlan(plans: Map<string, PricingPlan>, plan: PricingPlan): void {
  const existing = plans.get(plan.key);
  if (!existing) {
    plans.set(plan.key, plan);
    return;
  }
  const [kept, other] = ORIGIN_RANK[plan.origin] > ORIGIN_RANK[existing.origin] ? [plan, existing] : [existing, plan];
  plans.set(plan.key, kept);
  if (kept.features.length === 0) kept.features = other.features;
  if (kept.origin === "jsonld" || other.amount === null) return;
  const options = priceOptions(kept).filter((option) => option.amount !== null);
  for (const option of priceOptions(other)) {
    // Another reading that shows the promotional price (a sticky header without the struck list price) adds nothing.
    if (option.amount !== null && option.amount === kept.promo_amount) continue;
    // The same price as far as both say ("$6" in a comparison table, "$6 per user / month" on the card): one option,
    // the one that says more.
    const twin = options.findIndex((o) => mayBeSame(o, option));
    if (twin === -1) options.push(option);
    else if (said(option) > said(options[twin]!)) options[twin] = option;
  }
  if (options.length === 0) return;
  // The record's own price says as much as its option does.
  const first = options[0]!;
  if (kept.amount === first.amount) Object.assign(kept, { currency: first.currency, period: first.period });
  if (kept.amount === null)
    Object.assign(kept, {
      amount: options[0]!.amount,
      currency: options[0]!.currency,
      period: options[0]!.period,
      is_free: kept.is_free || options[0]!.amount === 0,
    });
  if (options.length > 1) kept.prices = options;
}

/**
 * All records of a page (see the module comment). `excluded` are blocks whose prices are written about, not offered
 * (changelog entries, blog posts): their prices name no record. `safely` runs each reader on its own, so an odd page
 * that trips one still yields the others' records.
 */
export function extractPricing(
  root: AnyNode,
  ld: JsonLd,
  excluded: Element[] = [],
  safely: <T>(fn: () => T, fallback: T) => T = (fn) => fn(),
  index = new ElementIndex(root),
): PricingPlan[] {
  const readings = new Readings();
  const { plans } = readings;
  for (const plan of safely(() => pricingFromStructuredData(ld), []))
    if (!plans.has(plan.key)) plans.set(plan.key, plan);

  // Prices inside changelog entries and posts are written about, not offered: no reader takes them; nor worked
  // examples ("Cost Example 1:" and what follows it).
  // A quotation (a customer's testimonial: "Acme saved us $50,000 a year") is written about too.
  const quotes = index.elements.filter((el) => tagName(el) === "blockquote" || tagName(el) === "q");
  const inExcluded = index.insideAny([...excluded, ...quotes, ...safely(() => workedExamples(index), [])]);
  const found = safely(() => findMarks(index, MAX_PRICE_MARKS), []).filter((mark) => !inExcluded(mark.el));
  // A word written again in every row of a table's column labels the column: no reader takes it as a price.
  const columnWords = safely(() => repeatedColumnWords(found), new Set<PriceMark>());
  // Nor a word that says what each plan gets of a feature ("Number of apps | Custom | Custom").
  const values = safely(() => featureValues(found), new Set<PriceMark>());
  const marks = found.filter((mark) => !columnWords.has(mark) && !values.has(mark)).slice(0, MAX_PRICE_MARKS);
  const claimed = new Set<PriceMark>();
  const headings = new Headings(index);
  const fromGrids = (mode: "tables" | "rows" | "definitions") =>
    safely(() => {
      const grids =
        mode === "definitions"
          ? findDefinitionRecords(index, marks, claimed)
          : findGridRecords(index, marks, claimed, mode);
      for (const grid of grids) {
        // "+£1299 per cluster" under a column's "£4999": an add-on the column's offer sells, not another option of its
        // price.
        const increments = grid.marks.filter(isMeteredIncrement);
        const addOns = increments.length < grid.marks.filter((mark) => !mark.soft).length ? increments : [];
        const priced = pricesOf(
          index,
          null,
          grid.marks.filter((mark) => !addOns.includes(mark)),
          grid.rowLabels.filter((_, k) => !addOns.includes(grid.marks[k]!)),
        );
        if (!priced) continue;
        grid.marks.forEach((mark) => claimed.add(mark));
        // A column named in a head cell that prices it ("<th><h2>Solo</h2>$8/mo</th>", read as a card) is in the
        // section that card is in.
        const headCell = pricedHeadCell(index, grid.nameEl, marks);
        const section = sectionHeading(headings, index, headCell ?? grid.table, grid.nameEl);
        for (const increment of addOns) {
          // The row's label says its period as it does the column's price ("Annual price").
          const metered = pricesOf(index, null, [increment], [grid.rowLabels[grid.marks.indexOf(increment)] ?? ""]);
          if (metered)
            readings.add(
              planFrom(`${incrementName(increment)} (${grid.name})`, metered, "table", [], "addon"),
              section,
              index.at(increment.el),
            );
        }
        const kind = kindOf(index, grid.name, grid.marks[0], grid.table, section);
        // A row of one offer's own table prices what that offer sells: "Cost per tunnel (inlets Personal)".
        if (grid.ofSection && section) {
          const name = `${grid.name} (${section})`;
          readings.add(planFrom(name, priced, "table", [], addonOf(kind)), null, index.at(grid.marks[0]!.el));
        } else readings.add(planFrom(grid.name, priced, "table", [], kind), section, index.at(grid.marks[0]!.el));
      }
    }, undefined);

  fromGrids("tables");
  fromGrids("definitions");
  const records: { name: string; el: Element }[] = [];
  const columnLabels = new ColumnLabels(index, marks);
  safely(() => {
    // Records are sets of blocks with a price element of their own; running text is not one (see below).
    // The records being read around the current one, outermost first (they come in page order, a card before the
    // records of its feature list).
    const around: { name: string; el: Element }[] = [];
    for (const record of findRecords(
      index,
      marks.filter((mark) => !mark.prose),
      claimed,
    )) {
      // A price on a line a label column names ("Dedicated instance | € 100") is an add-on the plan sells, not its
      // own price, unless the label says it is the price ("Monthly price").
      const candidates = ownPriceMarks(record.el, record.marks);
      const labelled = candidates.filter((mark) => {
        const label = mark.soft
          ? null
          : (columnLabels.labelOf(record.el, mark) ?? labelledLineOf(index, record.el, mark, record.nameEl));
        return label === null || priceRowLabel(label);
      });
      // A price per unit of use beside the plan's own price ("$130 / GB memory per month" under "$1550 / month") is
      // a meter the plan sells, a record of its own, not another option of the plan's price; so is a price written
      // as an increment per something ("+ $10 per extra seat" under "$49/mo") or per additional something ("then $9
      // per additional user"), an add-on.
      // So is a price for another purchase said before it ("Upgrade for $168" under a licence's "$295"), and a
      // button's price for the offer with something more ("$394 | with Upgrades & Support"), a variant of its own.
      const purchase = (mark: PriceMark) => purchaseLead(wordsBefore(index, mark));
      // What a price is for may follow its element on the line ("+<strong>USD $150</strong> per additional device").
      const forMore = (mark: PriceMark) => afterLabel(mark.text) ?? (mark.standalone ? afterLabel(mark.window) : null);
      const extra = (mark: PriceMark) =>
        isMeteredIncrement(mark) ||
        forMore(mark) !== null ||
        purchase(mark) !== null ||
        variantAfter(index, mark) !== null;
      const meters = labelled.filter((mark) => !mark.soft && (usageUnit(mark.text) !== null || extra(mark)));
      const own =
        meters.length > 0 && meters.length < labelled.filter((mark) => !mark.soft).length
          ? labelled.filter((mark) => !meters.includes(mark))
          : labelled;
      const priced = pricesOf(index, record.el, own);
      if (!priced) {
        // A plan's column that states only add-on prices still names them (below); its own price is elsewhere.
        if (own.length < candidates.length) records.push({ name: record.name, el: record.el });
        continue;
      }
      // The prices it did not take (a sentence in its feature list) stay for the context reader: never silent.
      own.forEach((mark) => claimed.add(mark));
      record.marks.filter((mark) => mark.soft).forEach((mark) => claimed.add(mark));
      while (around.length > 0 && !index.contains(around[around.length - 1]!.el, record.el)) around.pop();
      const owner = around[around.length - 1];
      const first = own.find((mark) => !mark.soft);
      // A record in a plan card's feature list ("1 project included · $150 per additional project") is an add-on as
      // that plan sells it, named by what the price is for when the line says it.
      const name = owner ? `${(first && afterLabel(first.window)) ?? record.name} (${owner.name})` : record.name;
      const section = sectionHeading(headings, index, record.el, record.nameEl);
      const read = kindOf(index, name, first, record.el, section);
      readings.add(
        planFrom(name, priced, "card", features(index, record.el), owner ? addonOf(read) : read),
        section,
        index.at(record.el),
      );
      records.push({ name, el: record.el });
      around.push({ name, el: record.el });
      if (own === labelled) continue;
      for (const meter of meters) {
        const metered = pricesOf(index, null, [meter]);
        if (!metered) continue;
        claimed.add(meter);
        const variant = variantAfter(index, meter);
        if (variant !== null) {
          readings.add(planFrom(`${name} ${variant}`, metered, "card", [], read), section, index.at(meter.el));
          continue;
        }
        const label = meter.increment
          ? incrementName(meter)
          : (forMore(meter) ??
            purchase(meter) ??
            METER_UNIT_RE.exec(meter.text)?.[1]?.trim() ??
            usageUnit(meter.text)!);
        const kind = usageUnit(meter.text) !== null ? "usage" : "addon";
        readings.add(planFrom(`${label} (${name})`, metered, "card", [], kind), section, index.at(meter.el));
      }
    }
  }, undefined);
  // Offers beside the plans priced only by "Contact us" in a block of their own (an Enterprise box below the cards).
  safely(() => {
    for (const record of contactRecords(index, marks, claimed, records)) {
      const priced = pricesOf(index, record.el, record.marks);
      if (!priced) continue;
      record.marks.forEach((mark) => claimed.add(mark));
      const section = sectionHeading(headings, index, record.el, record.nameEl);
      readings.add(
        planFrom(
          record.name,
          priced,
          "card",
          features(index, record.el),
          kindOf(index, record.name, undefined, record.el, section),
        ),
        section,
        index.at(record.el),
      );
      records.push({ name: record.name, el: record.el });
    }
  }, undefined);
  // Plans named at the head of one grid and priced in the columns of another below it.
  safely(() => {
    for (const grid of findSplitColumns(index, marks, claimed)) {
      const priced = pricesOf(index, null, grid.marks, grid.rowLabels);
      if (!priced) continue;
      grid.marks.forEach((mark) => claimed.add(mark));
      const section = sectionHeading(headings, index, grid.table, grid.nameEl);
      const kind = kindOf(
        index,
        grid.name,
        grid.marks.find((mark) => !mark.soft),
        grid.table,
        section,
      );
      readings.add(planFrom(grid.name, priced, "table", [], kind), section, index.at(grid.marks[0]!.el));
    }
  }, undefined);
  fromGrids("rows");
  // Prices a plan's column states on lines labelled in a column beside it (an add-on as that plan sells it).
  safely(() => {
    const columnOf = (mark: PriceMark) => records.find((record) => index.contains(record.el, mark.el)) ?? null;
    for (const grid of findColumnLabels(columnLabels, marks, claimed, columnOf)) {
      const priced = pricesOf(index, null, grid.marks, grid.rowLabels);
      if (!priced) continue;
      grid.marks.forEach((mark) => claimed.add(mark));
      // What a plan sells on a labelled line beside its own price is bought on top of it.
      const kind = addonOf(kindOf(index, grid.name, grid.marks[0], grid.nameEl, null));
      readings.add(planFrom(grid.name, priced, "table", [], kind), null, index.at(grid.marks[0]!.el));
    }
  }, undefined);

  // Prices in running text are read beside plans too (a documentation page states its support packages in a
  // sentence: never silent), but not an FAQ's answers nor worked examples: there they are mentions ("No, the Hobby
  // plan includes $5…", "If your usage comes to $3, you pay $5").
  const mentionOnly = (mark: PriceMark): boolean => {
    if (EXAMPLE_RE.test(mark.text)) return true;
    // An answer that states what more of something costs ("billed an extra $10 for each additional 10,000,000
    // function invocations") prices it, wherever it is written.
    if (afterLabel(mark.text) !== null) return false;
    const heading = headings.before(index.at(mark.el), 7, 0);
    if (heading && FAQ_RE.test(shortText(index, heading, 120) ?? "")) return true;
    for (let el: AnyNode | null = mark.el, depth = 0; el && isElement(el) && depth < 8; el = el.parent, depth++) {
      if (FAQ_CLASS_RE.test(`${tagName(el)} ${classAndId(el)}`)) return true;
    }
    return false;
  };
  if (plans.size > 0) for (const mark of marks) if (mark.prose && mentionOnly(mark)) claimed.add(mark);
  safely(() => {
    const seen = new Map<string, number>();
    const shown = new Set<string>();
    const priceId = (section: string | null, label: string | null, option: PriceOption) =>
      `${section ?? ""}|${label ?? ""}|${option.amount}|${option.currency}|${option.period}`;
    // The last context record read, to take in a price stated inside its own sentence or under its struck price.
    let sentence: { el: Element; plan: PricingPlan; label: string | null; struck: boolean } | null = null;
    for (const found of contextRecords(index, marks, claimed)) {
      // An offer's struck price and the lower one on its next line ("~~$9/year~~", "$0/year during beta"): its list
      // price and its promotion, as on a card.
      const now = found.mark.options[0]!;
      const list = sentence?.plan;
      // Without a label, only right beside it in one short element (a single plan's "<del>$39</del> <ins>$29</ins>").
      const besideStruck =
        sentence !== null &&
        found.label === null &&
        sentence.label === null &&
        found.mark.el.parent !== null &&
        found.mark.el.parent === sentence.el.parent &&
        isElement(found.mark.el.parent) &&
        index.visibleChars(found.mark.el.parent) <= SIDE_BY_SIDE_MAX_CHARS;
      if (
        sentence?.struck &&
        list &&
        !found.mark.struck &&
        ((found.label !== null && found.label === sentence.label) || besideStruck) &&
        now.amount !== null &&
        list.amount !== null &&
        now.amount < list.amount &&
        (now.currency ?? list.currency) === list.currency
      ) {
        list.promo_amount = now.amount;
        sentence = null;
        continue;
      }
      // A price in bold inside a sentence that states one already ("available for $449/month, paid annually comes to
      // <strong>$4,310/year</strong>") is another price of the same offer.
      // So is the same price in another currency right beside it (a currency switch's hidden side, `<span>$10</span>
      // <span hidden>€9</span>`).
      const otherMoney =
        besideStruck &&
        sentence !== null &&
        !sentence.struck &&
        now.currency !== null &&
        sentence.plan.currency !== null &&
        now.currency !== sentence.plan.currency;
      if (sentence && ((found.label === null && index.contains(sentence.el, found.mark.el)) || otherMoney)) {
        const priced = pricesOf(index, null, [found.mark]);
        if (priced) sentence.plan.prices = [...priceOptions(sentence.plan), ...priced.options];
        continue;
      }
      // A free offer a record set already reads ("Free" heading a card and again a comparison table's column).
      // So is one its section names at that price ("Free" over a "Free" card's copy further down).
      if (
        found.mark.soft &&
        (found.label !== null
          ? plans.has(planKey(found.label))
          : found.section !== null && plans.get(planKey(found.section))?.amount === now.amount)
      )
        continue;
      // A paragraph that names a plan and restates its price ("…consider the Professional plan. This plan is priced
      // at USD $10/month") is advice about that plan, not a price of its own.
      // So is a labelled line that names a plan a record set read and restates its price ("Free forever, Premium
      // $39/year or $4/month" under the page's headline).
      if ((found.mark.prose || found.label !== null) && restatesNamedPlan(index, found.mark, plans, !found.mark.prose))
        continue;
      // The same price shown again where it was read before (a mobile copy of a table, a sticky header): one record.
      // Without a label, a list's line tells a copy from another offer at the same price ("…for Linux for 5 compute
      // credits", "…for FreeBSD for 5 compute credits").
      const first = found.mark.options[0]!;
      // A labelled price inside a plan's card is that plan's add-on as it sells it: "Additional user (Starter)"; the
      // same line in another card is that plan's, no copy.
      const owner = found.label ? records.find((record) => index.contains(record.el, found.mark.el)) : undefined;
      if (!owner && readings.shows(found.section, first, afterLabel(found.mark.text))) continue;
      const line = found.label === null && listItemOf(found.mark.el) ? `“${found.mark.text}”` : found.label;
      const id = priceId(found.section, owner ? `${line} (${owner.name})` : line, first);
      if (shown.has(id)) continue;
      shown.add(id);
      const name = owner ? `${found.label} (${owner.name})` : (found.label ?? found.section ?? "Price");
      const context = owner
        ? ""
        : [found.section, found.label].filter((part): part is string => !!part && part !== name).join(" › ");
      // Keyed by where it was read, not by its amount, so a changed amount is a changed record; two prices with the
      // same context keep apart by their order under it, or by the plan that sells each.
      const key = `context:${planKey(found.section ?? "")}|${planKey(owner ? name : (found.label ?? ""))}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const priced = pricesOf(index, null, [found.mark]);
      if (!priced) continue;
      const read = kindOf(index, name, found.mark, found.mark.el, found.section);
      const kind = owner ? addonOf(read) : read;
      const plan = planFrom(n === 1 ? name : `${name} (${n})`, priced, "context", [], kind, context || undefined);
      plan.key = n === 1 ? key : `${key} (${n})`;
      if (!plans.has(plan.key)) {
        plans.set(plan.key, plan);
        // As before readings kept their sections: a context price shows its price only to one read under no heading.
        readings.saw(plan, null);
        readings.positions.set(plan.key, index.at(found.mark.el));
        sentence = { el: found.mark.el, plan, label: found.label, struck: found.mark.struck };
      }
    }
  }, undefined);
  return readings.inPageOrder();
}
