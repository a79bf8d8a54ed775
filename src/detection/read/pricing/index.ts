/**
 * Pricing plans, from the most to the least reliable source (PricingPlan.origin): structured-data offers (JSON-LD,
 * microdata, product meta tags: offers.ts), then plan cards (repeated containers with a plan name and a price), then,
 * only when neither found anything, loose price tokens under a heading. Plans are keyed by their lowercased name; on
 * a clash structured data wins over a card over a token.
 */
import type { PriceKind, PricingPlan } from "../../types.js";
import {
  blockText,
  classAndId,
  classTokens,
  collapse,
  isElement,
  isHeading,
  tagName,
  textContent,
  type AnyNode,
  type Element,
  shortText,
} from "../../parse/html.js";
import { ElementIndex } from "../../parse/tree.js";
import type { JsonLd } from "../jsonld.js";
import { maskVolatile } from "../../parse/mask.js";
import { firstPriceIndex, parsePrice, usageUnit, type ParsedPrice } from "./money.js";
import { pricingFromStructuredData } from "./offers.js";
import { makePlan, planKey } from "./plan.js";

// ---------------------------------------------------------------------------------------------------------------
// Add-ons, usage meters and promotions

/** Names that sell something beside a plan: "SSO add-on", "Extra seats", "Additional storage". */
const ADDON_NAME_RE = /\badd-?ons?\b|^(?:extra|additional)\b/i;
/** Sections of add-ons: "Add-ons", "Extras", "Optional extras", "Power-ups", "Additional products". */
const ADDON_SECTION_RE =
  /\b(?:add-?ons?|extras|power-?ups?|boosters?|additional\s+(?:products|services|features|options))\b/i;
/** Containers classed or named for add-ons. */
const ADDON_CLASS_RE = /add-?ons?|extras/i;
/** A price written as an increment ("+ $49 per user/month", "+€10/mo"): bought on top of a plan. */
const ADDON_PRICE_RE = /^\s*\+\s*\D{0,4}?\s*\d/;
/** How far back a card's section heading is looked for, in elements (bounded on hostile pages). */
const SECTION_LOOKBACK = 2000;

/**
 * What a priced record is: a usage meter when its price is per unit of use, an add-on when its name, a container or
 * the heading of its section says so, else a plan.
 */
function kindOf(
  index: ElementIndex,
  name: string,
  priceText: string,
  card: Element | null,
  nameEl: Element,
): PriceKind {
  if (usageUnit(priceText) !== null) return "usage";
  if (ADDON_NAME_RE.test(name) || ADDON_PRICE_RE.test(priceText)) return "addon";
  for (let el: AnyNode | null = card ?? nameEl, depth = 0; el && isElement(el) && depth < 8; el = el.parent, depth++) {
    if (PAGE_TAGS.has(tagName(el))) break;
    if (ADDON_CLASS_RE.test(classAndId(el))) return "addon";
  }
  const heading = sectionHeading(index, card ?? nameEl, nameEl);
  return heading !== null && ADDON_SECTION_RE.test(heading) ? "addon" : "plan";
}

const headingLevel = (el: Element): number => Number(tagName(el).slice(1));

/** How many levels above a card its section may start: a heading further out belongs to another part of the page. */
const SECTION_LEVELS = 3;

/**
 * The heading of the section a card sits in: the nearest heading before it, within a few levels above it (not past
 * the page's body or main), that ranks above the card's own name (an h2 over h3 plan names; any heading over a name
 * that is not one).
 */
function sectionHeading(index: ElementIndex, card: Element, nameEl: Element): string | null {
  let section: Element | null = null;
  for (let el = card.parent, level = 0; el && isElement(el) && level < SECTION_LEVELS; el = el.parent, level++) {
    if (PAGE_TAGS.has(tagName(el))) break;
    section = el;
  }
  if (section === null) return null;
  const nameLevel = isHeading(nameEl) ? headingLevel(nameEl) : 7;
  const start = index.at(card);
  for (let i = start - 1, seen = 0; i >= 0 && seen < SECTION_LOOKBACK; i--, seen++) {
    const el = index.elements[i]!;
    if (!index.contains(section, el)) break;
    if (!isHeading(el) || headingLevel(el) >= nameLevel || index.contains(el, card)) continue;
    return shortText(index, el, 120);
  }
  return null;
}

/**
 * Struck-through prices: `<del>`, `<s>`, `<strike>`, an inline `text-decoration: line-through`, or a class saying
 * struck/old/original/list price (GitHub's `diagonal_line_through`, Tailwind's `line-through`).
 */
