/**
 * Discovery and profiling of a competitor's website (docs/product-rules.md#discovery-and-profile): which pages are
 * worth tracking (discover-sources, add-enriched-sources) and what the homepage says about the company (profile). Every
 * fetch goes through the one guarded HTTP client; tenancy comes from CompetitorService and SourceService, so another
 * workspace's competitor is a 404 (docs/product-rules.md#access-and-roles).
 */
import type { components } from "../../generated/api-types.js";
import { CompetitorService } from "../competitors/service.js";
import type { Competitor } from "../competitors/models.js";
import type { Source } from "../sources/models.js";
import { truncate } from "../detection/parse/html.js";
import { mediaType, pageText, PageError } from "../detection/fetch/page-text.js";
import type { ParsePool } from "../detection/parse/parse-pool.js";
import { ApiError, fromDatabaseError, invalid, type ValidationIssue } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import { FetchError, type FetchResult } from "../lib/http-client.js";
import { normalizeUrl } from "../sources/normalize-url.js";
import { SourceService } from "../sources/service.js";
import { discoveryClient, FetchBudget } from "./budget.js";
import { pickCandidates, type Candidate } from "./candidates.js";
import { SiteScope, toSourceType, type DiscoveredType, type SourceType } from "./classify.js";
import type { Homepage } from "./homepage.js";
import type { Sitemap } from "./sitemap.js";

type ProfileResponse = components["schemas"]["ProfileResponse"];
type EnrichedSource = components["schemas"]["EnrichedSource"];
type AddEnrichedSourcesResponse = components["schemas"]["AddEnrichedSourcesResponse"];

/** The contract's defaults for a new source (SourceCreate); 1440 minutes is allowed on every plan. */
const DEFAULT_FREQUENCY_MINUTES = 1440;
/** The contract's limit on a source URL (HttpUrl). */
const MAX_URL_LENGTH = 2048;
/**
 * At most 500 URLs read from sitemap.xml, one level of sitemap index followed
 * (docs/product-rules.md#discovery-and-profile).
 */
const SITEMAP_URL_CAP = 500;
/** Child sitemaps read from an index: enough for the page sitemaps, bounded so one request stays short. */
const SITEMAP_CHILDREN = 2;
/**
 * Candidates are verified concurrently, at most 4 at a time, each with the client's normal timeouts
 * (docs/product-rules.md#discovery-and-profile).
 */
const VERIFY_CONCURRENCY = 4;
/**
 * "per seat", "per user per month", "$49/mo": subscription wording (the business model of
 * docs/product-rules.md#discovery-and-profile).
 */
const SUBSCRIPTION_WORDING = /\bper\s+(?:user|seat|member|month)\b|\/\s*(?:user|seat|mo|month)\b/i;

const LABELS: Record<DiscoveredType, string> = {
  pricing: "Pricing",
  careers: "Careers",
  changelog: "Changelog",
  blog: "Blog",
  news: "News",
  press: "Press",
  docs: "Docs",
  rss: "RSS feed",
};

/** Pricing, hiring and shipping are the moves customers act on; the rest is narrative or context. */
const RELEVANCE: Record<DiscoveredType, "high" | "medium" | "low"> = {
  pricing: "high",
  careers: "high",
  changelog: "high",
  blog: "medium",
  news: "medium",
  press: "medium",
  rss: "medium",
  docs: "low",
};

/** Kinds every competitor should have tracked; the product-news kind is covered by any of its group. */
const KEY_KINDS: { source_type: SourceType; covered_by: SourceType[]; reason: string }[] = [
  {
    source_type: "pricing",
    covered_by: ["pricing"],
    reason: "No pricing page found on the homepage or in sitemap.xml, and none is tracked",
  },
  {
    source_type: "careers",
    covered_by: ["careers"],
    reason: "No careers page or job board found on the homepage or in sitemap.xml, and none is tracked",
  },
  {
    source_type: "changelog",
    covered_by: ["changelog", "blog", "rss", "news"],
    reason: "No changelog, blog or feed found on the homepage or in sitemap.xml, and none is tracked",
  },
];

/** What one look at the website found. */
interface Survey {
  /** The homepage as reached (after redirects). */
  url: string;
  page: Homepage;
  candidates: Candidate[];
}

interface Verification {
  verified: boolean;
  /** The page's `<title>` (a feed's channel title). */
  title: string | null;
  /** Visible text, only when asked for (the pricing page's wording). */
  text: string | null;
  /** The page is an empty JavaScript app shell: it is to be tracked with `fetch_method` `browser`. */
  shell: boolean;
}

