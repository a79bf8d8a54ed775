/**
 * What a digest says (`payload_json`, docs/product-rules.md#digest-content): the workspace's events of `[period_start,
 * period_end)` as headline counts, a few highlighted events, and one section per competitor with its events ordered by
 * severity, then time (newest first). The email renders exactly this, so the API and the mail never disagree.
 *
 * Highlights follow the workspace's alert rules of the digest's frequency (`daily`/`weekly` rules choose which events
 * the member's digest highlights: docs/product-rules.md#alert-rules); a workspace without such rules gets its high and
 * critical events highlighted.
 */
import type { components } from "../../generated/api-types.js";
import { eventAppLink, eventLink } from "../alerts/messages.js";
import { ruleMatches, type MatchableRule } from "../alerts/match.js";
import { eventSourceUrl } from "../db/sql.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import type { Severity } from "../detection/types.js";
import { SEVERITIES, severityAtLeast } from "../lib/severity.js";

export type PeriodType = components["schemas"]["PeriodType"];

const EVENT_TYPES = ["pricing_change", "product_change", "hiring_change", "narrative_change"] as const;

/** Highlighted events at most, and events listed per competitor section (the rest are counted in `more_events`). */
export const MAX_HIGHLIGHTS = 5;
export const MAX_EVENTS_PER_SECTION = 25;
/** Events read per digest at most, most severe and newest first; counts always cover every event of the period. */
const MAX_EVENTS_READ = 5000;

export const PERIOD_HOURS: Readonly<Record<PeriodType, number>> = { daily: 24, weekly: 7 * 24 };

export interface DigestEventItem {
  id: string;
  event_type: string;
  severity: Severity;
  title: string;
  summary: string;
  confidence_score: number;
  detected_at: string;
  source_url: string;
  /** Where the event lives in the API (`${PUBLIC_BASE_URL}/events/<id>`). */
  url: string;
  /** Where a person reads it: the event's page in the web app (`${PUBLIC_BASE_URL}/app/events/<id>`). */
  app_url?: string;
}

export interface DigestSection {
  competitor: { id: string; name: string; domain: string };
  counts: { total: number; by_type: Record<string, number> };
  events: DigestEventItem[];
  /** Events of the competitor in the period beyond the listed ones. */
  more_events: number;
}

export interface DigestPayload {
  workspace: { id: string; name: string };
  period: { type: PeriodType; start: string; end: string };
  headline: string;
  counts: {
    total: number;
    competitors: number;
    by_type: Record<string, number>;
    by_severity: Record<string, number>;
  };
  highlights: DigestEventItem[];
  sections: DigestSection[];
  /**
   * The workspace's sources that are broken when the digest is generated, muted ones left out, longest broken first
   * (docs/product-rules.md#source-health). Absent in digests generated before it existed.
   */
  sources_needing_attention?: SourceNeedingAttention[];
}

/** One broken source in a digest: which page, why in plain words, and what to do. */
export interface SourceNeedingAttention {
  source_id: string;
  source_url: string;
  source_type: string;
  competitor: { id: string; name: string };
  reason: string;
  detail: string;
  action: string;
  since: string;
}

/** Broken sources listed per digest at most. */
export const MAX_SOURCES_NEEDING_ATTENTION = 50;

interface EventRow {
  id: string;
  competitor_id: string;
  competitor_name: string;
  competitor_domain: string;
  event_type: string;
  severity: Severity;
  title: string;
  summary: string;
  confidence_score: number;
  detected_at: Date;
  source_url: string;
}

interface CountRow {
  competitor_id: string;
  event_type: string;
  severity: string;
  n: number;
}

type CompetitorCounts = DigestSection["counts"];

/** The period's event counts: overall, by type, by severity and per competitor. */
interface PeriodCounts {
  total: number;
  byType: Record<string, number>;
  bySeverity: Record<string, number>;
  perCompetitor: Map<string, CompetitorCounts>;
}

function zeroCounts(keys: readonly string[]): Record<string, number> {
  return Object.fromEntries(keys.map((key) => [key, 0]));
}

