/**
 * A partner monitor's health from the recorded outcomes of the fetches of the sources that feed its type
 * (docs/product-rules.md#partner-api: "monitor health is derived from their real outcomes"). Pure: the service reads
 * the figures, this decides `healthy` and writes the sentence a partner shows its customer.
 */
import type { Schemas } from "../http/schemas.js";
import { FEEDING_SOURCE_TYPES, MONITOR_HEADING, type MonitorType } from "./monitor-types.js";

/** What the service reads for one monitor type of one workspace. */
export interface MonitorFigures {
  monitor_id: string;
  monitor_type: MonitorType;
  enabled: boolean;
  /** Active sources of the workspace that feed the type. */
  sources: number;
  /** Of those, never fetched yet. */
  never_fetched: number;
  /** Of those, whose latest fetch failed. */
  failing: number;
  /** The most consecutive failures of any of them. */
  consecutive_failures: number;
  /** The source with the most consecutive failures (latest error first among equals). */
  worst: { url: string; error_message: string | null } | null;
  events_24h: number;
  last_event_at: Date | null;
  last_run_at: Date | null;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function utcLabel(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "pricing", "changelog, docs, blog, rss, press or news": the kinds of source that feed a type. */
function feedingKinds(type: MonitorType): string {
  const kinds = FEEDING_SOURCE_TYPES[type];
  return kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}`;
}

export function monitorHealth(figures: MonitorFigures): Schemas["PartnerMonitorHealth"] {
  const healthy = figures.enabled && figures.sources > 0 && figures.failing === 0;
  return {
    monitor_id: figures.monitor_id,
    monitor_type: figures.monitor_type,
    healthy,
    consecutive_failures: figures.consecutive_failures,
    events_24h: figures.events_24h,
    last_event_at: figures.last_event_at ? figures.last_event_at.toISOString() : null,
    last_run_at: figures.last_run_at ? figures.last_run_at.toISOString() : null,
    status_text: statusText(figures),
  };
}

function statusText(f: MonitorFigures): string {
  const name = MONITOR_HEADING[f.monitor_type];
  if (!f.enabled) return `Paused: the ${name} monitor is disabled, so it lists no events.`;
  if (f.sources === 0) {
    return `Waiting for sources: no active ${feedingKinds(f.monitor_type)} source is tracked for this workspace's competitors yet.`;
  }
  if (f.failing > 0) {
    const reason = f.worst?.error_message ?? "the fetch failed";
    const where = f.worst ? ` on ${f.worst.url}` : "";
    const share = f.failing === f.sources ? `${plural(f.failing, "source")}` : `${f.failing} of ${f.sources} sources`;
    const verb = f.failing === 1 ? "is" : "are";
    return `Failing: ${share} ${verb} not being read; latest error${where}: ${reason} (${plural(f.consecutive_failures, "failed check")} in a row).`;
  }
  if (f.last_run_at === null) {
    return `Scheduled: ${plural(f.sources, "source")} ${f.sources === 1 ? "waits" : "wait"} for ${f.sources === 1 ? "its" : "their"} first check.`;
  }
  const waiting = f.never_fetched > 0 ? `, ${f.never_fetched} still waiting for a first check` : "";
  return `Healthy: ${plural(f.sources - f.never_fetched, "source")} checked${waiting}, last at ${utcLabel(f.last_run_at)}; ${plural(f.events_24h, "event")} in the last 24 hours.`;
}
