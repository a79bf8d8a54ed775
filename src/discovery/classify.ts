/**
 * Which kind of source a URL is, judged from its host, its path and the text of the link pointing to it (links to
 * pricing, careers, blog, changelog, docs and press pages from the homepage:
 * docs/product-rules.md#discovery-and-profile). Only the competitor's own site counts, plus the hosted job boards a
 * careers link commonly points to.
 */
import type { components } from "../../generated/api-types.js";

export type SourceType = components["schemas"]["SourceType"];

/**
 * The kinds discovery looks for, in the order candidates are listed (docs/product-rules.md#enumerations names every
 * source type).
 */
export const DISCOVERED_TYPES = [
  "pricing",
  "careers",
  "changelog",
  "blog",
  "news",
  "press",
  "docs",
  "rss",
] as const satisfies readonly SourceType[];

export type DiscoveredType = (typeof DISCOVERED_TYPES)[number];

/** Every source type of the contract, for mapping free-form input (unknown kinds are stored as `other`). */
export const SOURCE_TYPES: readonly SourceType[] = [
  "homepage",
  "pricing",
  "careers",
  "blog",
  "changelog",
  "docs",
  "press",
  "rss",
  "social",
  "news",
  "reviews",
  "other",
];

/** Path segments naming a kind of page: `/pricing`, `/company/careers`, `/en/whats-new`. */
const SEGMENTS: Record<Exclude<DiscoveredType, "rss">, string[]> = {
  pricing: ["pricing", "plans", "plans-and-pricing", "plans-pricing", "pricing-plans", "prices", "price"],
  careers: ["careers", "career", "jobs", "join-us", "joinus", "join", "work-with-us", "hiring", "open-positions"],
  changelog: [
    "changelog",
    "change-log",
    "releases",
    "release-notes",
    "releasenotes",
    "whats-new",
    "what-s-new",
    "whatsnew",
    "updates",
    "product-updates",
  ],
  blog: ["blog", "blogs"],
  news: ["news"],
  press: ["press", "newsroom", "media", "press-releases", "pressroom", "press-room", "in-the-news"],
  docs: ["docs", "doc", "documentation", "developers", "developer", "api-docs", "api-reference"],
};

/** Link texts naming a kind of page, compared lowercased with curly apostrophes straightened. */
const TEXTS: Record<Exclude<DiscoveredType, "rss">, string[]> = {
  pricing: ["pricing", "plans", "plans & pricing", "plans and pricing", "prices", "see pricing", "view pricing"],
  careers: [
    "careers",
    "jobs",
    "join us",
    "join the team",
    "join our team",
    "we're hiring",
    "we are hiring",
    "work with us",
    "open positions",
    "open roles",
  ],
  changelog: ["changelog", "what's new", "whats new", "release notes", "releases", "product updates", "updates"],
  blog: ["blog", "our blog"],
  news: ["news", "latest news"],
  press: ["press", "newsroom", "media", "press releases", "press kit", "in the news"],
  docs: ["docs", "documentation", "developers", "developer docs", "api docs", "api reference"],
};

/** First host labels of a dedicated subdomain: blog.acme.com, careers.acme.com, docs.acme.com, developer.acme.com. */
const SUBDOMAINS: Record<string, DiscoveredType> = {
  blog: "blog",
  news: "news",
  careers: "careers",
  jobs: "careers",
  changelog: "changelog",
  releases: "changelog",
  docs: "docs",
  developer: "docs",
  developers: "docs",
  press: "press",
  newsroom: "press",
};

/** Feed files linked as plain anchors (autodiscovery `<link>` tags are handled by the page reader). */
const FEED_PATH = /(?:^|\/)(?:feed|rss|atom)(?:\.xml)?$|\.(?:rss|atom)$|\/(?:feed|rss)\/(?:atom|rss2?)?$/;

/** Hosted job boards whose company board is one path segment deep (`boards.greenhouse.io/acme`). */
const BOARD_HOSTS = new Set([
  "boards.greenhouse.io",
  "job-boards.greenhouse.io",
  "jobs.lever.co",
  "jobs.ashbyhq.com",
  "apply.workable.com",
  "jobs.smartrecruiters.com",
]);
/** Job boards on a company subdomain (`acme.recruitee.com`), whose board is the root. */
const BOARD_SUFFIXES = [".recruitee.com", ".teamtailor.com", ".jobs.personio.de", ".jobs.personio.com", ".breezy.hr"];

/** Second-level labels under which country domains register names (acme.co.uk, acme.com.au). */
const SECOND_LEVEL = new Set(["co", "com", "net", "org", "gov", "edu", "ac", "ltd", "plc", "ne", "or", "go", "gob"]);

