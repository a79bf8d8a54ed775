/**
 * Changelog entries, blog posts and press releases on HTML pages. Two readings, the first that finds at least two
 * items wins: repeated entry blocks (article, .post, .entry, .changelog-item, .release, list items with a title and
 * a date), then headings followed by a date (a changelog written as "## v2.4 · Nov 18, 2026"). A lone block is not
 * a list: a single <article> is usually the page itself.
 */
import type { ContentItem } from "../types.js";
import {
  absoluteUrl,
  blockLines,
  classTokens,
  collapse,
  isElement,
  isHeading,
  tagName,
  textContent,
  truncate,
  type AnyNode,
  type Element,
  shortText,
} from "../parse/html.js";
import { findDate, toIsoDate } from "./dates.js";
import { isPlaceholderOnly, maskVolatile } from "../parse/mask.js";
import { ElementIndex } from "../parse/tree.js";

const ITEM_TOKEN_RE =
  /^(?:[a-z0-9]+(?:-|_|__))*(?:post|entry|article|changelog|release|update|news|press|story|blog|hentry|h-entry)(?:(?:-|_|__)(?:item|entry|card|preview|summary|teaser|listing|row|block))?$/i;
/** A word every ITEM_TOKEN_RE class holds: most classes hold none, and need no split. */
const ITEM_WORD_RE = /post|entry|article|changelog|release|update|news|press|story|blog|hentry/i;
const ITEM_TYPE_RE = /schema\.org\/(?:BlogPosting|Article|NewsArticle|TechArticle)/i;
const DATE_CLASS_RE = /date|time|published|posted/i;
const MIN_ITEMS = 2;
const MAX_ITEMS = 200;

export interface FoundItems {
  items: ContentItem[];
  /** The blocks the items came from (the pricing token fallback ignores prices inside them). */
  blocks: Element[];
}

function itemKey(url: string | null, title: string): string {
  return url ?? title.toLowerCase();
}

/** The date of a block: <time datetime>, then a date-classed element, then a date written in its first lines. */
function dateOf(index: ElementIndex, block: Element): string | null {
  const elements = index.inside(block);
  for (const el of elements) {
    if (tagName(el) !== "time") continue;
    const iso = toIsoDate(el.attribs.datetime) ?? toIsoDate(collapse(textContent(el)));
    if (iso) return iso;
  }
  for (const el of elements) {
    if (!DATE_CLASS_RE.test(el.attribs.class ?? "")) continue;
    const iso = toIsoDate(collapse(textContent(el)));
    if (iso) return iso;
  }
  return findDate(collapse(textContent(block)).slice(0, 400))?.iso ?? null;
}

function titleElement(index: ElementIndex, block: Element): Element | null {
  const elements = index.inside(block);
  return (
    elements.find((el) => isHeading(el) && index.visibleChars(el) > 0) ??
    elements.find(
      (el) => classTokens(el).some((t) => /(?:^|[-_])title$/i.test(t)) && shortText(index, el, 200) !== null,
    ) ??
    elements.find((el) => tagName(el) === "a" && collapse(textContent(el)).length >= 3) ??
    null
  );
}

/** The item's link: the title's own link, a link around the title or block, a link with the title's text, any link. */
function urlOf(
  index: ElementIndex,
  block: Element,
  titleEl: Element | null,
  title: string,
  baseUrl: string,
): string | null {
  const links = index.inside(block).filter((el) => tagName(el) === "a" && el.attribs.href);
  const candidates: (Element | undefined)[] = [];
  if (titleEl) {
    candidates.push(tagName(titleEl) === "a" ? titleEl : index.findInside(titleEl, (el) => tagName(el) === "a"));
    for (let current = titleEl.parent; current; current = current.parent) {
      if (isElement(current) && tagName(current) === "a") {
        candidates.push(current);
        break;
      }
    }
  }
  candidates.push(links.find((el) => shortText(index, el, title.length) === title));
  candidates.push(links[0]);
  for (const link of candidates) {
    const url = link ? absoluteUrl(link.attribs.href, baseUrl) : null;
    if (url) return url;
  }
  return null;
}

/** Characters of an entry's lines read for its summary: more than the ~300 it keeps, never the whole block. */
const SUMMARY_READ_CHARS = 1000;