type FetchMethod = "http" | "rss" | "browser";
const FETCH_METHODS: readonly string[] = ["http", "rss", "browser"];

/** The method a candidate is tracked with: feeds as feeds, JavaScript shells rendered, other pages over http. */
function fetchMethodFor(sourceType: SourceType, shell: boolean): FetchMethod {
  if (sourceType === "rss") return "rss";
  return shell ? "browser" : "http";
}

/** Media types a browser lays out as a page, where a JavaScript shell can be; "" when the server did not say. */
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml", ""]);

export interface DiscoveryDeps {
  /** Where fetched pages are parsed: off the event loop, within the parse budget (src/detection/parse/parse-pool.ts). */
  parser: ParsePool;
  /** ALLOW_PRIVATE_TARGETS, for the request's own outbound client (src/discovery/budget.ts). */
  allowPrivateTargets: boolean;
}

export class DiscoveryService {
  constructor(
    private readonly workspace: Workspace,
    private readonly deps: DiscoveryDeps,
  ) {}

  /**
   * Creates a source for each candidate whose normalized URL is not tracked yet; returns the sources created. Each
   * new page candidate is fetched (within the request's budget) to see whether it is a JavaScript shell, which is
   * then tracked with `fetch_method` `browser` (docs/product-rules.md#javascript-shells).
   */
  async discover(competitorId: string): Promise<Source[]> {
    const competitor = await new CompetitorService(this.workspace).get(competitorId);
    const tracked = await this.tracked(competitor.id);
    const trackedUrls = new Set(tracked.map((source) => source.normalized_url));
    const { candidates, shells } = await this.withBudget(async (budget) => {
      const survey = await this.survey(competitor, tracked, budget);
      const fresh = survey.candidates.filter((candidate) => !trackedUrls.has(candidate.normalized_url));
      const shells = await mapLimit(fresh, VERIFY_CONCURRENCY, (candidate) =>
        candidate.source_type === "rss" ? Promise.resolve(false) : this.isShell(candidate.url, budget),
      );
      return { candidates: fresh, shells };
    });
    const created: Source[] = [];
    for (const [i, candidate] of candidates.entries()) {
      const method = fetchMethodFor(candidate.source_type, shells[i]!);
      const source = await this.createSource(competitor.id, candidate.url, candidate.source_type, method);
      if (source) created.push(source);
    }
    return created;
  }

  /** Profiles the homepage, verifies every candidate, stores the result in competitor_profiles and returns it. */
  async profile(competitorId: string): Promise<ProfileResponse> {
    const competitor = await new CompetitorService(this.workspace).get(competitorId);
    const tracked = await this.tracked(competitor.id);
    const { url, page, candidates, checks } = await this.withBudget(async (budget) => {
      const survey = await this.survey(competitor, tracked, budget);
      const verified = await mapLimit(survey.candidates, VERIFY_CONCURRENCY, (candidate) =>
        this.verify(candidate.url, candidate.source_type === "pricing", budget),
      );
      return { ...survey, checks: verified };
    });

    const enriched = enrichedSources(candidates, checks);
    const recommendations = recommend(candidates, checks, tracked);
    const profile = companyProfile(url, page, businessModelOf(page, candidates, checks));
    await this.storeProfile(competitor.id, profile, enriched);

    return {
      competitor_id: competitor.id,
      name: competitor.name,
      domain: competitor.domain,
      profile,
      vendor_data: null,
      enriched_sources: enriched,
      recommendations,
      website_sources: tracked.map(websiteSource),
    };
  }

