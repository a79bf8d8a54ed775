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
  elementsIn,
  isElement,
  isHeading,
  tagName,
  textContent,
  truncate,
  type AnyNode,
  type Element,
} from "./html.js";
import { findDate, toIsoDate } from "./dates.js";
import { isPlaceholderOnly, maskVolatile } from "./mask.js";

const ITEM_TOKEN_RE =
  /^(?:[a-z0-9]+(?:-|_|__))*(?:post|entry|article|changelog|release|update|news|press|story|blog|hentry|h-entry)(?:(?:-|_|__)(?:item|entry|card|preview|summary|teaser|listing|row|block))?$/i;
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
function dateOf(block: Element): string | null {
  const elements = elementsIn(block);
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

function titleElement(block: Element): Element | null {
  const elements = elementsIn(block);
  return (
    elements.find((el) => isHeading(el) && collapse(textContent(el))) ??
    elements.find(
      (el) => classTokens(el).some((t) => /(?:^|[-_])title$/i.test(t)) && collapse(textContent(el)).length <= 200,
    ) ??
    elements.find((el) => tagName(el) === "a" && collapse(textContent(el)).length >= 3) ??
    null
  );
}

/** The item's link: the title's own link, a link around the title or block, a link with the title's text, any link. */
function urlOf(block: Element, titleEl: Element | null, title: string, baseUrl: string): string | null {
  const links = elementsIn(block).filter((el) => tagName(el) === "a" && el.attribs.href);
  const candidates: (Element | undefined)[] = [];
  if (titleEl) {
    candidates.push(tagName(titleEl) === "a" ? titleEl : elementsIn(titleEl).find((el) => tagName(el) === "a"));
    for (let current = titleEl.parent; current; current = current.parent) {
      if (isElement(current) && tagName(current) === "a") {
        candidates.push(current);
        break;
      }
    }
  }
  candidates.push(links.find((el) => collapse(textContent(el)) === title));
  candidates.push(links[0]);
  for (const link of candidates) {
    const url = link ? absoluteUrl(link.attribs.href, baseUrl) : null;
    if (url) return url;
  }
  return null;
}

/** Block text without its title and date lines, masked, about 300 characters. */
function summaryOf(lines: string[], title: string): string | null {
  const kept = lines
    .filter((line) => line !== title)
    .map((line) => maskVolatile(line))
    .filter((line) => line && !isPlaceholderOnly(line));
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

function isEntryMeta(el: Element, titleEl: Element | null): boolean {
  if (el === titleEl || tagName(el) === "time") return true;
  if (tagName(el) === "a" && READ_MORE_RE.test(collapse(textContent(el)))) return true;
  return META_CLASS_RE.test(el.attribs.class ?? "") && collapse(textContent(el)).length <= 120;
}

function itemFromBlock(block: Element, baseUrl: string): ContentItem | null {
  const titleEl = titleElement(block);
  const title = titleEl ? collapse(textContent(titleEl)) : "";
  if (!title || title.length > 200) return null;
  const date = dateOf(block);
  const url = urlOf(block, titleEl, title, baseUrl);
  if (!date && !url) return null;
  const lines = blockLines(block, (el) => isEntryMeta(el, titleEl));
  return { key: itemKey(url, title), title, date, url, summary: summaryOf(lines, title) };
}

function isItemBlock(el: Element): boolean {
  const tag = tagName(el);
  if (tag === "article") return true;
  if (ITEM_TYPE_RE.test(el.attribs.itemtype ?? "")) return true;
  if (classTokens(el).some((token) => ITEM_TOKEN_RE.test(token))) return true;
  if (tag === "li") {
    const inner = elementsIn(el);
    const titled = inner.some((child) => isHeading(child) || tagName(child) === "a");
    const dated = inner.some((child) => tagName(child) === "time") || findDate(collapse(textContent(el))) !== null;
    return titled && dated && collapse(textContent(el)).length <= 1000;
  }
  return false;
}

function fromBlocks(root: AnyNode, baseUrl: string): FoundItems {
  const blocks = elementsIn(root).filter(isItemBlock);
  const blockSet = new Set(blocks);
  const innermost = blocks.filter((el) => !elementsIn(el).some((inner) => blockSet.has(inner)));
  const items: ContentItem[] = [];
  const used: Element[] = [];
  for (const block of innermost) {
    const item = itemFromBlock(block, baseUrl);
    if (item) {
      items.push(item);
      used.push(block);
    }
  }
  return { items, blocks: used };
}

/** Headings of one level each followed (or preceded) by a short date line, or themselves a date. */
function fromHeadings(root: AnyNode, baseUrl: string, level: string): FoundItems {
  const items: ContentItem[] = [];
  const blocks: Element[] = [];
  const siblings = (el: Element, direction: "next" | "prev"): Element | null => {
    for (let node = el[direction]; node; node = node[direction]) if (isElement(node)) return node;
    return null;
  };
  const shortDate = (el: Element | null): string | null => {
    if (!el || isHeading(el)) return null;
    const time = [el, ...elementsIn(el)].find((inner) => tagName(inner) === "time");
    if (time) return toIsoDate(time.attribs.datetime) ?? toIsoDate(collapse(textContent(time)));
    const text = collapse(textContent(el));
    return text.length <= 80 ? (findDate(text)?.iso ?? null) : null;
  };
  for (const heading of elementsIn(root).filter((el) => tagName(el) === level)) {
    const title = collapse(textContent(heading));
    if (!title || title.length > 200) continue;
    const time = [heading, ...elementsIn(heading)].find((el) => tagName(el) === "time");
    const next = siblings(heading, "next");
    const nextDate = shortDate(next);
    const iso =
      toIsoDate(time?.attribs.datetime) ??
      (title.length <= 80 ? (findDate(title)?.iso ?? null) : null) ??
      nextDate ??
      shortDate(siblings(heading, "prev"));
    if (!iso) continue;
    const lines: string[] = [];
    for (let sibling = next; sibling; sibling = siblings(sibling, "next")) {
      if (isHeading(sibling) && tagName(sibling) <= level) break;
      // The date line is the entry's metadata, not its summary.
      if (sibling === next && nextDate) continue;
      lines.push(...blockLines(sibling));
      if (lines.join(" ").length > 600) break;
    }
    const link = [heading, ...elementsIn(heading)].find((el) => tagName(el) === "a" && el.attribs.href);
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

export function extractItems(root: AnyNode, baseUrl: string): FoundItems {
  for (const reading of [
    () => fromBlocks(root, baseUrl),
    () => fromHeadings(root, baseUrl, "h2"),
    () => fromHeadings(root, baseUrl, "h3"),
  ]) {
    const found = dedupe(reading());
    if (found.items.length >= MIN_ITEMS) return found;
  }
  return { items: [], blocks: [] };
}