/** Block text without its title and date lines, masked, about 300 characters. */
function summaryOf(lines: string[], title: string): string | null {
  const kept: string[] = [];
  let length = 0;
  for (const line of lines) {
    if (length > SUMMARY_READ_CHARS) break;
    if (line === title) continue;
    const masked = maskVolatile(line.length > SUMMARY_READ_CHARS ? line.slice(0, SUMMARY_READ_CHARS) : line);
    if (!masked || isPlaceholderOnly(masked)) continue;
    kept.push(masked);
    length += masked.length + 3;
  }
  // List items carry no punctuation: "…replays · Console errors…" reads better than "…replays Console errors…".
  const text = collapse(
    kept.map((line, i) => (i === kept.length - 1 || /[.!?:;,…]$/.test(line) ? `${line} ` : `${line} · `)).join(""),
  );
  return text ? truncate(text) : null;
}

/** Metadata around an entry (date, tags, author, share buttons, "Read more"): not part of its summary. */
const META_CLASS_RE =
  /(?:^|[-_\s])(?:date|time|meta|tags?|labels?|badges?|share|social|author|byline|categor(?:y|ies)|read-?more)(?:$|[-_\s])/i;
const READ_MORE_RE = /^(?:read more|continue reading|learn more|share|tweet)\b/i;

function isEntryMeta(index: ElementIndex, el: Element, titleEl: Element | null): boolean {
  if (el === titleEl || tagName(el) === "time") return true;
  if (tagName(el) === "a" && READ_MORE_RE.test(collapse(textContent(el)))) return true;
  return META_CLASS_RE.test(el.attribs.class ?? "") && shortText(index, el, 120) !== null;
}

function itemFromBlock(index: ElementIndex, block: Element, baseUrl: string): ContentItem | null {
  const titleEl = titleElement(index, block);
  const title = titleEl ? collapse(textContent(titleEl)) : "";
  if (!title || title.length > 200) return null;
  const date = dateOf(index, block);
  const url = urlOf(index, block, titleEl, title, baseUrl);
  if (!date && !url) return null;
  const lines = blockLines(block, (el) => isEntryMeta(index, el, titleEl));
  return { key: itemKey(url, title), title, date, url, summary: summaryOf(lines, title) };
}

/** Whether an element is one entry of a list (an article, a post-classed block, a dated list item with a title). */
function itemBlockTest(index: ElementIndex): (el: Element) => boolean {
  // Built at the first list item: only list items ask them.
  let holdsTitle: ((el: Element) => boolean) | undefined;
  let holdsTime: ((el: Element) => boolean) | undefined;
  return (el) => {
    const tag = tagName(el);
    if (tag === "article") return true;
    if (ITEM_TYPE_RE.test(el.attribs.itemtype ?? "")) return true;
    const classes = el.attribs.class;
    if (classes && ITEM_WORD_RE.test(classes) && classTokens(el).some((token) => ITEM_TOKEN_RE.test(token)))
      return true;
    if (tag !== "li") return false;
    holdsTitle ??= index.holdsAny(index.elements.filter((el) => isHeading(el) || tagName(el) === "a"));
    holdsTime ??= index.holdsAny(index.elements.filter((el) => tagName(el) === "time"));
    // Checked first: a list item of more than 1,000 characters is a section, and its text is not read in full.
    const text = shortText(index, el, 1000);
    return text !== null && holdsTitle(el) && (holdsTime(el) || findDate(text) !== null);
  };
}

function fromBlocks(index: ElementIndex, baseUrl: string): FoundItems {
  const innermost = index.innermost(index.elements.filter(itemBlockTest(index)));
  const items: ContentItem[] = [];
  const used: Element[] = [];
  for (const block of innermost) {
    const item = itemFromBlock(index, block, baseUrl);
    if (item) {
      items.push(item);
      used.push(block);
    }
  }
  return { items, blocks: used };
}

/** Characters of an entry's text read after its heading: enough for a summary of about 300. */
const ENTRY_TEXT_CHARS = 600;