const STRUCK_TAGS = new Set(["del", "s", "strike"]);
const STRUCK_CLASS_RE =
  /strike|line[-_]?through|crossed|old[-_]?price|original|was[-_]?price|regular[-_]?price|list[-_]?price/i;
const STRUCK_STYLE_RE = /text-decoration(?:-line)?\s*:[^;]*line-through/i;
const isStruck = (el: Element): boolean =>
  STRUCK_TAGS.has(tagName(el)) ||
  STRUCK_CLASS_RE.test(el.attribs.class ?? "") ||
  STRUCK_STYLE_RE.test(el.attribs.style ?? "");
/** Wording that makes a shown price promotional ("first 3 months", "intro price", "limited time", "launch offer"). */
const PROMO_RE =
  /\b(?:for\s+(?:the\s+)?first\s+\d+\s+(?:months?|years?)|first\s+\d+\s+(?:months?|years?)|intro(?:ductory)?\s+(?:price|offer|rate)|limited[-\s]time|launch\s+(?:price|offer)|promo(?:tion(?:al)?)?\b)/i;
/** The list price after a promotional one: "$39/mo for 3 months, then $49/mo". */
const THEN_RE = /\bthen\s+/i;

/**
 * A promotion on a card: a struck-through list price above the card's price ($49 struck beside $39: list 49, promo
 * 39; when the struck text sits inside the price element, the price is read again without it), a "then $49" after a
 * promotional price, or promotional wording beside the price (list unknown: both are the price). Null without one.
 */
function promotionOf(
  index: ElementIndex,
  card: Element,
  read: { price: ParsedPrice; text: string },
): { price: ParsedPrice; promo: number } | null {
  if (read.price.amount === null || read.price.amount === 0) return null;
  const struck = index.inside(card).filter(isStruck);
  for (const el of struck) {
    const text = shortText(index, el, 40);
    // The currency often sits outside the struck element (`<sup>$</sup><span class="line-through">4</span>`).
    const list = text === null ? null : parsePrice(text, { bareNumber: true });
    if (list?.amount == null || list.amount === 0) continue;
    const current =
      read.price.amount === list.amount ? parsePrice(collapse(read.text).replace(text!, " ")) : read.price;
    if (current?.amount == null || current.amount >= list.amount) continue;
    if ((list.currency ?? current.currency) !== current.currency) continue;
    return { price: { ...current, amount: list.amount }, promo: current.amount };
  }
  const text = shortText(index, card, MAX_CARD_TOTAL_CHARS) ?? "";
  const then = THEN_RE.exec(text);
  if (then) {
    const list = parsePrice(text.slice(then.index + then[0].length, then.index + then[0].length + 40));
    if (list?.amount != null && list.amount > read.price.amount && list.currency === read.price.currency) {
      return { price: { ...read.price, amount: list.amount }, promo: read.price.amount };
    }
  }
  return PROMO_RE.test(text) ? { price: read.price, promo: read.price.amount } : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Plan cards

const PRICE_CLASS_RE = /price|amount|cost/i;
const CARD_CLASS_RE = /plan|pricing|tier|package|card/i;
const NAME_TOKEN_RE = /^(?:.*[-_])?(?:name|title|heading)$/i;
const BADGE_CLASS_RE = /badge|tag|pill|ribbon|label|popular|recommended|chip|flag/i;
/** Permalink anchors that documentation themes put inside headings (mkdocs' `¶`, `#`, `§`): not part of a name. */
const PERMALINK_CLASS_RE = /headerlink|anchor|permalink/i;
const PERMALINK_TEXT_RE = /\s*[¶§#🔗]+$/u;
/** A card is never the page itself. */
const PAGE_TAGS = new Set(["html", "body", "main"]);
/**
 * Section headings that are not plans ("Compare plans", "Frequently asked questions"), and the blocks of shop and
 * home pages that hold prices without being offers ("Others also viewed", "Customer reviews", "Newsletter": seen on
 * the saved real shop pages of test/fixtures/real-pages/structured-data/).
 */
const NOT_A_PLAN_RE =
  /\b(?:plans|pricing|prices|compare|comparison|faqs?|frequently|questions|features|newsletter|reviews?|ratings?|also\s+(?:viewed|bought|like)|recently\s+viewed|related|recommended\s+for\s+you|your\s+(?:cart|basket|bag)|shipping|delivery)\b|^add-?ons?$/i;

function isNameCandidate(el: Element): boolean {
  return isHeading(el) || classTokens(el).some((token) => NAME_TOKEN_RE.test(token));
}

/** Plan name: the heading text without badges ("Pro Most popular" → "Pro") and permalink anchors ("Pro ¶" → "Pro"). */
function nameText(el: Element): string {
  const parts: string[] = [];
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "text") parts.push((node as { data: string }).data);
    else if (
      isElement(node) &&
      (node === el ||
        (!BADGE_CLASS_RE.test(node.attribs.class ?? "") && !PERMALINK_CLASS_RE.test(node.attribs.class ?? "")))
    ) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  return collapse(parts.join(" ")).replace(PERMALINK_TEXT_RE, "");
}

function plausibleName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 50 &&
    name.split(" ").length <= 6 &&
    !name.endsWith("?") &&
    !NOT_A_PLAN_RE.test(name) &&
    firstPriceIndex(name) === null
  );
}