  /**
   * Tracks candidates shaped like `enriched_sources` entries (docs/product-rules.md#discovery-and-profile): `url` must
   * be an http(s) URL, unknown or missing `source_type` becomes `other`, `title` and `description` are not stored. URLs
   * already tracked, and repeats within the request, are skipped.
   */
  async addEnriched(competitorId: string, items: Record<string, unknown>[]): Promise<AddEnrichedSourcesResponse> {
    const competitor = await new CompetitorService(this.workspace).get(competitorId);
    const issues: ValidationIssue[] = [];
    const wanted: { url: string; normalized: string; source_type: SourceType; fetch_method: FetchMethod }[] = [];
    items.forEach((item, i) => {
      const loc = ["body", "sources", i, "url"];
      const url = typeof item.url === "string" ? item.url.trim() : item.url;
      if (url === undefined || url === null) {
        issues.push({ loc, msg: "Field required", type: "missing" });
        return;
      }
      const normalized = typeof url === "string" ? httpUrlOrNull(url) : null;
      if (typeof url !== "string" || !normalized) {
        issues.push({
          loc,
          msg: `Input should be an http(s) URL of at most ${MAX_URL_LENGTH} characters`,
          type: "url_parsing",
        });
        return;
      }
      const sourceType = toSourceType(item.source_type);
      // A recommendation's `fetch_method` (a JavaScript shell's `browser`) is kept; anything else gets the default.
      const method =
        typeof item.fetch_method === "string" && FETCH_METHODS.includes(item.fetch_method)
          ? (item.fetch_method as FetchMethod)
          : fetchMethodFor(sourceType, false);
      wanted.push({ url, normalized, source_type: sourceType, fetch_method: method });
    });
    if (issues.length > 0) throw new ApiError(422, issues);

    const seen = new Set((await this.tracked(competitor.id)).map((source) => source.normalized_url));
    const added: AddEnrichedSourcesResponse["sources"] = [];
    for (const item of wanted) {
      if (seen.has(item.normalized)) continue;
      seen.add(item.normalized);
      const source = await this.createSource(competitor.id, item.url, item.source_type, item.fetch_method);
      if (source) added.push({ id: source.id, source_type: item.source_type, url: source.url });
    }
    return { added: added.length, sources: added };
  }

  /** Stores the profile and the enriched sources as the competitor's row of competitor_profiles (replacing any). */
  private async storeProfile(competitorId: string, profile: CompanyProfile, enriched: EnrichedSource[]): Promise<void> {
    // No external data vendor is configured in this service, so vendor_data is null (ProfileResponse docs).
    const { db } = this.workspace.scope;
    await db("competitor_profiles")
      .insert({
        competitor_id: competitorId,
        profile: JSON.stringify(profile),
        vendor_data: null,
        enriched_sources: JSON.stringify(enriched),
        industry: profile.industry,
        business_model: profile.business_model,
        profiled_at: db.fn.now(),
      })
      .onConflict("competitor_id")
      .merge();
  }

  private tracked(competitorId: string): Promise<Source[]> {
    return new SourceService(this.workspace).listForCompetitor(competitorId);
  }

  /** Runs one request's fetches with their own client and budget (src/discovery/budget.ts), closing the client. */
  private async withBudget<T>(work: (budget: FetchBudget) => Promise<T>): Promise<T> {
    const http = discoveryClient(this.deps.allowPrivateTargets);
    try {
      return await work(new FetchBudget(http));
    } finally {
      await http.close();
    }
  }

  /**
   * Fetches the homepage and sitemap.xml and picks the candidates. The homepage is the URL of the competitor's
   * oldest `homepage` source when it has one, else `https://<domain>/`; a homepage that cannot be fetched or read is
   * a 422 naming the URL and the reason (the operation documents no other status for it).
   */
  private async survey(competitor: Competitor, tracked: Source[], budget: FetchBudget): Promise<Survey> {
    const homepage =
      tracked.find((source) => source.source_type === "homepage")?.url ?? `https://${competitor.domain}/`;
    const requestedHost = new URL(homepage).hostname;
    // sitemap.xml is read alongside the homepage; its failures only mean fewer candidates
    // (docs/product-rules.md#discovery-and-profile).
    const sitemap = this.readSitemap(
      new URL("/sitemap.xml", homepage).toString(),
      new SiteScope([requestedHost, competitor.domain]),
      budget,
    );
    // Marks it handled while the homepage is awaited (or abandoned on a 422); `await sitemap` below still throws.
    sitemap.catch(() => undefined);
    const { fetched, page } = await this.readHomepage(homepage, budget);
    const candidates = pickCandidates({
      links: page.links,
      feeds: page.feeds,
      sitemap: await sitemap,
      scope: new SiteScope([requestedHost, new URL(fetched.url).hostname, competitor.domain]),
      homepages: [homepage, fetched.url],
    }).filter((candidate) => candidate.url.length <= MAX_URL_LENGTH);
    return { url: fetched.url, page, candidates };
  }

  /** The homepage, fetched and parsed; a 422 at the competitor's id when it cannot be. */
  private async readHomepage(homepage: string, budget: FetchBudget): Promise<{ fetched: FetchResult; page: Homepage }> {
    try {
      // The request's first fetch: the budget always allows it.
      const fetched = (await budget.fetchPage(homepage))!;
      const page = await this.deps.parser.run("homepage", { body: pageText(fetched), url: fetched.url });
      return { fetched, page };
    } catch (error) {
      if (error instanceof FetchError || error instanceof PageError) {
        throw invalid(["path", "competitor_id"], `Could not fetch ${homepage}: ${error.message}`);
      }
      throw error;
    }
  }