function headline(total: number, competitors: number, period: PeriodType): string {
  const span = period === "daily" ? "the last 24 hours" : "the last 7 days";
  if (total === 0) return `No competitor changes in ${span}`;
  const changes = total === 1 ? "1 change" : `${total} changes`;
  const from = competitors === 1 ? "1 competitor" : `${competitors} competitors`;
  return `${changes} from ${from} in ${span}`;
}

/** Builds the payload of the scope's workspace's digest for `[start, end)`. Dismissed events are left out. */
export async function buildDigestPayload(
  scope: WorkspaceScope,
  input: { periodType: PeriodType; start: Date; end: Date; publicBaseUrl: string },
): Promise<DigestPayload> {
  const { periodType, start, end } = input;
  const workspace = await scope.db("workspaces").where({ id: scope.workspaceId }).first("id", "name");
  const countRows = await readCountRows(scope, start, end);
  const events = await readEvents(scope, start, end);
  const rules = await readDigestRules(scope, periodType);

  const item = (e: EventRow) => digestItem(e, input.publicBaseUrl);
  const { total, byType, bySeverity, perCompetitor } = tallyCounts(countRows);

  return {
    workspace: { id: scope.workspaceId, name: workspace?.name ?? "" },
    period: { type: periodType, start: start.toISOString(), end: end.toISOString() },
    headline: headline(total, perCompetitor.size, periodType),
    counts: { total, competitors: perCompetitor.size, by_type: byType, by_severity: bySeverity },
    highlights: events
      .filter((e) => isHighlighted(e, rules))
      .slice(0, MAX_HIGHLIGHTS)
      .map(item),
    sections: competitorSections(events, perCompetitor, item),
    sources_needing_attention: await readBrokenSources(scope),
  };
}

/** The broken, unmuted sources of the workspace now, longest broken first. */
async function readBrokenSources(scope: WorkspaceScope): Promise<SourceNeedingAttention[]> {
  const rows: {
    id: string;
    url: string;
    source_type: string;
    competitor_id: string;
    competitor_name: string;
    health_reason: string | null;
    health_detail: string | null;
    health_action: string | null;
    health_changed_at: Date | null;
  }[] = await scope
    .from("sources as s")
    .join("competitors as c", "c.id", "s.competitor_id")
    .where({ "s.health_state": "broken", "s.health_notices_muted": false })
    .orderBy([
      { column: "s.health_changed_at", order: "asc" },
      { column: "s.id", order: "asc" },
    ])
    .limit(MAX_SOURCES_NEEDING_ATTENTION)
    .select(
      "s.id",
      "s.url",
      "s.source_type",
      "c.id as competitor_id",
      "c.name as competitor_name",
      "s.health_reason",
      "s.health_detail",
      "s.health_action",
      "s.health_changed_at",
    );
  return rows.map((row) => ({
    source_id: row.id,
    source_url: row.url,
    source_type: row.source_type,
    competitor: { id: row.competitor_id, name: row.competitor_name },
    reason: row.health_reason ?? "repeated_failures",
    detail: row.health_detail ?? "",
    action: row.health_action ?? "",
    since: (row.health_changed_at ?? new Date(0)).toISOString(),
  }));
}

/** Event counts of the period (dismissed events left out), one row per competitor, event type and severity. */
async function readCountRows(scope: WorkspaceScope, start: Date, end: Date): Promise<CountRow[]> {
  return scope
    .from("events as e")
    .where("e.detected_at", ">=", start)
    .where("e.detected_at", "<", end)
    .whereNot("e.status", "dismissed")
    .groupBy("e.competitor_id", "e.event_type", "e.severity")
    .select("e.competitor_id", "e.event_type", "e.severity", scope.db.raw("count(*)::int AS n"));
}

