/**
 * What a competitor's homepage says about the company and where its other pages are
 * (docs/product-rules.md#discovery-and-profile, profile and discover-sources): links with where they sit (navigation,
 * body, footer), RSS/Atom autodiscovery, the page's metadata (title, meta and Open Graph tags, `lang`, first h1), the
 * JSON-LD Organization and social profile links.
 */
import type { CheerioAPI } from "cheerio";
import { absoluteUrl, blockLines, bodyOf, collapse, loadHtml, textContent, truncate } from "../detection/parse/html.js";
import {
  asArray,
  hasType,
  isObject,
  readJsonLd,
  resolveRef,
  textOf,
  type JsonLd,
  type JsonObject,
} from "../detection/read/jsonld.js";

/** Where a link sits: navigation links are the site's own map, so they win over body and footer links. */
export type LinkArea = "nav" | "body" | "footer";

export interface PageLink {
  /** Absolute URL without its fragment. */
  url: string;
  /** Link text (or its aria-label, title or image alt), whitespace collapsed; "" when it has none. */
  text: string;
  area: LinkArea;
}

export interface FeedLink {
  url: string;
  format: "rss" | "atom";
  /** The `title` attribute of the `<link>`, when given. */
  title: string | null;
}

export interface Organization {
  name: string | null;
  legal_name: string | null;
  url: string | null;
  logo: string | null;
  founding_date: string | null;
  /** `numberOfEmployees` as written: an exact count ("120") or a range ("51-200"). */
  employees: string | null;
  /** One line: street, locality, region, postal code, country. */
  address: string | null;
  same_as: string[];
  /** Non-standard `industry`, else up to three `knowsAbout` topics; feeds the profile's `industry`. */
  industry: string | null;
}

export const SOCIAL_NETWORKS = ["twitter", "linkedin", "github", "youtube", "facebook", "instagram"] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

export interface Homepage {
  title: string | null;
  description: string | null;
  og_image: string | null;
  site_name: string | null;
  language: string | null;
  tagline: string | null;
  organization: Organization | null;
  social: Record<SocialNetwork, string | null>;
  links: PageLink[];
  feeds: FeedLink[];
  /** Visible text, one block per line (for wording checks such as "per seat"). */
  text: string;
}

const MAX_LINKS = 2000;

/** Reads a fetched homepage; `pageUrl` is its final URL (after redirects), the base of relative links. */
export function readHomepage(body: string, pageUrl: string): Homepage {
  const $ = loadHtml(body);
  const base = absoluteUrl($("base[href]").first().attr("href"), pageUrl) ?? pageUrl;
  const meta = metaTags($);
  const links = readLinks($, base);
  const organization = readOrganization(readJsonLd($), base);
  const h1 = $("h1").first().get(0);
  return {
    title: collapse($("title").first().text()) || null,
    description: meta.get("description") ?? meta.get("og:description") ?? meta.get("twitter:description") ?? null,
    og_image: absoluteUrl(meta.get("og:image") ?? meta.get("og:image:url"), base),
    site_name: meta.get("og:site_name") ?? null,
    language: collapse($("html").attr("lang")) || null,
    tagline: h1 ? truncate(collapse(textContent(h1))) || null : null,
    organization,
    social: socialProfiles([...(organization?.same_as ?? []), ...links.map((link) => link.url)]),
    links,
    feeds: readFeeds($, base),
    text: blockLines(bodyOf($).get(0) ?? $.root().get(0)!).join("\n"),
  };
}

/** `<meta name|property="…" content="…">`, names lowercased, first non-empty value of each name. */
function metaTags($: CheerioAPI): Map<string, string> {
  const tags = new Map<string, string>();
  $("meta").each((_, el) => {
    const name = (el.attribs.name ?? el.attribs.property ?? "").trim().toLowerCase();
    const content = collapse(el.attribs.content);
    if (name && content && !tags.has(name)) tags.set(name, content);
  });
  return tags;
}

function withoutFragment(url: string): string {
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.toString();
}

function readLinks($: CheerioAPI, base: string): PageLink[] {
  const links: PageLink[] = [];
  $("a[href], area[href]").each((_, el) => {
    if (links.length >= MAX_LINKS) return false;
    const url = absoluteUrl(el.attribs.href, base);
    if (!url || !/^https?:/i.test(url)) return;
    const $el = $(el);
    // A navigation menu inside the footer is still the footer.
    const area: LinkArea =
      $el.closest("footer, [role=contentinfo]").length > 0
        ? "footer"
        : $el.closest("nav, header, [role=navigation], [role=banner]").length > 0
          ? "nav"
          : "body";
    const text =
      collapse(textContent(el)) ||
      collapse(el.attribs["aria-label"]) ||
      collapse(el.attribs.title) ||
      collapse($el.find("img[alt]").first().attr("alt"));
    links.push({ url: withoutFragment(url), text, area });
  });
  return links;
}

