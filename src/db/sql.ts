/** SQL fragments shared by queries that let Postgres build the JSON response. */

/** A timestamptz column as the API writes timestamps everywhere: ISO-8601 UTC with milliseconds and `Z`. */
export function isoTimestamp(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** Escapes `%`, `_` and `\` so user text is matched literally by LIKE/ILIKE. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The page an event was seen on: its source's URL; once the source is deleted (events outlive it), the URL its first
 * evidence recorded; lastly, where the contract needs a string, the competitor's site. Expects the event as `e`, its
 * competitor as `c` and its source LEFT JOINed as `source`.
 */
export function eventSourceUrl(source: string, options: { orCompetitorSite: boolean } = { orCompetitorSite: true }) {
  const evidence = "(SELECT v.source_url FROM evidence v WHERE v.event_id = e.id ORDER BY v.created_at, v.id LIMIT 1)";
  return `coalesce(${source}.url, ${evidence}${options.orCompetitorSite ? ", 'https://' || c.domain" : ""})`;
}