  /** Page URLs of sitemap.xml, following one level of sitemap index, at most SITEMAP_URL_CAP; [] on any failure. */
  private async readSitemap(url: string, scope: SiteScope, budget: FetchBudget): Promise<string[]> {
    const root = await this.fetchSitemap(url, budget);
    if (!root) return [];
    if (root.kind === "urlset") return root.locs;
    const children = root.locs
      .filter((loc) => {
        const child = new URL(loc);
        // Gzipped sitemaps arrive as compressed bytes (not a Content-Encoding), which the client does not unpack.
        return scope.includes(child.hostname) && !/\.gz$/i.test(child.pathname);
      })
      .slice(0, SITEMAP_CHILDREN);
    const nested = await mapLimit(children, VERIFY_CONCURRENCY, (child) => this.fetchSitemap(child, budget));
    return nested.flatMap((child) => (child?.kind === "urlset" ? child.locs : [])).slice(0, SITEMAP_URL_CAP);
  }

  private async fetchSitemap(url: string, budget: FetchBudget): Promise<Sitemap | null> {
    try {
      const result = await budget.fetchPage(url, { accept: "application/xml,text/xml;q=0.9,*/*;q=0.5" });
      if (!result) return null;
      return await this.deps.parser.run("sitemap", { body: pageText(result), limit: SITEMAP_URL_CAP });
    } catch (error) {
      if (error instanceof FetchError || error instanceof PageError) return null;
      throw error;
    }
  }

  /**
   * Whether the candidate answers a successful fetch, with its title (and its text when `withText`). A page too large,
   * not text or too complex to read still answered: it is verified, without a title. One the request's budget left
   * no room for is not verified.
   */
  private async verify(url: string, withText: boolean, budget: FetchBudget): Promise<Verification> {
    const answered = { verified: true, title: null, text: null, shell: false };
    try {
      const result = await budget.fetchPage(url);
      if (!result) return { verified: false, title: null, text: null, shell: false };
      const body = pageText(result);
      const summary = await this.deps.parser.run("summary", { body, contentType: result.contentType, withText });
      const shell =
        HTML_TYPES.has(mediaType(result.contentType)) && (await this.deps.parser.run("shell", { body })).sign !== null;
      return { verified: true, ...summary, shell };
    } catch (error) {
      if (error instanceof FetchError) return error.kind === "too_large" ? answered : { ...answered, verified: false };
      if (error instanceof PageError) return answered;
      throw error;
    }
  }

  /**
   * Whether the candidate page is an empty JavaScript app shell (src/detection/fetch/js-shell.ts). A page the budget does
   * not allow, that fails or is not HTML is not one: only a page seen to be a shell is tracked with `browser`.
   */
  private async isShell(url: string, budget: FetchBudget): Promise<boolean> {
    try {
      const result = await budget.fetchPage(url);
      if (!result || !HTML_TYPES.has(mediaType(result.contentType))) return false;
      return (await this.deps.parser.run("shell", { body: pageText(result) })).sign !== null;
    } catch (error) {
      if (error instanceof FetchError || error instanceof PageError) return false;
      throw error;
    }
  }

  /** A new source with the contract's defaults; null when a concurrent request tracked the same URL first. */
  private async createSource(
    competitorId: string,
    url: string,
    sourceType: SourceType,
    fetchMethod: FetchMethod,
  ): Promise<Source | null> {
    try {
      return await new SourceService(this.workspace).create(competitorId, {
        url,
        source_type: sourceType,
        fetch_method: fetchMethod,
        fetch_frequency_minutes: DEFAULT_FREQUENCY_MINUTES,
      });
    } catch (error) {
      // Already tracked is exactly what the caller wanted: skip it, as for URLs found tracked beforehand.
      const status = error instanceof ApiError ? error.status : fromDatabaseError(error)?.status;
      if (status === 409) return null;
      throw error;
    }
  }
}

/** The candidates as `enriched_sources` entries: title (link text, page title or label), description, relevance. */
function enrichedSources(candidates: Candidate[], checks: Verification[]): EnrichedSource[] {
  return candidates.map((candidate, i) => ({
    url: candidate.url,
    source_type: candidate.source_type,
    title: truncate(candidate.text || checks[i]!.title || LABELS[candidate.source_type], 120),
    description: describe(candidate),
    relevance: RELEVANCE[candidate.source_type],
    verified: checks[i]!.verified,
  }));
}

