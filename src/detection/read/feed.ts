/**
 * RSS 2.0, RSS 1.0 (RDF) and Atom feeds, parsed with cheerio's XML mode (htmlparser2, nesting limited as pages are):
 * each item or entry is a ContentItem; the channel's title and description are the narrative; the text is the item
 * titles, one per line.
 */
import type { ContentItem, Extraction } from "../types.js";
import { EXTRACTOR_VERSION } from "../types.js";
import {
  absoluteUrl,
  blockLines,
  collapse,
  isElement,
  loadHtml,
  loadXml,
  textContent,
  truncate,
  type Element,
} from "../parse/html.js";
import { toIsoTimestamp } from "./dates.js";
import { maskVolatile } from "../parse/mask.js";

const MAX_ITEMS = 500;

/** A feed is read as one when the fetch method or content type says so, or the body opens like one. */
export function looksLikeFeed(body: string, contentType: string | null, fetchMethod: string): boolean {
  if (fetchMethod === "rss") return true;
  const type = (contentType ?? "").toLowerCase();
  if (/\b(?:rss|atom)\b|[/+]xml\b/.test(type) && !/xhtml/.test(type)) return true;
  const head = body
    .slice(0, 2048)
    .replace(/^\ufeff/, "")
    .trimStart();
  return /^<\?xml/i.test(head) || /^<(?:rss|feed|rdf:RDF)[\s>]/i.test(afterLeadingComments(head));
}

/**
 * The text after any comments and whitespace it opens with, in one pass. (A regular expression that repeated a lazy
 * comment pattern backtracked exponentially: a few hundred bytes of `<!---->` took seconds.) A comment ends at its
 * first `-->`, as in XML.
 */
export function afterLeadingComments(text: string): string {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    if (!text.startsWith("<!--", at)) return text.slice(at);
    const end = text.indexOf("-->", at + 4);
    if (end === -1) return "";
    at = end + 3;
  }
}

/** Child elements by local name, case-insensitive ("dc:date" matches "date" only when asked with the prefix). */
function children(el: Element, ...names: string[]): Element[] {
  return el.children.filter(isElement).filter((child) => names.includes(child.name.toLowerCase()));
}

function childText(el: Element, ...names: string[]): string | null {
  for (const name of names) {
    for (const child of children(el, name)) {
      const text = collapse(textContent(child));
      if (text) return text;
    }
  }
  return null;
}

/** Feed descriptions are escaped HTML: parse them as HTML (nesting limited, as for pages) and keep the text. */
function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return collapse(html);
  return collapse(blockLines(loadHtml(html).root().get(0)!).join(" "));
}

function linkOf(entry: Element, baseUrl: string): string | null {
  const links = children(entry, "link");
  // Atom: <link rel="alternate" href>, or a link without rel; RSS: <link>text</link>.
  const atom =
    links.find((l) => l.attribs.href && (l.attribs.rel ?? "alternate") === "alternate") ??
    links.find((l) => l.attribs.href);
  if (atom) return absoluteUrl(atom.attribs.href, baseUrl);
  const text = links.map((l) => collapse(textContent(l))).find(Boolean);
  if (text) return absoluteUrl(text, baseUrl);
  const guid = children(entry, "guid").find((g) => (g.attribs.ispermalink ?? g.attribs.isPermaLink) !== "false");
  return guid ? absoluteUrl(collapse(textContent(guid)), baseUrl) : null;
}

function itemOf(entry: Element, baseUrl: string): ContentItem | null {
  const title = htmlToText(childText(entry, "title") ?? "");
  const url = linkOf(entry, baseUrl);
  const guid = childText(entry, "guid", "id");
  if (!title && !url && !guid) return null;
  const summaryHtml = childText(entry, "description", "summary", "content:encoded", "content");
  const summary = summaryHtml ? maskVolatile(htmlToText(summaryHtml)) : "";
  return {
    key: guid ?? url ?? title.toLowerCase(),
    title: title || url || guid || "",
    date: toIsoTimestamp(childText(entry, "pubdate", "published", "dc:date", "updated", "issued", "modified")),
    url,
    summary: summary ? truncate(summary) : null,
  };
}

/** The feed's Extraction, or null when the body is not a feed after all (an HTML page behind an RSS source). */
export function extractFeed(body: string, baseUrl: string): Extraction | null {
  const $ = loadXml(body);
  const root = $("rss, feed, rdf\\:RDF, RDF").first().get(0) ?? null;
  if (!root) return null;
  const channel = $(root).children("channel").first().get(0) ?? root;
  const entries = $(root)
    .find("item, entry")
    .toArray()
    .filter((el) => el.name.toLowerCase() === "item" || el.name.toLowerCase() === "entry");
  const items: ContentItem[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const item = itemOf(entry, baseUrl);
    if (!item || seen.has(item.key)) continue;
    seen.add(item.key);
    items.push(item);
    if (items.length >= MAX_ITEMS) break;
  }
  const title = childText(channel, "title");
  const description = childText(channel, "description", "subtitle", "tagline");
  return {
    version: EXTRACTOR_VERSION,
    text: items
      .map((item) => maskVolatile(item.title))
      .filter(Boolean)
      .join("\n"),
    pricing: [],
    jobs: [],
    items,
    narrative: {
      title: title ? maskVolatile(htmlToText(title)) || null : null,
      meta_description: description ? maskVolatile(htmlToText(description)) || null : null,
      h1: [],
      h2: [],
      hero: null,
    },
    signals: { bot_challenge: false },
  };
}