/** What the heading readings of every level ask of the page, found once. */
interface HeadingLookups {
  firstTime: (el: Element) => Element | null;
  firstLink: (el: Element) => Element | null;
  /** Whether an element's text holds four digits in a row: a written date has its year. */
  holdsYear: (el: Element) => boolean;
}

function headingLookups(index: ElementIndex): HeadingLookups {
  return {
    firstTime: index.firstInside(index.elements.filter((el) => tagName(el) === "time")),
    firstLink: index.firstInside(index.elements.filter((el) => tagName(el) === "a" && el.attribs.href)),
    holdsYear: index.textMatches(/\d{4}/),
  };
}

/** Whether any heading of the page can be dated: a date needs a <time> element or a year written somewhere. */
function mayHoldDates(index: ElementIndex, lookups: HeadingLookups): boolean {
  return index.elements.some((el) => tagName(el) === "time" || lookups.holdsYear(el));
}

/** Headings of one level each followed (or preceded) by a short date line, or themselves a date. */
function fromHeadings(index: ElementIndex, baseUrl: string, level: string, lookups: HeadingLookups): FoundItems {
  const items: ContentItem[] = [];
  const blocks: Element[] = [];
  const { firstTime, firstLink, holdsYear } = lookups;
  const siblings = (el: Element, direction: "next" | "prev"): Element | null => {
    for (let node = el[direction]; node; node = node[direction]) if (isElement(node)) return node;
    return null;
  };
  const shortDate = (el: Element | null): string | null => {
    if (!el || isHeading(el)) return null;
    const time = tagName(el) === "time" ? el : firstTime(el);
    if (time) return toIsoDate(time.attribs.datetime) ?? toIsoDate(collapse(textContent(time)));
    if (!holdsYear(el)) return null;
    const text = shortText(index, el, 80);
    return text === null ? null : (findDate(text)?.iso ?? null);
  };
  for (const heading of index.elements.filter((el) => tagName(el) === level)) {
    const title = shortText(index, heading, 200);
    if (!title) continue;
    const time = firstTime(heading);
    const next = siblings(heading, "next");
    const nextDate = shortDate(next);
    const iso =
      toIsoDate(time?.attribs.datetime) ??
      (title.length <= 80 ? (findDate(title)?.iso ?? null) : null) ??
      nextDate ??
      shortDate(siblings(heading, "prev"));
    if (!iso) continue;
    const lines: string[] = [];
    let length = -1; // of the lines joined by spaces
    for (let sibling = next; sibling && length <= ENTRY_TEXT_CHARS; sibling = siblings(sibling, "next")) {
      if (isHeading(sibling) && tagName(sibling) <= level) break;
      // The date line is the entry's metadata, not its summary.
      if (sibling === next && nextDate) continue;
      // Enough lines for a summary even when some are dates or the title (summaryOf drops those).
      for (const line of blockLines(sibling, undefined, SUMMARY_READ_CHARS * 2)) {
        lines.push(line);
        length += line.length + 1;
      }
    }
    const link = firstLink(heading);
    const url = link ? absoluteUrl(link.attribs.href, baseUrl) : null;
    items.push({ key: itemKey(url, title), title, date: iso, url, summary: summaryOf(lines, title) });
    blocks.push(heading);
  }
  return { items, blocks };
}

function dedupe(found: FoundItems): FoundItems {
  const seen = new Set<string>();
  const items: ContentItem[] = [];
  for (const item of found.items) {
    if (seen.has(item.key)) continue;
    seen.add(item.key);
    items.push(item);
    if (items.length >= MAX_ITEMS) break;
  }
  return { items, blocks: found.blocks };
}

export function extractItems(root: AnyNode, baseUrl: string, index = new ElementIndex(root)): FoundItems {
  let lookups: HeadingLookups | undefined;
  const byHeadings = (level: string): FoundItems => {
    lookups ??= headingLookups(index);
    return mayHoldDates(index, lookups) ? fromHeadings(index, baseUrl, level, lookups) : { items: [], blocks: [] };
  };
  for (const reading of [() => fromBlocks(index, baseUrl), () => byHeadings("h2"), () => byHeadings("h3")]) {
    const found = dedupe(reading());
    if (found.items.length >= MIN_ITEMS) return found;
  }
  return { items: [], blocks: [] };
}
