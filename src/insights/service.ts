/**
 * Aggregated intelligence per competitor, derived from what detection stored: the latest extraction of each source
 * (pricing plans, open jobs, changelog items), the competitor's profile, and its recent events. Every query goes
 * through the caller's WorkspaceScope.
 */
import type { Knex } from "knex";
import { Competitor } from "../competitors/models.js";
import { CompetitorService } from "../competitors/service.js";
import type { DetectionPipeline } from "../detection/pipeline.js";
import {
  isPlanRecord,
  type ContentItem,
  type Extraction,
  type JobPosting,
  type PricingPlan,
} from "../detection/types.js";
import type { Workspace } from "../http/handler.js";
import type { Schemas, Severity, Wire } from "../http/schemas.js";
import { limitsOf } from "../workspaces/plans.js";

const RECENT_EVENTS = 10;
const PRODUCT_SOURCE_TYPES = ["changelog", "blog", "rss", "docs", "press", "news"];

/** The insight as built here: timestamps are Dates until JSON writes them as ISO strings. */
type CompetitorInsight = Wire<Schemas["CompetitorInsight"]>;
type RecentEvent = Wire<Schemas["InsightRecentEvent"]>;
/** The contract leaves the sections' fields open (`Record<string, unknown>`); the builders below fix them. */
type Section = CompetitorInsight["pricing"];

interface LatestExtraction {
  source_id: string;
  source_type: string;
  url: string;
  fetched_at: Date;
  extraction: Extraction;
}

interface PricingMove {
  id: string;
  title: string;
  severity: Severity;
  detected_at: Date;
}

export class InsightService {
  constructor(private readonly workspace: Workspace) {}

  async list(): Promise<Wire<Schemas["InsightList"]>> {
    const competitors = await this.workspace.scope
      .query(Competitor)
      .orderBy([{ column: "created_at" }, { column: "id" }]);
    return { competitors: await Promise.all(competitors.map((competitor) => this.build(competitor))) };
  }

  /**
   * The insight, or the not-found shape when the competitor is not the caller's: the spec answers an unknown
   * competitor with 200 and that shape, not 404 (docs/product-rules.md#insights).
   */
  async get(competitorId: string): Promise<Wire<Schemas["CompetitorInsightResult"]>> {
    const competitor = await this.workspace.scope.query(Competitor).findById(competitorId);
    if (!competitor) return { detail: "Competitor not found", competitor_id: competitorId };
    return this.build(competitor);
  }

  /** Re-runs extraction, diffing and classification over the competitor's stored snapshots (404 when not the caller's). */
  async reanalyze(competitorId: string, detection: DetectionPipeline): Promise<Schemas["ReanalyzeResult"]> {
    const competitor = await new CompetitorService(this.workspace).get(competitorId);
    const snapshots = await this.workspace.scope
      .from("snapshots as n")
      .join("sources as s", "s.id", "n.source_id")
      .where("s.competitor_id", competitor.id)
      .count({ n: "*" })
      .first();
    if (Number(snapshots?.n ?? 0) === 0) {
      return {
        competitor: competitor.name,
        error: "No snapshots to analyse yet: fetch a source first",
        events_generated: null,
      };
    }
    const created = await detection.reanalyzeCompetitor(this.workspace.scope, competitor.id);
    return { competitor: competitor.name, error: null, events_generated: created };
  }

  private async build(competitor: Competitor): Promise<CompetitorInsight> {
    const { scope } = this.workspace;
    const historyDays = limitsOf(this.workspace.caller.plan).history_days;
    const withinHistory = (q: Knex.QueryBuilder) =>
      q
        .where("competitor_id", competitor.id)
        .whereRaw("detected_at >= now() - make_interval(days => ?)", [historyDays]);

    const [counts, profile, latest, recent, pricingMoves, launches, eventCount] = await Promise.all([
      scope
        .from("sources")
        .where({ competitor_id: competitor.id })
        .first(
          scope.db.raw("count(*)::int AS total"),
          scope.db.raw("count(*) FILTER (WHERE last_success_at IS NOT NULL)::int AS scanned"),
        ),
      scope.db("competitor_profiles").where({ competitor_id: competitor.id }).first(),
      this.latestExtractions(competitor.id),
      withinHistory(scope.from("events"))
        .orderBy([
          { column: "detected_at", order: "desc" },
          { column: "id", order: "desc" },
        ])
        .limit(RECENT_EVENTS)
        .select<RecentEvent[]>("id", "title", "summary", "event_type", "severity", "confidence_score", "detected_at"),
      withinHistory(scope.from("events"))
        .where({ event_type: "pricing_change" })
        .orderBy("detected_at", "desc")
        .limit(5)
        .select<PricingMove[]>("id", "title", "severity", "detected_at"),
      withinHistory(scope.from("events")).where({ event_type: "product_change" }).count({ n: "*" }).first(),
      withinHistory(scope.from("events")).count({ n: "*" }).first(),
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
    return this.workspace.scope
      .from("sources as s")
      .join("snapshots as n", "n.id", "s.last_snapshot_id")
      .where("s.competitor_id", competitorId)
      .select("s.id as source_id", "s.source_type", "s.url", "n.fetched_at", "n.extraction");
  }
}

function pricingInsight(latest: LatestExtraction[], moves: PricingMove[]): Section {
  const withPlans = latest.filter((l) => l.extraction.pricing.length > 0);
  // The pricing page is the authority; other pages' price mentions only when it has none.
  const best = withPlans.find((l) => l.source_type === "pricing") ?? withPlans[0];
  if (!best && moves.length === 0) return {};
  // Plans only: add-ons and usage meters are priced records of their own, not tiers (docs/real-pages.md).
  const plans: PricingPlan[] = (best?.extraction.pricing ?? []).filter(isPlanRecord);
  return {
    plans: plans.map(({ name, amount, currency, period, is_free }) => ({ name, amount, currency, period, is_free })),
    has_free_plan: plans.some((p) => p.is_free),
    source_url: best?.url ?? null,
    observed_at: best?.fetched_at ?? null,
    recent_moves: moves,
  };
}

function productInsight(latest: LatestExtraction[], launches: number): Section {
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

function hiringInsight(latest: LatestExtraction[]): Section {
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
