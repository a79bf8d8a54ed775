/**
 * One candidate per kind of page, the best (docs/product-rules.md#discovery-and-profile): navigation links and
 * autodiscovered feeds first, then body links, footer links and sitemap.xml entries; among equals the shortest path,
 * then the first in the page. Candidates are told apart by normalized URL (src/sources/normalize-url.ts), the form
 * the sources table de-duplicates on.
 */
import { normalizeUrl } from "../sources/normalize-url.js";
import { DISCOVERED_TYPES, classifyUrl, type DiscoveredType, type SiteScope } from "./classify.js";
import type { FeedLink, LinkArea, PageLink } from "./homepage.js";

export type CandidateOrigin = LinkArea | "feed" | "sitemap";

export interface Candidate {
  url: string;
  normalized_url: string;
  source_type: DiscoveredType;
  origin: CandidateOrigin;
  /** Link text or feed title; "" when there is none. */
  text: string;
  /** For autodiscovered feeds. */
  feed_format: "rss" | "atom" | null;
}

export interface CandidateInput {
  links: PageLink[];
  feeds: FeedLink[];
  /** Page URLs listed in sitemap.xml. */
  sitemap: string[];
  scope: SiteScope;
  /** The homepage as requested and as reached: never a candidate of its own. */
  homepages: string[];
}

const ORIGIN_RANK: Record<CandidateOrigin, number> = { nav: 0, feed: 0, body: 1, footer: 2, sitemap: 3 };

interface Ranked extends Candidate {
  order: number;
  length: number;
}

function tryNormalize(url: string): string | null {
  try {
    return normalizeUrl(url);
  } catch {
    return null;
  }
}

function better(a: Ranked, b: Ranked): boolean {
  if (ORIGIN_RANK[a.origin] !== ORIGIN_RANK[b.origin]) return ORIGIN_RANK[a.origin] < ORIGIN_RANK[b.origin];
  if (a.length !== b.length) return a.length < b.length;
  return a.order < b.order;
}

export function pickCandidates(input: CandidateInput): Candidate[] {
  const homepages = new Set(input.homepages.map(tryNormalize));
  const found: Ranked[] = [];
  const add = (candidate: Omit<Candidate, "normalized_url">, length: number): void => {
    const normalized = tryNormalize(candidate.url);
    if (!normalized || homepages.has(normalized)) return;
    found.push({ ...candidate, normalized_url: normalized, order: found.length, length });
  };
  const pathLength = (url: URL): number => url.pathname.replace(/\/+$/, "").length + url.search.length;

  // The site names its own feeds: one on another host (a feed service) is still the site's, so no scope check.
  for (const feed of input.feeds) {
    add({ url: feed.url, source_type: "rss", origin: "feed", text: feed.title ?? "", feed_format: feed.format }, 0);
  }
  for (const link of input.links) {
    const url = new URL(link.url);
    const type = classifyUrl(url, link.text, input.scope);
    if (type)
      add({ url: link.url, source_type: type, origin: link.area, text: link.text, feed_format: null }, pathLength(url));
  }
  for (const entry of input.sitemap) {
    const url = new URL(entry);
    const type = classifyUrl(url, null, input.scope);
    if (type) add({ url: entry, source_type: type, origin: "sitemap", text: "", feed_format: null }, pathLength(url));
  }

  // Types in a fixed order; a URL chosen for one type is not offered again for a later one.
  const chosen: Candidate[] = [];
  const used = new Set<string>();
  for (const type of DISCOVERED_TYPES) {
    let best: Ranked | null = null;
    for (const candidate of found) {
      if (candidate.source_type !== type || used.has(candidate.normalized_url)) continue;
      if (!best || better(candidate, best)) best = candidate;
    }
    if (!best) continue;
    used.add(best.normalized_url);
    const { order: _order, length: _length, ...candidate } = best;
    chosen.push(candidate);
  }
  return chosen;
}
