/**
 * The live partner digest's text (docs/product-rules.md#partner-api: synthesized from the period's monitor events,
 * grouped by monitor type). Pure: the service loads the events, this builds the sections and their markdown, so the
 * same events always read the same.
 */
import { createHash } from "node:crypto";
import { isoWeek } from "../digests/schedule.js";
import type { Schemas, Severity } from "../http/schemas.js";
import { SEVERITIES, SEVERITY_LABEL } from "../lib/severity.js";
import { MONITOR_HEADING, MONITOR_TYPES, type MonitorType } from "./monitor-types.js";

export type PeriodType = Schemas["PeriodType"];

/** The period a live digest covers, ending at the request (the spec: last 24 h or last 7 days). */
export const PERIOD_MS: Readonly<Record<PeriodType, number>> = { daily: 86_400_000, weekly: 7 * 86_400_000 };
/** Highlights per section (the spec: at most 5). */
export const MAX_HIGHLIGHTS = 5;
/** Events listed per section; the rest are counted, as in stored digests (docs/product-rules.md#digest-content). */
export const MAX_LISTED = 25;
/** Competitors named in the overview; the rest are counted. */
const MAX_NAMED_COMPETITORS = 10;

/** One event of the period as seen through one monitor type. */
export interface DigestEvent {
  id: string;
  monitor_type: MonitorType;
  severity: Severity;
  title: string;
  summary: string;
  competitor_name: string;
  detected_at: Date;
  source_url: string | null;
}

/** `YYYY-MM-DD` (daily) or `YYYY-Www` (weekly, ISO week) of the period's end, in UTC. */
export function periodKey(period: PeriodType, end: Date): string {
  return period === "daily" ? end.toISOString().slice(0, 10) : isoWeek(end);
}

/** A stable UUID-shaped id for one workspace's digest of one period (it is not stored, so it is derived). */
export function digestId(workspaceId: string, period: PeriodType, key: string): string {
  const hex = createHash("sha256").update(`partner-digest|${workspaceId}|${period}|${key}`).digest("hex");
  // Shaped as an RFC 9562 name-based UUID (version 5 bits, variant 10) so clients that parse UUIDs accept it.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const severityRank = (severity: Severity) => SEVERITIES.indexOf(severity);

/** Most severe first, then most recent, then by id: the order of highlights and of each section's list. */
function byImportance(a: DigestEvent, b: DigestEvent): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    b.detected_at.getTime() - a.detected_at.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Backslash-escapes what markdown would read as formatting, so titles and names show as written. */
export function markdownText(text: string): string {
  return text.replace(/\s+/g, " ").replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`);
}

/** A URL usable as a markdown link target: spaces and parentheses would end it early. */
function markdownUrl(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function englishList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** "1 critical, 2 high and 4 medium", most severe first. */
function severityCounts(events: readonly DigestEvent[]): string {
  const parts = [...SEVERITIES]
    .reverse()
    .map((severity) => [severity, events.filter((e) => e.severity === severity).length] as const)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`);
  return englishList(parts);
}

/** "Acme (5), Globex (2)": the competitors with the most events first. */
function competitorCounts(events: readonly DigestEvent[]): string {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.competitor_name, (counts.get(event.competitor_name) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const named = ranked.slice(0, MAX_NAMED_COMPETITORS).map(([name, count]) => `${markdownText(name)} (${count})`);
  const rest = ranked.length - named.length;
  return englishList(rest > 0 ? [...named, `${plural(rest, "other competitor")}`] : named);
}

function utcLabel(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function bullet(event: DigestEvent): string {
  const title = markdownText(event.title);
  const linked = event.source_url ? `[${title}](${markdownUrl(event.source_url)})` : title;
  const summary = event.summary.trim() ? ` — ${markdownText(event.summary)}` : "";
  return `- **${SEVERITY_LABEL[event.severity]}** · ${markdownText(event.competitor_name)} · ${linked}${summary}`;
}

function section(type: MonitorType, events: DigestEvent[]): Schemas["PartnerDigestSection"] {
  const ordered = [...events].sort(byImportance);
  const competitors = new Set(ordered.map((e) => e.competitor_name)).size;
  const lines = [
    `${plural(ordered.length, "change")} from ${plural(competitors, "competitor")}: ${severityCounts(ordered)}.`,
    "",
    ...ordered.slice(0, MAX_LISTED).map(bullet),
  ];
  if (ordered.length > MAX_LISTED) lines.push(`- …and ${plural(ordered.length - MAX_LISTED, "more change")}.`);
  return {
    monitor_type: type,
    heading: MONITOR_HEADING[type],
    body_markdown: lines.join("\n"),
    highlight_event_ids: ordered.slice(0, MAX_HIGHLIGHTS).map((e) => e.id),
  };
}

export interface LiveDigestInput {
  workspaceId: string;
  period: PeriodType;
  start: Date;
  end: Date;
  /** The period's events, one item per (event, monitor type). */
  events: DigestEvent[];
}

export function buildLiveDigest(input: LiveDigestInput): Schemas["PartnerDigest"] {
  const key = periodKey(input.period, input.end);
  const distinct = [...new Map(input.events.map((e) => [e.id, e])).values()];
  const sections = MONITOR_TYPES.map((type) => [type, input.events.filter((e) => e.monitor_type === type)] as const)
    .filter(([, events]) => events.length > 0)
    .map(([type, events]) => section(type, events));
  const window = input.period === "daily" ? "the last 24 hours" : "the last 7 days";
  const until = `(to ${utcLabel(input.end)})`;
  const summary =
    distinct.length === 0
      ? `No changes were detected in ${window} ${until}.`
      : [
          `**${plural(distinct.length, "change")}** in ${window} ${until}, from ${competitorCounts(distinct)}.`,
          "",
          `By severity: ${severityCounts(distinct)}. By monitor: ${sections
            .map((s) => `${s.heading} ${input.events.filter((e) => e.monitor_type === s.monitor_type).length}`)
            .join(" · ")}.`,
        ].join("\n");
  return {
    id: digestId(input.workspaceId, input.period, key),
    workspace_id: input.workspaceId,
    period_key: key,
    period_start: input.start.toISOString(),
    period_end: input.end.toISOString(),
    event_count: distinct.length,
    summary_markdown: summary,
    sections,
  };
}
