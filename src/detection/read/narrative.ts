/**
 * How a page presents the company (Narrative): <title>, meta description, the h1s, the first h2s and the hero copy.
 * Every field is masked, so a title carrying today's date does not read as a repositioning.
 */
import type { CheerioAPI } from "cheerio";
import type { Narrative } from "../types.js";
import { collapse, elementsNamed, isElement, tagName, textContent, type AnyNode, type Element } from "../parse/html.js";
import { maskVolatile } from "../parse/mask.js";
import { ElementIndex } from "../parse/tree.js";

const MAX_H2 = 10;
const HERO_MIN_CHARS = 40;

export interface HeadFields {
  title: string | null;
  meta_description: string | null;
}

const masked = (text: string | null | undefined): string | null => maskVolatile(collapse(text)) || null;

/** Read before boilerplate removal: the head is never boilerplate, but an inline <svg><title> is not the title. */
export function readHead($: CheerioAPI): HeadFields {
  const title = elementsNamed($, "title").find((el) => $(el).closest("svg").length === 0);
  const metas = elementsNamed($, "meta");
  const meta = (attr: "name" | "property", value: string): string | null => {
    const found = metas.find(
      (el) => (el.attribs[attr] ?? "").trim().toLowerCase() === value && collapse(el.attribs.content),
    );
    return found ? collapse(found.attribs.content) : null;
  };
  return {
    title: title ? masked(textContent(title)) : null,
    meta_description: masked(
      meta("name", "description") ?? meta("property", "og:description") ?? meta("name", "twitter:description"),
    ),
  };
}

/**
 * The first `limit` distinct texts of the `tag` headings. At most ten times `limit` headings are read: a page of
 * thousands of repeated or nested headings would otherwise have each one's text read in full.
 */
function headingTexts(index: ElementIndex, tag: string, limit: number): string[] {
  const out: string[] = [];
  let read = 0;
  for (const el of index.elements) {
    if (tagName(el) !== tag || index.visibleChars(el) === 0) continue;
    if (++read > limit * 10) break;
    const text = masked(textContent(el));
    if (text && !out.includes(text)) out.push(text);
    if (out.length >= limit) break;
  }
  return out;
}

/** Own text of an element (its text children and inline formatting), for a lead in a `<div class="subtitle">`. */
function ownText(el: Element): string {
  return collapse(
    el.children
      .filter(
        (child) => child.type === "text" || (isElement(child) && /^(?:a|b|strong|em|i|br|span)$/.test(tagName(child))),
      )
      .map((child) => textContent(child))
      .join(""),
  );
}

/** Where a headline or lead never is: a search box, a dialog, a form, a list, a table, a control. */
const NOT_NARRATIVE_TAGS = /^(?:form|dialog|li|td|th|a|button|label|select|option|nav|footer|aside|figcaption)$/;
const NOT_NARRATIVE_ROLES = new Set(["search", "dialog", "alertdialog", "navigation", "menu", "listitem", "cell"]);
/** A money amount: "$49", "49 €", "USD 49" (a lead that quotes a price is pricing, not positioning). */
const MONEY_RE = /[$€£¥₹]\s?\d|\d\s?(?:€|£|EUR|USD|GBP|zł|Kč)\b|\b(?:USD|EUR|GBP)\s?\d/;

function excluded(index: ElementIndex, el: Element): boolean {
  for (let current: AnyNode | null = el; current && isElement(current); current = current.parent) {
    if (NOT_NARRATIVE_TAGS.test(tagName(current))) return true;
    if (NOT_NARRATIVE_ROLES.has(current.attribs.role ?? "")) return true;
    if (index.at(current) === -1) break;
  }
  return false;
}

/** The page's first element whose own text states a money amount, or the end of the page. */
function firstPriceAt(index: ElementIndex): number {
  const hasMoney = index.textMatches(MONEY_RE);
  for (let i = 0; i < index.elements.length; i++) {
    const el = index.elements[i]!;
    if (!hasMoney(el)) {
      i += index.sizeInside(el);
      continue;
    }
    if (el.children.some((child) => child.type === "text" && MONEY_RE.test((child as { data: string }).data))) return i;
  }
  return index.elements.length;
}

