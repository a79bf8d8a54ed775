/**
 * Aggregated intelligence per competitor, derived from what detection stored: the latest extraction of each source
 * (pricing plans, open jobs, changelog items), the competitor's profile, and its recent events.
 */
import type { Knex } from "knex";
import type { AuthContext } from "../http/handler.js";
import type { Schemas, Wire } from "../http/schemas.js";
import type { ContentItem, Extraction, JobPosting, PricingPlan } from "../detection/types.js";
import { limitsOf } from "../workspaces/plans.js";

const RECENT_EVENTS = 10;
const PRODUCT_SOURCE_TYPES = ["changelog", "blog", "rss", "docs", "press", "news"];

/** The insight as built here: timestamps are Dates until JSON writes them as ISO strings. */
type CompetitorInsight = Wire<Schemas["CompetitorInsight"]>;
type RecentEvent = Wire<Schemas["InsightRecentEvent"]>;

interface LatestExtraction {
  source_id: string;
  source_type: string;
  url: string;
  fetched_at: Date;
  extraction: Extraction;
}

export class InsightService {
  constructor(
    private readonly knex: Knex,
    private readonly caller: AuthContext,
  ) {}

  async list(): Promise<CompetitorInsight[]> {
    const competitors = await this.knex("competitors")
      .where({ workspace_id: this.caller.workspaceId })
      .orderBy([{ column: "created_at" }, { column: "id" }]);
    return Promise.all(competitors.map((competitor) => this.build(competitor)));
  }

  /** The insight, or `null` when the competitor is not the caller's (the handler answers the not-found shape). */
  async get(competitorId: string): Promise<CompetitorInsight | null> {
    const competitor = await this.knex("competitors")
      .where({ id: competitorId, workspace_id: this.caller.workspaceId })
      .first();
    return competitor ? this.build(competitor) : null;
  }

  private async build(competitor: {
    id: string;
    name: string;
    domain: string;
    description: string | null;
  }): Promise<CompetitorInsight> {
    const historyDays = limitsOf(this.caller.plan).history_days;
    const withinHistory = (q: Knex.QueryBuilder) =>
      q
        .where("competitor_id", competitor.id)
        .whereRaw("detected_at >= now() - make_interval(days => ?)", [historyDays]);

    const [counts, profile, latest, recent, pricingMoves, launches, eventCount] = await Promise.all([
      this.knex("sources")
        .where({ competitor_id: competitor.id })
        .first(
          this.knex.raw("count(*)::int AS total"),
          this.knex.raw("count(*) FILTER (WHERE last_success_at IS NOT NULL)::int AS scanned"),
        ),
      this.knex("competitor_profiles").where({ competitor_id: competitor.id }).first(),
      this.latestExtractions(competitor.id),
      withinHistory(this.knex("events"))
        .orderBy([
          { column: "detected_at", order: "desc" },
          { column: "id", order: "desc" },
        ])
        .limit(RECENT_EVENTS)
        .select<RecentEvent[]>("id", "title", "summary", "event_type", "severity", "confidence_score", "detected_at"),
      withinHistory(this.knex("events"))
        .where({ event_type: "pricing_change" })
        .orderBy("detected_at", "desc")
        .limit(5)
        .select("id", "title", "severity", "detected_at"),
      withinHistory(this.knex("events")).where({ event_type: "product_change" }).count({ n: "*" }).first(),
      withinHistory(this.knex("events")).count({ n: "*" }).first(),
    ]);

    return {
      id: competitor.id,
      name: competitor.name,
      domain: competitor.domain,
      description: competitor.description,
      industry: profile?.industry ?? null,
      business_model: profile?.business_model ?? null,
      event_count: Number(eventCount?.n ?? 0),
      scanned_sources: counts?.scanned ?? 0,
      total_sources: counts?.total ?? 0,
      profile: profile?.profile ?? {},
      pricing: pricingInsight(latest, pricingMoves),
      product: productInsight(latest, Number(launches?.n ?? 0)),
      hiring: hiringInsight(latest),
      recent_events: recent,
    };
  }

  /** The newest snapshot's extraction of every source of the competitor. */
  private async latestExtractions(competitorId: string): Promise<LatestExtraction[]> {
    return this.knex("sources as s")
      .join("snapshots as n", "n.id", "s.last_snapshot_id")
      .where("s.competitor_id", competitorId)
      .select("s.id as source_id", "s.source_type", "s.url", "n.fetched_at", "n.extraction");
  }
}

function pricingInsight(latest: LatestExtraction[], moves: unknown[]): Record<string, unknown> {
  const withPlans = latest.filter((l) => l.extraction.pricing.length > 0);
  // The pricing page is the authority; other pages' price mentions only when it has none.
  const best = withPlans.find((l) => l.source_type === "pricing") ?? withPlans[0];
  if (!best && moves.length === 0) return {};
  const plans: PricingPlan[] = best?.extraction.pricing ?? [];
  return {
    plans: plans.map(({ name, amount, currency, period, is_free }) => ({ name, amount, currency, period, is_free })),
    has_free_plan: plans.some((p) => p.is_free),
    source_url: best?.url ?? null,
    observed_at: best?.fetched_at ?? null,
    recent_moves: moves,
  };
}

function productInsight(latest: LatestExtraction[], launches: number): Record<string, unknown> {
  const items: (ContentItem & { source_url: string })[] = latest
    .filter((l) => PRODUCT_SOURCE_TYPES.includes(l.source_type))
    .flatMap((l) => l.extraction.items.map((item) => ({ ...item, source_url: l.url })));
  if (items.length === 0 && launches === 0) return {};
  items.sort((a, b) => (b.date ?? "").localeCompare(a.date ?? ""));
  return {
    latest_items: items
      .slice(0, 10)
      .map(({ title, date, url, source_url }) => ({ title, date, url: url ?? source_url })),
    product_events_in_history: launches,
  };
}

function hiringInsight(latest: LatestExtraction[]): Record<string, unknown> {
  const careers = latest.filter((l) => l.extraction.jobs.length > 0);
  if (careers.length === 0) return {};
  const jobs: JobPosting[] = careers.flatMap((l) => l.extraction.jobs);
  const tally = (values: (string | null)[]) =>
    Object.fromEntries(
      [
        ...values.reduce(
          (m, v) => m.set(v ?? "Unspecified", (m.get(v ?? "Unspecified") ?? 0) + 1),
          new Map<string, number>(),
        ),
      ].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    );
  return {
    open_roles: jobs.length,
    departments: tally(jobs.map((j) => j.department)),
    locations: tally(jobs.map((j) => j.location)),
    roles: jobs.slice(0, 50).map(({ title, location, department, url }) => ({ title, location, department, url })),
    source_urls: careers.map((l) => l.url),
    observed_at: careers.map((l) => l.fetched_at).sort((a, b) => b.getTime() - a.getTime())[0],
  };
}