interface Card {
  el: Element;
  nameEl: Element;
  name: string;
  price: ParsedPrice;
  /** The text the price was read from (its unit tells a usage meter). */
  priceText: string;
  features: string[];
}

/**
 * Text of a price element plus its next sibling, where the period often sits (`<p>$49</p><p>per month</p>`); a heading
 * after it starts something else and is left out.
 */
function priceWindow(el: Element): string {
  const next = windowSibling(el);
  const nextText = next ? collapse(textContent(next)) : "";
  return `${blockText(el)} ${nextText.length <= 80 ? nextText : ""}`;
}

/** The sibling whose text priceWindow adds: the next element, unless it is a heading. */
function windowSibling(el: Element): Element | null {
  const next = nextElement(el);
  return next && !isHeading(next) ? next : null;
}

/** The element's next element sibling, or null. */
function nextElement(el: Element): Element | null {
  let next = el.next;
  while (next && !isElement(next)) next = next.next;
  return next && isElement(next) ? next : null;
}

/**
 * The price of a card, in order of trust: a price-classed element with a number, a price-classed "Free"/"Custom",
 * any short element with a currency amount, any short element or button saying "Free"/"Contact sales". Feature
 * lists, comparison tables and the name itself are never read as the price.
 */
function cardPrice(
  index: ElementIndex,
  card: Element,
  nameEl: Element,
  listOrTable: (el: Element) => Element | null,
): { price: ParsedPrice; text: string } | null {
  // Inside a list item or a table of the card (or a row or cell of one): not the card's own price, but a feature or
  // comparison cell.
  const inCardListOrTable = (el: Element): boolean => {
    const holder = isTableLike(el) ? el : listOrTable(el);
    return holder !== null && holder !== card && index.contains(card, holder);
  };
  const elements = index
    .inside(card)
    .filter((el) => !index.contains(nameEl, el) && !index.contains(el, nameEl) && !inCardListOrTable(el));
  const short = elements.filter((el) => tagName(el) !== "li" && shortText(index, el, 80) !== null);
  const priced = short.filter((el) => PRICE_CLASS_RE.test(el.attribs.class ?? ""));
  for (const el of priced) {
    const text = priceWindow(el);
    const price = parsePrice(text, { bareNumber: true });
    if (price && price.amount !== null && !price.isFree) return { price, text };
    if (price && price.amount === 0 && price.currency) return { price, text };
  }
  for (const el of priced) {
    const text = textContent(el);
    const price = parsePrice(text);
    if (price) return { price, text };
  }
  for (const el of short) {
    const text = priceWindow(el);
    const price = parsePrice(text);
    if (price && price.currency) return { price, text };
  }
  for (const el of short) {
    const text = textContent(el);
    const price = parsePrice(text);
    if (price) return { price, text };
  }
  return null;
}

function cardFeatures(index: ElementIndex, card: Element): string[] {
  const features: string[] = [];
  // Innermost list items: an item holding a nested list is its heading, not a feature.
  for (const li of index.innermost(index.inside(card).filter((el) => tagName(el) === "li"))) {
    const line = maskVolatile(collapse(blockText(li)));
    if (line && !features.includes(line)) features.push(line);
    if (features.length >= 20) break;
  }
  return features;
}

/** Same kind of name: same heading level, or the same `*-name` class token ("plan-name highlighted" is a plan-name). */
function signature(el: Element): string {
  return isHeading(el) ? tagName(el) : (classTokens(el).find((token) => NAME_TOKEN_RE.test(token)) ?? tagName(el));
}