/**
 * The profile's recommendations: each verified candidate not tracked yet, then each key kind that neither a candidate
 * nor a tracked source covers.
 */
function recommend(candidates: Candidate[], checks: Verification[], tracked: Source[]): Record<string, unknown>[] {
  const trackedUrls = new Set(tracked.map((source) => source.normalized_url));
  const recommendations: Record<string, unknown>[] = [];
  candidates.forEach((candidate, i) => {
    const check = checks[i]!;
    if (!check.verified || trackedUrls.has(candidate.normalized_url)) return;
    recommendations.push({
      type: "track_source",
      source_type: candidate.source_type,
      url: candidate.url,
      // Shaped like an add-enriched-sources item: a JavaScript shell is proposed with `browser`.
      fetch_method: fetchMethodFor(candidate.source_type, check.shell),
      reason: check.shell
        ? `${describe(candidate)}; reachable and not tracked yet; its content is drawn by JavaScript, so it is to be tracked with fetch_method browser`
        : `${describe(candidate)}; reachable and not tracked yet`,
    });
  });
  const knownTypes = new Set<string>([
    ...candidates.map((candidate) => candidate.source_type),
    ...tracked.map((source) => source.source_type),
  ]);
  for (const kind of KEY_KINDS) {
    if (kind.covered_by.some((type) => knownTypes.has(type))) continue;
    recommendations.push({ type: "missing_source_type", source_type: kind.source_type, reason: kind.reason });
  }
  return recommendations;
}

/** The business-model label: "B2B SaaS, subscription" or null. */
function businessModelOf(page: Homepage, candidates: Candidate[], checks: Verification[]): string | null {
  const pricingIndex = candidates.findIndex((c) => c.source_type === "pricing" && c.origin !== "sitemap");
  const subscriptionWording =
    SUBSCRIPTION_WORDING.test(page.text) ||
    (pricingIndex >= 0 && SUBSCRIPTION_WORDING.test(checks[pricingIndex]!.text ?? ""));
  // Deliberately conservative (docs/product-rules.md#discovery-and-profile): a label only when a linked pricing page
  // and seat/month wording agree.
  return pricingIndex >= 0 && subscriptionWording ? "B2B SaaS, subscription" : null;
}

/** What the homepage (reached at `url`) says about the company, with its industry and business model. */
function companyProfile(url: string, page: Homepage, businessModel: string | null) {
  const industry = page.organization?.industry ?? null;
  const { industry: _industry, ...organization } = page.organization ?? { industry: null };
  return {
    url,
    title: page.title,
    description: page.description,
    og_image: page.og_image,
    site_name: page.site_name,
    language: page.language,
    tagline: page.tagline,
    organization: page.organization ? organization : null,
    social: page.social,
    industry,
    business_model: businessModel,
  };
}

/** The `profile` of a ProfileResponse, as stored in competitor_profiles. */
type CompanyProfile = ReturnType<typeof companyProfile>;

/** A tracked source as a `website_sources` entry. */
function websiteSource(source: Source): Record<string, unknown> {
  return {
    id: source.id,
    url: source.url,
    source_type: source.source_type,
    is_active: source.is_active,
    last_success_at: source.last_success_at ? new Date(source.last_success_at).toISOString() : null,
  };
}

/** Why a candidate is suggested, in the words of where it was found. */
function describe(candidate: Candidate): string {
  const text = truncate(candidate.text, 80);
  const as = text ? ` as '${text}'` : "";
  switch (candidate.origin) {
    case "nav":
      return `Linked from the homepage navigation${as}`;
    case "body":
      return `Linked from the homepage${as}`;
    case "footer":
      return `Linked from the homepage footer${as}`;
    case "feed":
      return `Announced by the homepage as its ${candidate.feed_format === "atom" ? "Atom" : "RSS"} feed${text ? ` '${text}'` : ""}`;
    case "sitemap":
      return "Listed in the site's sitemap.xml";
  }
}

/** The normalized form of an http(s) URL of at most MAX_URL_LENGTH characters, or null. */
function httpUrlOrNull(url: string): string | null {
  if (!/^https?:\/\//i.test(url) || url.length > MAX_URL_LENGTH) return null;
  try {
    return new URL(url).hostname ? normalizeUrl(url) : null;
  } catch {
    return null;
  }
}

/** `fn` over `items`, at most `limit` at a time, results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