/**
 * The page's top-level heading: its first h1 (inside `<main>` when the page has one), outside search boxes, dialogs and
 * forms, and above the first price on the page: an h1 below the plans is a section's title (a pricing page that
 * heads every plan card and its FAQ with an h1), not the page's headline.
 */
function headline(index: ElementIndex, main: AnyNode): Element | null {
  const inMain = index.at(main) !== -1;
  const limit = firstPriceAt(index);
  // The first few h1s only: a hostile page's hundred thousand repeated h1s are not each compared with their siblings.
  let seen = 0;
  for (const el of inMain ? index.inside(main as Element) : index.elements) {
    if (index.at(el) > limit || seen > MAX_H1_CANDIDATES) break;
    if (tagName(el) !== "h1") continue;
    seen++;
    if (index.visibleChars(el) === 0 || excluded(index, el) || repeated(index, el)) continue;
    return el;
  }
  return null;
}

/**
 * An h1 repeated in sibling blocks (a page that heads every plan card with an h1): a block within three levels above
 * it has a sibling that holds an h1 too. Such h1s name records, not the page.
 */
function repeated(index: ElementIndex, h1: Element): boolean {
  let block: AnyNode | null = h1.parent;
  for (let level = 0; level < 3 && block && isElement(block) && index.at(block) !== -1; level++, block = block.parent) {
    const parent = block.parent;
    if (!parent || !isElement(parent)) break;
    const twin = parent.children.some(
      (sibling) =>
        sibling !== block &&
        isElement(sibling) &&
        index.findInside(sibling, (el) => tagName(el) === "h1") !== undefined,
    );
    if (twin) return true;
  }
  return false;
}

const MAX_H1_CANDIDATES = 10;
const LEAD_LOOKAHEAD = 40;
const LEAD_MAX_CHARS = 600;

/**
 * The lead: the first block of prose after the headline, before the next heading, in the headline's own section (its
 * parent's parent at most), outside lists, tables, forms and controls, quoting no price. Any other paragraph of the
 * page (a payment-provider note above an FAQ, a plan's tagline) is not hero copy.
 */
function leadOf(index: ElementIndex, h1: Element): string | null {
  const section =
    h1.parent && isElement(h1.parent)
      ? h1.parent.parent && isElement(h1.parent.parent) && index.at(h1.parent.parent) !== -1
        ? h1.parent.parent
        : h1.parent
      : null;
  const start = index.at(h1) + index.sizeInside(h1) + 1;
  for (let i = start; i < index.elements.length && i < start + LEAD_LOOKAHEAD; i++) {
    const el = index.elements[i]!;
    if (section && !index.contains(section, el)) break;
    if (/^h[1-6]$/.test(tagName(el))) break;
    if (excluded(index, el) || index.visibleChars(el) > LEAD_MAX_CHARS * 2) continue;
    const text = ownText(el);
    if (text.length < HERO_MIN_CHARS / 2 || text.length > LEAD_MAX_CHARS) continue;
    if (MONEY_RE.test(text)) return null;
    return masked(text);
  }
  return null;
}

/**
 * h1 is the page's headline and hero its lead (headline, leadOf); h2 are the page's section headings that quote no
 * price (a plan card's "$49 / month" is pricing, not narrative), from the whole cleaned body.
 */
export function extractNarrative(
  head: HeadFields,
  body: AnyNode,
  main: AnyNode,
  index = new ElementIndex(body),
): Narrative {
  const top = headline(index, main);
  const title = top ? masked(textContent(top)) : null;
  return {
    title: head.title,
    meta_description: head.meta_description,
    h1: title ? [title] : [],
    h2: headingTexts(index, "h2", MAX_H2).filter((text) => !MONEY_RE.test(text)),
    hero: top ? leadOf(index, top) : null,
  };
}