/** RSS/Atom autodiscovery: `<link rel="alternate" type="application/rss+xml|application/atom+xml" href>`. */
function readFeeds($: CheerioAPI, base: string): FeedLink[] {
  const feeds: FeedLink[] = [];
  $("link[href]").each((_, el) => {
    const rel = (el.attribs.rel ?? "").toLowerCase().split(/\s+/);
    const type = (el.attribs.type ?? "").toLowerCase().split(";")[0]!.trim();
    if (!rel.includes("alternate")) return;
    const format = type === "application/rss+xml" ? "rss" : type === "application/atom+xml" ? "atom" : null;
    const url = absoluteUrl(el.attribs.href, base);
    if (!format || !url || !/^https?:/i.test(url)) return;
    feeds.push({ url: withoutFragment(url), format, title: collapse(el.attribs.title) || null });
  });
  return feeds;
}

/** schema.org Organization and the subtypes companies publish themselves as. */
const ORGANIZATION_TYPES = [
  "Organization",
  "Corporation",
  "OnlineBusiness",
  "OnlineStore",
  "LocalBusiness",
  "ProfessionalService",
  "NGO",
  "NewsMediaOrganization",
  "EducationalOrganization",
];

function urlOf(value: unknown, base: string, ld: JsonLd): string | null {
  for (const item of asArray(value)) {
    const resolved = resolveRef(ld, item);
    const raw =
      typeof resolved === "string"
        ? resolved
        : isObject(resolved)
          ? (textOf(resolved.url) ?? textOf(resolved.contentUrl) ?? textOf(resolved["@id"]))
          : null;
    const url = absoluteUrl(raw, base);
    if (url && /^https?:/i.test(url)) return url;
  }
  return null;
}

function employeesOf(value: unknown): string | null {
  const item = asArray(value)[0];
  if (typeof item === "number" || typeof item === "string") return collapse(String(item)) || null;
  if (!isObject(item)) return null;
  const exact = textOf(item.value);
  if (exact) return exact;
  const min = textOf(item.minValue);
  const max = textOf(item.maxValue);
  if (min && max) return `${min}-${max}`;
  if (min) return `${min}+`;
  return max ? `up to ${max}` : null;
}

function addressOf(value: unknown, ld: JsonLd): string | null {
  const item = resolveRef(ld, asArray(value)[0]);
  if (typeof item === "string") return collapse(item) || null;
  if (!isObject(item)) return null;
  const locality = [textOf(item.addressRegion), textOf(item.postalCode)].filter(Boolean).join(" ");
  const parts = [textOf(item.streetAddress), textOf(item.addressLocality), locality, textOf(item.addressCountry)];
  return parts.filter(Boolean).join(", ") || null;
}

function industryOf(node: JsonObject): string | null {
  const industry = textOf(node.industry);
  if (industry) return industry;
  const topics = asArray(node.knowsAbout)
    .map((topic) => textOf(topic))
    .filter((topic): topic is string => !!topic);
  return topics.length > 0 ? topics.slice(0, 3).join(", ") : null;
}

/**
 * The Organization the page describes: with several (a publisher, a parent company, partners), the one whose `url`
 * is on the page's host, else the first.
 */
function readOrganization(ld: JsonLd, base: string): Organization | null {
  const organizations = ld.nodes.filter((node) => hasType(node, ...ORGANIZATION_TYPES));
  if (organizations.length === 0) return null;
  const host = new URL(base).hostname.replace(/^www\./, "");
  const own = organizations.find((node) => {
    const url = urlOf(node.url, base, ld);
    return url !== null && new URL(url).hostname.replace(/^www\./, "") === host;
  });
  const node = own ?? organizations[0]!;
  const sameAs = asArray(node.sameAs)
    .map((value) => absoluteUrl(textOf(value), base))
    .filter((url): url is string => !!url && /^https?:/i.test(url));
  return {
    name: textOf(node.name),
    legal_name: textOf(node.legalName),
    url: urlOf(node.url, base, ld),
    logo: urlOf(node.logo, base, ld),
    founding_date: textOf(node.foundingDate),
    employees: employeesOf(node.numberOfEmployees),
    address: addressOf(node.address, ld),
    same_as: [...new Set(sameAs)],
    industry: industryOf(node),
  };
}

const SOCIAL_HOSTS: Record<string, SocialNetwork> = {
  "twitter.com": "twitter",
  "x.com": "twitter",
  "linkedin.com": "linkedin",
  "github.com": "github",
  "youtube.com": "youtube",
  "facebook.com": "facebook",
  "instagram.com": "instagram",
};

/** Share buttons, intents, embeds and single posts: links to content, not to the company's profile. */
const NOT_A_PROFILE =
  /^\/(?:intent|share|sharer|sharing|shareArticle|dialog|plugins|embed|watch|home|search|hashtag|p|reel|status)(?:[/.?]|$)|\/status\/|\/posts\//i;

/** The company's profile on each network: schema.org `sameAs` first, then the page's links, first one wins. */
export function socialProfiles(urls: string[]): Record<SocialNetwork, string | null> {
  const found = Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, null])) as Record<
    SocialNetwork,
    string | null
  >;
  for (const raw of urls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    const host = url.hostname.toLowerCase().replace(/^(?:www|m|mobile)\./, "");
    const network = SOCIAL_HOSTS[host];
    if (!network || found[network] || url.pathname.replace(/\/+$/, "") === "") continue;
    if (NOT_A_PROFILE.test(url.pathname)) continue;
    // LinkedIn people pages are employees' profiles; the company's page is under /company/ (or /showcase/).
    if (network === "linkedin" && !/^\/(?:company|showcase|school)\//i.test(url.pathname)) continue;
    found[network] = url.toString();
  }
  return found;
}
