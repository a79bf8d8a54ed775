/**
 * The public numbers of the marketing site (docs/product-rules.md#public-stats): the demo feed, which shows the one
 * workspace an admin flagged as demo and nothing of any other, and the hero stat, an aggregate over every workspace
 * that publishes no event and no workspace. Both are public: no caller, no workspace of the caller's.
 */
import type { Knex } from "knex";
import { eventSourceUrl } from "../db/sql.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { EventType, Schemas, Wire } from "../http/schemas.js";

/** The feed's window: 30 days, the history every plan keeps (docs/product-rules.md#plans-and-limits). */
export const FEED_WINDOW_HOURS = 720;
/** The hero stat's window. */
export const HERO_WINDOW_DAYS = 30;
/** Below this many events the hero stat publishes no number (docs/product-rules.md#public-stats). */
export const HERO_MIN_SAMPLES = 20;

const EMPTY_FEED: Wire<Schemas["DemoFeed"]> = { competitor_names: [], window_hours: FEED_WINDOW_HOURS, events: [] };

const TAGS: Record<EventType, string> = {
  pricing_change: "Pricing",
  product_change: "Product",
  hiring_change: "Hiring",
  narrative_change: "Narrative",
};

/** What a source is, as a visitor reads it (`Pricing page · acme.com`); see `DemoFeedEvent.source_label`. */
const SOURCE_KINDS: Record<string, string> = {
  homepage: "Homepage",
  pricing: "Pricing page",
  careers: "Careers page",
  blog: "Blog",
  changelog: "Changelog",
  docs: "Docs",
  press: "Press page",
  rss: "Feed",
  social: "Social",
  news: "News",
  reviews: "Reviews",
  other: "Web page",
};

interface FeedRow {
  id: string;
  competitor_name: string;
  event_type: EventType;
  severity: Schemas["Severity"];
  confidence: number;
  title: string;
  summary: string;
  source_type: string | null;
  source_url: string;
  /** As json_agg writes a timestamptz: ISO-8601 with an offset. */
  detected_at: string;
}

export class PublicStats {
  constructor(private readonly knex: Knex) {}

  /**
   * The demo workspace's most recent events of the window (dismissed ones left out), and its competitors' names.
   * The flag is checked again in the statement that reads the events, so a feed never shows a workspace whose flag
   * was cleared (or moved) after it was looked up: it shows the empty payload instead.
   */
  async feed(limit: number): Promise<Wire<Schemas["DemoFeed"]>> {
    const demo = await this.knex("workspaces").where({ is_demo: true }).first("id");
    if (!demo) return EMPTY_FEED;
    const demoScope = new WorkspaceScope(this.knex, demo.id);
    const { rows } = await demoScope.raw<{ names: string[] | null; events: FeedRow[] }>(
      `SELECT
         (SELECT json_agg(c.name ORDER BY c.name, c.id) FROM competitors c WHERE c.workspace_id = :workspace_id) AS names,
         (SELECT coalesce(json_agg(f ORDER BY f.detected_at DESC, f.id DESC), '[]')
          FROM (SELECT e.id, c.name AS competitor_name, e.event_type, e.severity, e.confidence_score AS confidence,
                       e.title, e.summary, source.source_type, ${eventSourceUrl("source")} AS source_url, e.detected_at
                FROM events e
                JOIN competitors c ON c.id = e.competitor_id
                LEFT JOIN sources source ON source.id = e.source_id AND source.workspace_id = :workspace_id
                WHERE e.workspace_id = :workspace_id AND e.status <> 'dismissed'
                  AND e.detected_at >= now() - make_interval(hours => :window_hours)
                ORDER BY e.detected_at DESC, e.id DESC
                LIMIT :limit) f) AS events
       FROM workspaces w WHERE w.id = :workspace_id AND w.is_demo`,
      { window_hours: FEED_WINDOW_HOURS, limit },
    );
    const row = rows[0];
    if (!row) return EMPTY_FEED;
    return {
      competitor_names: row.names ?? [],
      window_hours: FEED_WINDOW_HOURS,
      events: row.events.map((event) => ({
        id: event.id,
        competitor_name: event.competitor_name,
        event_type: event.event_type,
        severity: event.severity,
        confidence: event.confidence,
        title: event.title,
        summary: event.summary,
        tag: TAGS[event.event_type],
        source_label: sourceLabel(event.source_type, event.source_url),
        source_url: event.source_url,
        // json_agg writes timestamps as text with their offset: re-read, so the reply has the API's one format.
        detected_at: new Date(event.detected_at),
      })),
    };
  }

  /**
   * Median hours from a change's own publication (`events.published_at`: a feed item's, release's or post's date) to
   * its detection, over every workspace's events detected in the window that carry one. A publication stated after
   * the detection counts as 0. Below HERO_MIN_SAMPLES events nothing is published, not the number, not the median,
   * not the sample's size (0): on a small deployment a count that moves by one tells a reader when another workspace's
   * change was detected.
   */
  async hero(): Promise<Schemas["HeroStat"]> {
    const { rows } = await acrossWorkspaces(this.knex).raw<{ sample_size: number; median_hours: number | null }>(
      `SELECT count(*)::int AS sample_size,
              percentile_cont(0.5) WITHIN GROUP (
                ORDER BY greatest(0, extract(epoch FROM e.detected_at - e.published_at)) / 3600) AS median_hours
       FROM events e
       WHERE e.published_at IS NOT NULL AND e.detected_at >= now() - make_interval(days => ?)`,
      [HERO_WINDOW_DAYS],
    );
    const { sample_size, median_hours } = rows[0]!;
    const published = sample_size >= HERO_MIN_SAMPLES && median_hours !== null;
    const median = published ? Math.round(Number(median_hours) * 100) / 100 : null;
    return {
      label: "Median time from a competitor's publication to its detection",
      metric: "median_detection_hours",
      value: median === null ? null : formatHours(median),
      median_hours: median,
      sample_size: published ? sample_size : 0,
      window_days: HERO_WINDOW_DAYS,
    };
  }
}

/** `25 min` below an hour (at least `1 min`), `3.2 h` below 10 hours, `14 h` from there (see `HeroStat.value`). */
export function formatHours(hours: number): string {
  const minutes = Math.max(1, Math.round(hours * 60));
  if (minutes < 60) return `${minutes} min`;
  if (hours < 10) {
    const tenths = Math.round(hours * 10) / 10;
    // 9.96 h rounds to 10.0: written as whole hours, like every other value from 10 hours.
    return tenths < 10 ? `${tenths.toFixed(1)} h` : "10 h";
  }
  return `${Math.round(hours)} h`;
}

/** `Pricing page · acme.com`: the source's kind (`Source` once it is deleted) and the page's host without `www.`. */
export function sourceLabel(sourceType: string | null, url: string): string {
  const kind = sourceType === null ? "Source" : (SOURCE_KINDS[sourceType] ?? "Web page");
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^www\./i, "");
  } catch {
    return kind;
  }
  return host ? `${kind} · ${host}` : kind;
}