/**
 * The registrable part of a host name (`www.blog.acme.co.uk` → `acme.co.uk`). This approximates the public suffix
 * list with the common country second levels rather than shipping the list; an IP address is its own site.
 */
export function registrableDomain(hostname: string): string {
  const host = hostname
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[|\]$/g, "");
  if (/^[\d.]+$/.test(host) || host.includes(":")) return host;
  const labels = host.split(".");
  if (labels.length <= 2) return host;
  const tld = labels.at(-1)!;
  const second = labels.at(-2)!;
  const keep = tld.length === 2 && SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-keep).join(".");
}

/** The competitor's site: every host under the registrable domains of its homepage and its `domain`. */
export class SiteScope {
  private readonly domains: Set<string>;

  constructor(hostnames: string[]) {
    this.domains = new Set(hostnames.filter(Boolean).map(registrableDomain));
  }

  includes(hostname: string): boolean {
    const host = hostname
      .toLowerCase()
      .replace(/\.$/, "")
      .replace(/^\[|\]$/g, "");
    for (const domain of this.domains) {
      if (host === domain || host.endsWith(`.${domain}`)) return true;
    }
    return false;
  }

  /** The dedicated-subdomain label of `hostname` (`blog` of blog.acme.com), or null for the main host. */
  subdomainLabel(hostname: string): string | null {
    const host = hostname.toLowerCase().replace(/^www\./, "");
    const domain = registrableDomain(host);
    if (host === domain || !host.endsWith(`.${domain}`)) return null;
    return host.slice(0, -(domain.length + 1)).split(".")[0] ?? null;
  }
}

/** Path segments, lowercased, without empty segments, file extensions or a trailing index page. */
function segmentsOf(url: URL): string[] {
  const segments = url.pathname
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment).toLowerCase();
      } catch {
        return segment.toLowerCase();
      }
    })
    .map((segment) => segment.replace(/\.(?:html?|php|aspx?)$/, ""));
  if (segments.at(-1) === "index") segments.pop();
  return segments;
}

function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\s\u00a0]+/g, " ")
    .replace(/^[\s→›»>·|-]+|[\s→›»>·|:!.-]+$/g, "")
    .trim();
}

function byText(text: string | null): DiscoveredType | null {
  if (!text) return null;
  const normalised = normaliseText(text);
  for (const [type, texts] of Object.entries(TEXTS)) {
    if (texts.includes(normalised)) return type as DiscoveredType;
  }
  return null;
}

function byLastSegment(segments: string[]): DiscoveredType | null {
  const last = segments.at(-1);
  if (!last) return null;
  for (const [type, names] of Object.entries(SEGMENTS)) {
    if (names.includes(last)) return type as DiscoveredType;
  }
  return null;
}

/** A company board on a hosted job board, not a single posting. */
function isJobBoard(url: URL, segments: string[]): boolean {
  const host = url.hostname.toLowerCase();
  if (BOARD_HOSTS.has(host)) return segments.length === 1;
  if (BOARD_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return segments.length === 0 || (segments.length === 1 && SEGMENTS.careers.includes(segments[0]!));
  }
  return false;
}

/** Deeper pages are articles, postings or sections, not the index page a source should track. */
const MAX_DEPTH = 3;

/**
 * The kind of page `url` is, or null when it is none of the discovered kinds or lies outside the competitor's site.
 * The path decides first (its last segment, so `/blog/some-post` is not the blog); the link text (`Careers` on
 * `/company/open-roles`) decides when the path says nothing.
 */
export function classifyUrl(url: URL, text: string | null, scope: SiteScope): DiscoveredType | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const segments = segmentsOf(url);
  if (isJobBoard(url, segments)) return "careers";
  if (!scope.includes(url.hostname)) return null;
  if (segments.length > MAX_DEPTH) return null;
  if (FEED_PATH.test(segments.join("/"))) return "rss";
  const label = scope.subdomainLabel(url.hostname);
  if (segments.length === 0 && label && SUBDOMAINS[label]) return SUBDOMAINS[label]!;
  const fromPath = byLastSegment(segments);
  if (fromPath) return fromPath;
  // A text-only match on the site's root would be a link back to the homepage ("Home", or a logo titled "News").
  if (segments.length === 0 && !label) return null;
  return byText(text);
}

/**
 * A free-form `source_type` as a contract value: unknown or missing kinds become `other`
 * (docs/product-rules.md#discovery-and-profile).
 */
export function toSourceType(value: unknown): SourceType {
  if (typeof value !== "string") return "other";
  const normalised = value.trim().toLowerCase();
  return (SOURCE_TYPES as readonly string[]).includes(normalised) ? (normalised as SourceType) : "other";
}
