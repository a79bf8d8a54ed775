/**
 * sitemap.xml (sitemaps.org 0.9): a `<urlset>` of page URLs, or a `<sitemapindex>` of further sitemaps. Parsed with
 * cheerio's XML mode, nesting limited (loadXml); element names are compared without a namespace prefix, so
 * `<sm:urlset>` reads the same.
 */
import { collapse, isElement, loadXml, textContent, type Element } from "../detection/parse/html.js";

export interface Sitemap {
  kind: "urlset" | "index";
  /** The `<loc>` of each `<url>` (urlset) or `<sitemap>` (index), absolute http(s) URLs in document order. */
  locs: string[];
}

const localName = (el: Element): string => el.name.toLowerCase().replace(/^.*:/, "");

/** The sitemap in `body`, or null when it is not one (a site answering every path with its HTML app shell). */
export function parseSitemap(body: string, limit: number): Sitemap | null {
  const $ = loadXml(body);
  const root = $.root()
    .children()
    .toArray()
    .find((el) => ["urlset", "sitemapindex"].includes(localName(el)));
  if (!root) return null;
  const kind = localName(root) === "urlset" ? "urlset" : "index";
  const entryName = kind === "urlset" ? "url" : "sitemap";
  const locs: string[] = [];
  for (const entry of root.children.filter(isElement)) {
    if (localName(entry) !== entryName) continue;
    const loc = entry.children.filter(isElement).find((child) => localName(child) === "loc");
    const text = loc ? collapse(textContent(loc)) : "";
    if (!/^https?:\/\//i.test(text)) continue;
    try {
      locs.push(new URL(text).toString());
    } catch {
      continue;
    }
    if (locs.length >= limit) break;
  }
  return { kind, locs };
}