/** The period's events (dismissed ones left out) with their competitor and source URL, at most MAX_EVENTS_READ. */
async function readEvents(scope: WorkspaceScope, start: Date, end: Date): Promise<EventRow[]> {
  // Severity rank descending, then newest first: the order of every list in the digest.
  const { rows } = await scope.raw<EventRow>(
    `SELECT e.id, e.competitor_id, c.name AS competitor_name, c.domain AS competitor_domain, e.event_type, e.severity,
            e.title, e.summary, e.confidence_score, e.detected_at,
            ${eventSourceUrl("src")} AS source_url
       FROM events e
       JOIN competitors c ON c.id = e.competitor_id
       LEFT JOIN sources src ON src.id = e.source_id
      WHERE e.workspace_id = :workspace_id AND e.detected_at >= :start AND e.detected_at < :end
        AND e.status <> 'dismissed'
      ORDER BY array_position(:severities::text[], e.severity) DESC, e.detected_at DESC, e.id
      LIMIT :limit`,
    { start, end, severities: [...SEVERITIES], limit: MAX_EVENTS_READ },
  );
  return rows;
}

/** The workspace's active alert rules of the digest's frequency, which choose the highlighted events. */
async function readDigestRules(scope: WorkspaceScope, periodType: PeriodType): Promise<MatchableRule[]> {
  return scope
    .from("alert_rules")
    .where({ frequency: periodType, is_active: true })
    .select(
      "competitor_id",
      "event_types_json",
      "severity_threshold",
      "confidence_threshold",
      "delivery_channels_json",
    );
}

/** An event as the digest lists it, linked to its page in the API. */
function digestItem(e: EventRow, publicBaseUrl: string): DigestEventItem {
  return {
    id: e.id,
    event_type: e.event_type,
    severity: e.severity,
    title: e.title,
    summary: e.summary,
    confidence_score: Number(e.confidence_score),
    detected_at: new Date(e.detected_at).toISOString(),
    source_url: e.source_url,
    url: eventLink(publicBaseUrl, e.id),
    app_url: eventAppLink(publicBaseUrl, e.id),
  };
}

/** Whether an event is highlighted: it matches one of the rules, or (without rules) it is high or critical. */
function isHighlighted(e: EventRow, rules: MatchableRule[]): boolean {
  return rules.length > 0
    ? rules.some((rule) => ruleMatches(rule, { ...e, confidence_score: Number(e.confidence_score) }))
    : severityAtLeast(e.severity, "high");
}

/** Totals of the count rows: overall, by type, by severity and per competitor (total and by type). */
function tallyCounts(countRows: CountRow[]): PeriodCounts {
  const byType = zeroCounts(EVENT_TYPES);
  const bySeverity = zeroCounts(SEVERITIES);
  const perCompetitor = new Map<string, CompetitorCounts>();
  for (const row of countRows) {
    byType[row.event_type] = (byType[row.event_type] ?? 0) + row.n;
    bySeverity[row.severity] = (bySeverity[row.severity] ?? 0) + row.n;
    const counts = perCompetitor.get(row.competitor_id) ?? { total: 0, by_type: zeroCounts(EVENT_TYPES) };
    counts.total += row.n;
    counts.by_type[row.event_type] = (counts.by_type[row.event_type] ?? 0) + row.n;
    perCompetitor.set(row.competitor_id, counts);
  }
  const total = countRows.reduce((sum, row) => sum + row.n, 0);
  return { total, byType, bySeverity, perCompetitor };
}

/** One section per competitor with events, listing at most MAX_EVENTS_PER_SECTION of them and counting the rest. */
function competitorSections(
  events: EventRow[],
  perCompetitor: Map<string, CompetitorCounts>,
  item: (e: EventRow) => DigestEventItem,
): DigestSection[] {
  // Sections in the order of their first (most severe, newest) event, so the most important competitor leads.
  const sections = new Map<string, DigestSection>();
  for (const event of events) {
    let section = sections.get(event.competitor_id);
    if (!section) {
      const counts = perCompetitor.get(event.competitor_id) ?? { total: 0, by_type: zeroCounts(EVENT_TYPES) };
      section = {
        competitor: { id: event.competitor_id, name: event.competitor_name, domain: event.competitor_domain },
        counts,
        events: [],
        more_events: counts.total,
      };
      sections.set(event.competitor_id, section);
    }
    if (section.events.length < MAX_EVENTS_PER_SECTION) {
      section.events.push(item(event));
      section.more_events -= 1;
    }
  }
  return [...sections.values()];
}