/** Name candidates (h1–h6 or a `*-name` / `*-title` element of 1–60 characters) that hold no other candidate. */
function nameElements(index: ElementIndex): Element[] {
  return index.innermost(
    index.elements.filter(isNameCandidate).filter((el) => {
      const text = shortText(index, el, 60);
      return text !== null && text.length > 0;
    }),
  );
}

/**
 * Above this many characters outside its list items a container is a section of the page, not a card; a card's
 * feature list may add up to MAX_CARD_TOTAL_CHARS (an Enterprise card listing twenty features with descriptions).
 */
const MAX_CARD_CHARS = 3000;
const MAX_CARD_TOTAL_CHARS = 12_000;
const tooBigForCard = (index: ElementIndex, el: Element): boolean =>
  index.visibleCharsOutsideLists(el) > MAX_CARD_CHARS || index.visibleChars(el) > MAX_CARD_TOTAL_CHARS;

/**
 * Each name grown to the largest ancestor (below `root` and the page tags) holding no other name of its kind. One
 * kind's names are in document order, so an ancestor holds another exactly when it holds the name just before or
 * just after this one. A container too big for a card (tooBigForCard) is never one, so growth stops there with no
 * card.
 */
function cardElements(root: AnyNode, index: ElementIndex, names: Element[]): Element[] {
  const peers = new Map<string, Element[]>();
  for (const el of names) {
    const sig = signature(el);
    const list = peers.get(sig);
    if (list) list.push(el);
    else peers.set(sig, [el]);
  }
  const cards = new Set<Element>();
  for (const list of peers.values()) {
    list.forEach((el, k) => {
      const others = [list[k - 1], list[k + 1]].filter((other): other is Element => !!other);
      let card: Element | null = el;
      while (
        card.parent !== root &&
        isElement(card.parent) &&
        !PAGE_TAGS.has(tagName(card.parent)) &&
        !others.some((other) => index.contains(card!.parent!, other))
      ) {
        card = card.parent;
        if (tooBigForCard(index, card)) {
          card = null;
          break;
        }
      }
      if (card && card !== el) cards.add(card);
    });
  }
  // Names were grouped by kind: back to document order, as the cards are listed.
  return [...cards].sort((a, b) => index.at(a) - index.at(b));
}

/** ARIA roles of a table built from divs (a feature comparison grid), read like `<table>`. */
const TABLE_ROLES = new Set([
  "table",
  "grid",
  "treegrid",
  "rowgroup",
  "row",
  "cell",
  "gridcell",
  "rowheader",
  "columnheader",
]);
const isTableLike = (el: Element): boolean => tagName(el) === "table" || TABLE_ROLES.has(el.attribs.role ?? "");

/**
 * Plan cards: every name candidate (h1–h6 or a `*-name` / `*-title` element) is grown to the largest ancestor that
 * holds no other name of the same kind — the card. A card needs a plausible plan name and a price; nested cards
 * keep the innermost; a card stands alone only when its class says plan/pricing/tier/package/card, otherwise it
 * needs a sibling card (the repeated plan grid).
 */
