/**
 * How the partner API sees the workspace's events and sources through its eight monitor types
 * (docs/product-rules.md#partner-api). One table, read by the TypeScript rule (alert matching) and by the SQL rule
 * (listing, digest, health), so the two cannot disagree.
 */
import type { Schemas } from "../http/schemas.js";

export type MonitorType = Schemas["MonitorType"];
export type MonitorCadence = Schemas["MonitorCadence"];

/** The order of docs/product-rules.md#enumerations: lists, sections and health items follow it. */
export const MONITOR_TYPES: readonly MonitorType[] = [
  "pricing",
  "product",
  "hiring",
  "narrative",
  "news",
  "social",
  "reviews",
  "funding",
];

/** `pricing_change` → `pricing`, and so on: every event is seen through the monitor of its type. */
export const EVENT_TYPE_MONITOR: Readonly<Record<string, MonitorType>> = {
  pricing_change: "pricing",
  product_change: "product",
  hiring_change: "hiring",
  narrative_change: "narrative",
};

/**
 * Events from sources of these types are also seen through the monitor of the same name. An event tagged with one of
 * them counts too, so a producer without a source row (the mention search) can route its events.
 */
export const CHANNEL_MONITORS: readonly MonitorType[] = ["news", "social", "reviews"];

/** Events tagged `funding` are seen through `funding`. */
export const FUNDING_TAG = "funding";

/**
 * A monitor's runs are the fetches of the sources that feed its type (docs/product-rules.md#partner-api): the source
 * types whose changes the classifier turns into that type's events (src/detection/classify/classify.ts: pricing plans,
 * product items of changelog/docs/blog/rss/press/news, job postings of careers pages, narrative copy of homepage,
 * pricing and other pages), the news/social/reviews sources themselves, and for funding the publications where
 * funding rounds are announced.
 */
export const FEEDING_SOURCE_TYPES: Readonly<Record<MonitorType, readonly string[]>> = {
  pricing: ["pricing"],
  product: ["changelog", "docs", "blog", "rss", "press", "news"],
  hiring: ["careers"],
  narrative: ["homepage", "pricing", "other"],
  news: ["news"],
  social: ["social"],
  reviews: ["reviews"],
  funding: ["press", "news", "blog", "rss"],
};

/** How a monitor type reads as a heading. */
export const MONITOR_HEADING: Readonly<Record<MonitorType, string>> = {
  pricing: "Pricing",
  product: "Product",
  hiring: "Hiring",
  narrative: "Narrative",
  news: "News",
  social: "Social",
  reviews: "Reviews",
  funding: "Funding",
};

/** What the mapping looks at of an event. */
export interface MonitorTypedEvent {
  event_type: string;
  /** The type of the source it came from; `null` once the source is gone (events outlive their source). */
  source_type: string | null;
  tags: readonly string[];
}

/** The monitor types an event is seen through, in monitor-type order. */
export function monitorTypesOf(event: MonitorTypedEvent): MonitorType[] {
  const types = new Set<MonitorType>();
  const byType = EVENT_TYPE_MONITOR[event.event_type];
  if (byType) types.add(byType);
  for (const channel of CHANNEL_MONITORS) {
    if (event.source_type === channel || event.tags.includes(channel)) types.add(channel);
  }
  if (event.tags.includes(FUNDING_TAG)) types.add("funding");
  return MONITOR_TYPES.filter((type) => types.has(type));
}

/**
 * The same rule in SQL: a `text[]` of the monitor types of event `e` with its source LEFT JOINed as `s`, in
 * monitor-type order. Built from the constants above; it names no table.
 */
export function monitorTypesSql(event = "e", source = "s"): string {
  const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;
  // `@>` rather than jsonb's `?` operator, which knex would read as a binding placeholder.
  const hasTag = (tag: string) => `${event}.tags_json @> ${quote(JSON.stringify([tag]))}::jsonb`;
  const byType = Object.entries(EVENT_TYPE_MONITOR)
    .map(([eventType, monitor]) => `WHEN ${quote(eventType)} THEN ${quote(monitor)}`)
    .join(" ");
  const channels = CHANNEL_MONITORS.map(
    (channel) => `CASE WHEN ${source}.source_type = ${quote(channel)} OR ${hasTag(channel)} THEN ${quote(channel)} END`,
  );
  const funding = `CASE WHEN ${hasTag(FUNDING_TAG)} THEN ${quote("funding")} END`;
  return `array_remove(ARRAY[CASE ${event}.event_type ${byType} END, ${channels.join(", ")}, ${funding}]::text[], NULL)`;
}

/** The position of a monitor type in monitor-type order, as SQL over a column or expression. */
export function monitorRankSql(expression: string): string {
  return `array_position(ARRAY[${MONITOR_TYPES.map((type) => `'${type}'`).join(",")}]::text[], ${expression})`;
}
