/**
 * What names a priced record: its most prominent short text before its price. Prominence is read from what any page
 * uses to make a name stand out, never from one site's classes: a heading, a class that says name/title/heading (or a
 * heading size such as Bootstrap's `h3`), bold weight, and being first. Badges ("Most popular"), calls to action
 * ("Get started"), billing words ("Monthly") and section titles ("Compare plans") are never names.
 */
import {
  classTokens,
  collapse,
  isElement,
  isHeading,
  nextElementSibling,
  tagName,
  textContent,
  type AnyNode,
  type Element,
} from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import { firstPriceIndex, isCurrencyCode } from "./money.js";

const BADGE_WORDS = "most\\s+popular|recommended|best\\s+(?:value|deal|choice|seller)|featured|beliebt|empfohlen";
const BADGE_AROUND_RE = new RegExp(
  `^(?:${BADGE_WORDS})\\s*[:–—-]?\\s+(?=\\S)|(\\S)\\s*[(–—-]?\\s*(?:${BADGE_WORDS})[)!]?$`,
  "i",
);
const BADGE_CLASS_RE = /badge|tag|pill|ribbon|label|popular|recommended|chip|flag|sticker|promo|tooltip/i;
/** Permalink anchors that documentation themes put inside headings (mkdocs' `¶`, `#`, `§`): not part of a name. */
const PERMALINK_CLASS_RE = /headerlink|anchor|permalink/i;
/** A period or unit note inside a label ("Additional user<span class="period">per month</span>"): not the name. */
const PERIOD_CLASS_RE = /(?:^|[-_\s])(?:period|interval|unit|suffix|per|billing-?period|frequency)(?:$|[-_\s])/i;
const PERMALINK_TEXT_RE = /\s*[¶§#🔗]+$/u;

/** Section headings that are not plans ("Compare plans", "Frequently asked questions") and blocks that are not offers. */
const NOT_A_PLAN_RE =
  /\b(?:plans|pricing|prices|compare|comparison|faqs?|frequently|questions|features|newsletter|reviews?|ratings?|also\s+(?:viewed|bought|like)|recently\s+viewed|related|recommended\s+for\s+you|your\s+(?:cart|basket|bag)|shipping|delivery)\b|^add-?ons?$/i;
const CALL_TO_ACTION_RE =
  /^(?:sign\s*up|get\s+(?:started|it|now)|start(?:\s+(?:free|now|trial|building|for\s+free|your\s+free\s+trial))?|try(?:\s+it)?(?:\s+(?:free|now|for\s+free))?|buy(?:\s+now)?|subscribe|choose|select|order|purchase|upgrade|downgrade|learn\s+more|read\s+more|see\s+(?:more|all|details)|contact(?:\s+\w+)?|talk\s+to\s+\w+|book\s+a\s+(?:demo|call)|request\s+a\s+(?:demo|quote)|join|register|apply(?:\s+now)?|download|current\s+plan|your\s+(?:current\s+)?plan|create\s+(?:an\s+)?account)\b/i;
const BADGE_TEXT_RE =
  /^(?:most\s+popular|popular|recommended|best\s+(?:value|deal|choice|for\s+\w+)|new|hot|sale|save\s+\d+\s*%|\d+\s*%\s+off|limited(?:\s+time)?(?:\s+offer)?|beta|featured|coming\s+soon)\b(?!\s*\()/i;
const BILLING_WORDS_RE =
  /^(?:pay[-\s]as[-\s]you[-\s]go|pre-?(?:purchased?|paid)|prepaid|on[-\s]demand|pay\s+per\s+use|metered)$|^(?:(?:billed|paid|pay)\s+)?(?:monthly|annual(?:ly)?|yearly|month|year|quarterly|weekly|daily|once|one[-\s]time|lifetime)(?:\s+(?:billing|plan|pricing|price|subscription|payment))?$|^(?:per|a|\/)\s*(?:month|year|mo|yr|user|seat|member)\b|^(?:monatlich|jährlich|mensuel|annuel)$/i;
const PRICE_WORDS_RE =
  /^(?:pre-?paid\s+)?(?:(?:monthly|annual|yearly|total|list|base|your|subscription|plan|license|licence|membership)\s+)?(?:price|pricing|prices|cost|fee|fees|total|rate|amount)s?:?(?:\s*\([^()]{1,40}\))?$|^(?:from|starting\s+(?:at|from)|only|just|was|now|then|or|and|per)$/i;

/** A row label that says "this row holds the plans' prices" ("Price", "Monthly price", "Billed annually", "Per user"). */
export function priceRowLabel(label: string): boolean {
  const text = label.replace(/[\s:：*]+$/, "").trim();
  return (
    onlyPriceWords(text) ||
    PRICE_WORDS_RE.test(text) ||
    BILLING_WORDS_RE.test(text) ||
    /^(?:(?:monthly|annual|yearly)\s+)?(?:price|pricing|cost)\s+(?:per\s+\w+|\(.*\))$/i.test(text) ||
    /^(?:price|pricing|cost)s?\b/i.test(text) ||
    // What is paid, with the currency it is paid in: "Contribution (USD)", "Amount (€)", "Fee in EUR".
    /^(?:(?:monthly|annual|yearly|one[-\s]time)\s+)?(?:price|pricing|cost|fee|amount|contribution|payment|charge|rate)s?\s*(?:\((?:[A-Z]{3}|\p{Sc})\)|in\s+[A-Z]{3})$/iu.test(
      text,
    ) ||
    // A billing option's row: "Monthly by PayPal", "Yearly by invoice (save 15-20%)" (not "Monthly active users").
    /^(?:billed\s+|paid\s+)?(?:monthly|yearly|annual(?:ly)?|quarterly|per\s+(?:month|year))\b(?!\s+(?:active|users?|visitors?|requests?|events?|page\s*views?|builds?|minutes?|emails?|credits?|sessions?))/i.test(
      text,
    )
  );
}

/**
 * A column head that says "this column holds the rows' prices": a price row label, or who charges ("Momento charges",
 * "What we charge"). Only for columns: a row labelled "Setup charge" is an offer of its own beside the plans' prices,
 * never their price row; a column headed "VM Price" beside "Total Price" holds prices of another thing.
 */
export function priceColumnLabel(label: string): boolean {
  const text = label.replace(/[\s:：*]+$/, "").trim();
  return priceRowLabel(text) || /^(?:[\p{L}-]+\s+)?charges$|^what\s+(?:we|you)\s+(?:charge|pay)$/iu.test(text);
}

/** Words that describe a price rather than name what it is for: "/ Monthly Price USD per User". */
const PRICE_LABEL_WORDS_RE =
  /\b(?:per|a|an|each|user|users|seat|seats|member|members|month|months|monthly|mo|year|years|yearly|annually|annual|yr|hour|hourly|hr|day|daily|week|weekly|minute|billed|billing|paid|pay|price|prices|pricing|cost|costs|fee|fees|rate|rates|usd|eur|gbp|chf|excl|incl|vat|tax|net|gross|only|from|starting|at|total|or|and|the|in|of)\b\.?/gi;

/** Whom a plan is for, in one word of the units prices are per: a name only as a heading. */
const WHOM_RE = /^(?:users?|members?)$/i;

/** Nothing but price-describing words and symbols: not a name. */
function onlyPriceWords(name: string): boolean {
  return name.replace(PRICE_LABEL_WORDS_RE, " ").replace(/[^\p{L}\p{N}]+/gu, "").length === 0;
}

/**
 * A text that can name a priced record. A table row's cell may say more (`rowHead`): "Data Transfer to Machine(s) in
 * the same region" names its row, where a card's name is a few words.
 */
export function plausibleName(name: string, options: { heading?: boolean; rowHead?: boolean } = {}): boolean {
  const key = `${options.heading === true ? "h" : ""}${options.rowHead === true ? "r" : ""}\u0000${name}`;
  let known = plausible.get(key);
  if (known === undefined) {
    if (plausible.size >= 20_000) plausible.clear();
    plausible.set(key, (known = readPlausibleName(name, options)));
  }
  return known;
}

/** Answers of plausibleName, once per text (a page repeats its names; the answer is a function of the text). */
const plausible = new Map<string, boolean>();

/** How long a table row's cell that names the row may be, in characters and in words. */
const ROW_HEAD_CHARS = 80;
const ROW_HEAD_WORDS = 10;

function readPlausibleName(name: string, options: { heading?: boolean; rowHead?: boolean }): boolean {
  const row = options.rowHead === true;
  return (
    name.length > 0 &&
    // A heading may name a plan by whom it is for ("User" beside "Organization"), words a label uses for a unit.
    (!onlyPriceWords(name) || (options.heading === true && WHOM_RE.test(name))) &&
    !isCurrencyCode(name) &&
    name.length <= (row ? ROW_HEAD_CHARS : 50) &&
    name.split(" ").length <= (row ? ROW_HEAD_WORDS : 6) &&
    // A sentence is no name, even in a row.
    (!row || !/[.!?]$/.test(name)) &&
    // A priced row may be named by a number, a tier of volume pricing ("10,000 | $99", "1-10 | $5").
    (row ? /[\p{L}\p{N}]/u : /\p{L}/u).test(name) &&
    !name.endsWith("?") &&
    !NOT_A_PLAN_RE.test(name) &&
    // A heading (or a name-classed element) is no button: a plan named "Select" or "Start" is a name there.
    (options.heading === true || !CALL_TO_ACTION_RE.test(name)) &&
    // A priced row's own cell names it even with a badge's word ("Beta | 10 hours | $15,000" under "Plan"): a badge
    // stands over a card, not in a row of the plans' table.
    (row || !BADGE_TEXT_RE.test(name)) &&
    !BILLING_WORDS_RE.test(name) &&
    !PRICE_WORDS_RE.test(name) &&
    firstPriceIndex(name) === null
  );
}

/**
 * A name as shown, without badges ("Pro Most popular" → "Pro"), permalink anchors ("Pro ¶"), footnote marks ("Pro**",
 * "Team<sup>1</sup>": the note belongs to the page, and a mark added later renames nothing), status notes ("Cloud
 * (Beta)") and a trailing colon.
 */
export function nameText(el: Element): string {
  // An element of one text node (most names, and every cell of a table thousands of cells wide): its cleaned text is
  // a function of that text alone, cleaned once per distinct text.
  if (el.children.length === 1 && el.children[0]!.type === "text")
    return cleanName((el.children[0] as { data: string }).data);
  const parts: string[] = [];
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "text") parts.push((node as { data: string }).data);
    else if (
      isElement(node) &&
      (node === el ||
        (tagName(node) !== "sup" &&
          !BADGE_CLASS_RE.test(node.attribs.class ?? "") &&
          !PERMALINK_CLASS_RE.test(node.attribs.class ?? "") &&
          !PERIOD_CLASS_RE.test(node.attribs.class ?? "")))
    ) {
      // A name is its first line: "<strong>Basic</strong><br>Just what you need" is Basic. A heading's second line of
      // a word or two, written right in it, goes on with the name ("<h2>Komodo IDE For<br/>Teams (5-Packs)</h2>").
      if (node !== el && tagName(node) === "br" && collapse(parts.join("")) !== "") {
        if (!(namesItself(el) && node.parent === el && continuedName(node))) break;
        parts.push(" ");
      }
      if (node !== el && /^(?:div|p|li|h[1-6])$/.test(tagName(node))) parts.push(" ");
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  return readName(parts.join(""));
}

/** A heading, or an element classed as a name or title (`<div class="title">`): it says what it names, all of it. */
export function namesItself(el: Element): boolean {
  return isHeading(el) || classTokens(el).some((token) => NAME_CLASS_RE.test(token));
}

/** Set in bold: a `strong` or `b`, or an element classed or styled bold (`<p class="font-bold">Free</p>`). */
export function emphasised(el: Element): boolean {
  return (
    /^(?:strong|b)$/.test(tagName(el)) ||
    classTokens(el).some((token) => BOLD_CLASS_RE.test(token)) ||
    BOLD_STYLE_RE.test(el.attribs.style ?? "")
  );
}

/** A line that is all bold: a paragraph or div whose text is one `strong` or `b` ("<p><strong>Basics</strong></p>"). */
export function boldLine(el: Element): boolean {
  if (!/^(?:p|div)$/.test(tagName(el))) return false;
  const children = el.children.filter((child) => isElement(child) || collapse(textContent(child)) !== "");
  const only = children.length === 1 ? children[0] : null;
  return !!only && isElement(only) && /^(?:strong|b)$/.test(tagName(only));
}

/**
 * A heading's line after `br` that goes on with its name: the last line, one or two words, not a sentence, after a
 * first line of plain text.
 */
function continuedName(br: Element): boolean {
  // Both lines written right in it: a first line set apart ("<strong>Free</strong><br>Start here") is the name alone.
  const previous = br.prev;
  if (!previous || previous.type !== "text" || collapse((previous as { data: string }).data) === "") return false;
  const next = br.next;
  if (!next || next.type !== "text" || next.next) return false;
  const line = collapse((next as { data: string }).data);
  return /^["“'(]?\p{Lu}/u.test(line) && line.split(" ").length <= 2 && !/[.!?]$/.test(line);
}

/** What a name's raw text reads as, remembered per short text (bounded: cleared past CLEANED_LIMIT texts). */
function cleanName(raw: string): string {
  // A long text is no name to remember (nor a page's text to keep alive between pages).
  if (raw.length > CLEANED_MAX_CHARS) return readName(raw);
  let name = cleaned.get(raw);
  if (name === undefined) {
    if (cleaned.size >= CLEANED_LIMIT) cleaned.clear();
    name = readName(raw);
    cleaned.set(raw, name);
  }
  return name;
}

const cleaned = new Map<string, string>();
const CLEANED_LIMIT = 20_000;
const CLEANED_MAX_CHARS = 200;

/** A name's raw text, collapsed, without permalinks, badges, a trailing separator, footnote marks or status notes. */
function readName(raw: string): string {
  return (
    collapse(raw)
      .replace(PERMALINK_TEXT_RE, "")
      // A badge written into the name's own text: "Pro Most popular", "Recommended: Team".
      .replace(BADGE_AROUND_RE, (match, before: string | undefined) => (before === undefined ? "" : before))
      .replace(/\s*[:：–—|-]\s*$/, "")
      .replace(FOOTNOTE_MARK_RE, "")
      .replace(STATUS_NOTE_RE, "")
      .trim()
  );
}

/**
 * A status note after a name ("Nvidia H100 - deprecated December 2025", "Cloud (Beta)"): the offer is the same one, so
 * its key stays when the note comes and goes.
 */
const STATUS_NOTE_RE =
  /(?<=\S)\s*(?:[-–—:]\s+|\()(?:deprecated|legacy|beta|alpha|preview|early\s+access|coming\s+soon|discontinued|retired|retiring|sunset(?:ting)?|end[-\s]of[-\s]life|eol|limited\s+time|new)\b[^()]{0,40}\)?$/i;

/** Footnote marks after a name: asterisks, daggers, superscript digits. */
const FOOTNOTE_MARK_RE = /(?<=\S)\s*[*†‡§¹²³⁴-⁹⁰]+$/u;

const NAME_CLASS_RE = /(?:^|[-_])(?:name|title|heading|header|headline|plan|tier|label|h[1-6])(?:$|[-_])|^h[1-6]$/i;
const BOLD_CLASS_RE =
  /(?:^|[-_])(?:bold|semibold|strong|font-(?:semi)?bold|fw-(?:bold|semibold|[6-9]00)|font-(?:medium|black|extrabold))(?:$|[-_])/i;
const BOLD_STYLE_RE = /font-weight\s*:\s*(?:bold|bolder|[6-9]00)/i;

export interface NameCandidate {
  el: Element;
  name: string;
  score: number;
  /** Where in its record the name sits, to compare records of one set: tag, depth below the record, name class. */
  slot: string;
}

/** How prominent an element's text is as a name (see the module comment). */
function prominence(el: Element, order: number, name: string, wrapsPrice = false): number {
  let score = 0;
  // A name-classed wrapper of a heading (`<div class="plan-title"><h2>Open</h2></div>`) stands for that heading, unless
  // the heading is the price itself (`<li class="title"><h3>FREE</h3></li>` under the name).
  const heading = isHeading(el) ? el : wrapsPrice ? null : onlyHeadingInside(el);
  if (heading) score += Number(tagName(heading).slice(1)) <= 3 ? 8 : 7;
  else if (el.attribs.role === "heading") score += 7;
  if (classTokens(el).some((token) => NAME_CLASS_RE.test(token))) score += 5;
  if (emphasised(el)) score += 3;
  score += order === 0 ? 2 : order === 1 ? 1 : 0;
  if (name.length <= 24) score += 1;
  if (name.length > 32) score -= 1;
  if (/[.!]$/.test(name) || (name.split(" ").length >= 5 && /^[a-z]/.test(name))) score -= 3;
  return score;
}

/** The one child of `el` with text, when it is a heading and `el` has no text of its own. */
function onlyHeadingInside(el: Element): Element | null {
  if (hasOwnText(el)) return null;
  const withText = el.children.filter(
    (child): child is Element => isElement(child) && collapse(textContent(child)) !== "",
  );
  return withText.length === 1 && isHeading(withText[0]!) ? withText[0]! : null;
}

/**
 * Whether `el` holds text of its own beside its child elements: wrappers (`<div><h3>Pro</h3></div>`) are no name
 * candidates, and a bold phrase inside such text is part of a sentence.
 */
export function hasOwnText(el: Element): boolean {
  return el.children.some((child) => child.type === "text" && (child as { data: string }).data.trim() !== "");
}

const MAX_SCANNED = 80;

const FREE_NAME_RE = /^(?:free|gratis)$/i;
const INLINE_TAGS = new Set(["strong", "b", "em", "i", "span", "a", "small", "mark", "u"]);

/** Nothing but `name` on the line `el` stands on (its nearest block ancestor). */
export function aloneOnLine(index: ElementIndex, el: Element, name: string): boolean {
  let block: Element = el;
  while (INLINE_TAGS.has(tagName(block)) && block.parent && isElement(block.parent)) block = block.parent;
  return index.visibleChars(block) <= name.replace(/\s/g, "").length + 2;
}

/**
 * `el` and the price right after it are all its block says (`<th><small>Free</small><strong>0.00€</strong></th>`): "Free"
 * names the price beside it, as on a line of its own.
 */
function rightBeforePrice(
  index: ElementIndex,
  el: Element,
  name: string,
  holdsPrice: (el: Element) => boolean,
): boolean {
  // Text between the two counts in the block's characters below.
  const next = nextElementSibling(el);
  if (!next || !holdsPrice(next) || !el.parent || !isElement(el.parent)) return false;
  const chars = (text: string) => text.replace(/\s/g, "").length;
  return index.visibleChars(el.parent) <= chars(name) + index.visibleChars(next) + 2;
}

/**
 * Name candidates of a record, best first: elements inside `record` before position `before` (its first price)
 * holding no price themselves. When nothing before the price can name it, a heading or name-classed element after it
 * (a few layouts put the price on top).
 */
export function nameCandidates(
  index: ElementIndex,
  record: Element,
  before: number,
  holdsPrice: (el: Element) => boolean,
  options: { priced?: boolean } = {},
): NameCandidate[] {
  const out: NameCandidate[] = [];
  /** The most prominent billing-option label seen ("Pay-as-you-go" above "1,000 calls"): the block is an option. */
  let optionLabel = -Infinity;
  const recordAt = index.at(record);
  const inside = index.inside(record);
  const row = tagName(record) === "tr" || record.attribs.role === "row";
  // A row that states an amount may be named at length ("Data Transfer to Machine(s) in the same region | $0.00/GB");
  // a row of limits whose only "price" is "Custom" is named, if at all, as briefly as a card.
  const longRow = row && options.priced === true;
  const consider = (el: Element, order: number): void => {
    if (holdsPrice(el) || index.visibleChars(el) === 0 || index.visibleChars(el) > (longRow ? ROW_HEAD_CHARS : 60))
      return;
    const named = namesItself(el);
    if (!named && !hasOwnText(el)) return;
    // A candidate inside a candidate that already named itself (`<h3><span>Pro</span></h3>`): the outer one stands.
    if (out.some((c) => index.contains(c.el, el) && c.name === collapse(nameText(el)))) return;
    const name = nameText(el);
    // "Free" names a plan standing on its own line (a heading over "$0"), not opening a sentence ("<strong>Free</strong>
    // for annual plans and Enterprise customers"): there it is a price.
    if (FREE_NAME_RE.test(name) && !aloneOnLine(index, el, name) && !rightBeforePrice(index, el, name, holdsPrice))
      return;
    // A name-classed element that is no link or button (`<span class="plan-name">Start</span>`) names as a heading does.
    const titled = isHeading(el) || (named && !/^(?:a|button)$/.test(tagName(el)));
    if (!plausibleName(name, { heading: titled, rowHead: longRow })) {
      if (BILLING_WORDS_RE.test(name)) optionLabel = Math.max(optionLabel, prominence(el, order, name));
      return;
    }
    let depth = 0;
    let branch: AnyNode = el;
    for (let p: AnyNode | null = el.parent; p && p !== record; p = p.parent) {
      depth++;
      branch = p;
    }
    const nameClass = classTokens(el).find((token) => NAME_CLASS_RE.test(token)) ?? "";
    // In a table row the slot is the column, whatever the cell wraps its text in (`<td><em>H100</em></td>`).
    const slot = row
      ? `cell ${record.children.filter(isElement).indexOf(branch as Element)}|${nameClass}`
      : `${tagName(el)}|${depth}|${nameClass}`;
    const wrapsPrice = before <= index.at(el) + index.sizeInside(el);
    out.push({ el, name, score: prominence(el, order, name, wrapsPrice), slot });
  };
  let order = 0;
  for (let k = 0; k < inside.length && k < MAX_SCANNED; k++) {
    const el = inside[k]!;
    if (index.at(el) >= before) break;
    const count = out.length;
    consider(el, order);
    if (out.length > count) order++;
  }
  if (out.length === 0) {
    for (let k = 0; k < inside.length && k < MAX_SCANNED; k++) {
      const el = inside[k]!;
      if (index.at(el) < before) continue;
      if (!namesItself(el)) continue;
      consider(el, 1);
      if (out.length > 0) break;
    }
  }
  // A block whose most prominent label is a billing option is one price option of a record above it, not a record.
  if (out.length > 0 && Math.max(...out.map((c) => c.score)) < optionLabel) return [];
  // Stable: best score first, then page order.
  return out
    .map((candidate, k) => ({ candidate, k }))
    .sort((a, b) => b.candidate.score - a.candidate.score || a.k - b.k)
    .map(({ candidate }) => candidate)
    .filter(() => recordAt !== -1);
}