export function pricingFromCards(root: AnyNode, index = new ElementIndex(root)): PricingPlan[] {
  const names = nameElements(index);
  const firstName = index.firstInside(names);
  const listOrTable = index.nearestAncestor((el) => tagName(el) === "li" || isTableLike(el));
  const cards: Card[] = [];
  for (const el of cardElements(root, index, names)) {
    if (tooBigForCard(index, el)) continue;
    const nameEl = firstName(el);
    if (!nameEl) continue;
    const name = nameText(nameEl);
    if (!plausibleName(name)) continue;
    const read = cardPrice(index, el, nameEl, listOrTable);
    if (!read) continue;
    cards.push({ el, nameEl, name, price: read.price, priceText: read.text, features: cardFeatures(index, el) });
  }

  const innermostEls = new Set(index.innermost(cards.map((card) => card.el)));
  const innermost = cards.filter((card) => innermostEls.has(card.el));
  const siblings = new Map<AnyNode | null, number>();
  for (const card of innermost) siblings.set(card.el.parent, (siblings.get(card.el.parent) ?? 0) + 1);
  return innermost
    .filter((card) => (siblings.get(card.el.parent) ?? 0) >= 2 || CARD_CLASS_RE.test(classAndId(card.el)))
    .map((card) => {
      const promotion = promotionOf(index, card.el, { price: card.price, text: card.priceText });
      const price = promotion?.price ?? card.price;
      const kind = kindOf(index, card.name, card.priceText, card.el, card.nameEl);
      return makePlan(card.name, price, "card", card.features, { kind, promoAmount: promotion?.promo ?? null });
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Loose tokens

/**
 * Last resort: short elements holding a currency amount with a billing period (or a price class), named after the
 * nearest heading before them ("Pro — $49/month" headings name themselves). List items and anything inside
 * `excluded` (changelog entries, blog posts) are skipped: a release note mentioning "$8/month" is not a plan.
 */
export function pricingFromTokens(
  root: AnyNode,
  excluded: Element[] = [],
  index = new ElementIndex(root),
): PricingPlan[] {
  const plans: PricingPlan[] = [];
  const named = new Set<string>();
  const inExcluded = index.insideAny(excluded);
  const inListItem = index.insideAny(index.elements.filter((el) => tagName(el) === "li"));
  const digitInside = index.textMatches(/\d/);
  const hasDigit = (el: Element | null): boolean => el !== null && digitInside(el);
  // The heading the elements below it would be named after, with its key; each heading's text is parsed once (a
  // hostile page has a hundred thousand of them).
  let heading: { name: string; key: string } | null = null;
  for (const el of index.elements) {
    if (isHeading(el)) {
      // A heading of hundreds of characters names no plan: it is not read in full.
      const text = index.visibleChars(el) <= MAX_HEADING_CHARS ? nameText(el) : null;
      const priced = text !== null && inlinePriced(text, !inExcluded(el));
      const inline = priced ? tokenPlan(text) : null;
      if (inline && !named.has(inline.key)) {
        named.add(inline.key);
        plans.push(inline);
      }
      heading = text !== null && !priced && plausibleName(text) ? { name: text, key: planKey(text) } : null;
      continue;
    }
    if (!heading || named.has(heading.key)) continue;
    if (inListItem(el) || inExcluded(el)) continue;
    // An amount needs a digit in the element or in the element after it (priceWindow): most elements have none.
    if (!hasDigit(el) && !hasDigit(windowSibling(el))) continue;
    const text = shortText(index, el, 80);
    if (!text) continue;
    if (index.inside(el).some((child) => parsePrice(textContent(child))?.currency)) continue;
    const window = priceWindow(el);
    const price = parsePrice(window);
    if (!price || !price.currency) continue;
    const kind = kindOf(index, heading.name, window, null, el);
    if (price.period === null && kind !== "usage" && !PRICE_CLASS_RE.test(el.attribs.class ?? "")) continue;
    named.add(heading.key);
    plans.push(makePlan(heading.name, price, "token", [], { kind, promoAmount: null }));
  }
  return plans;
}

const MAX_HEADING_CHARS = 300;

/** A heading that carries its own price with a period ("Pro — $49/month"), usable unless inside an entry. */
function inlinePriced(text: string, usable: boolean): boolean {
  const inline = parsePrice(text);
  return !!inline && !!inline.currency && firstPriceIndex(text) !== null && usable && inline.period != null;
}

/** The plan a heading that prices itself names ("Pro — $49/month"); `text` passed inlinePriced. */
function tokenPlan(text: string): PricingPlan | null {
  const name = collapse(text.slice(0, firstPriceIndex(text)!).replace(/[\s:–—|-]+$/, ""));
  return plausibleName(name) ? makePlan(name, parsePrice(text)!, "token", []) : null;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * All plans, deduplicated by key: JSON-LD wins, cards lend it their feature lists; tokens only when nothing else.
 * `safely` runs each source on its own, so an odd page that trips one reader still yields the others' plans.
 */
export function extractPricing(
  root: AnyNode,
  ld: JsonLd,
  excluded: Element[] = [],
  safely: <T>(fn: () => T, fallback: T) => T = (fn) => fn(),
  index = new ElementIndex(root),
): PricingPlan[] {
  // JSON-LD, microdata and product meta tags (offers.ts): `ld` is readStructuredData's result.
  const fromJsonLd = safely(() => pricingFromStructuredData(ld), []);
  const fromCards = safely(() => pricingFromCards(root, index), []);
  const plans = new Map<string, PricingPlan>();
  for (const plan of fromJsonLd) if (!plans.has(plan.key)) plans.set(plan.key, plan);
  for (const plan of fromCards) {
    const existing = plans.get(plan.key);
    if (!existing) plans.set(plan.key, plan);
    else if (existing.features.length === 0) existing.features = plan.features;
  }
  if (plans.size === 0) {
    for (const plan of safely(() => pricingFromTokens(root, excluded, index), [])) {
      if (!plans.has(plan.key)) plans.set(plan.key, plan);
    }
  }
  return [...plans.values()];
}
