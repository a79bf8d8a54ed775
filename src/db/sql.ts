/** SQL fragments shared by queries that let Postgres build the JSON response. */

/** A timestamptz column as the API writes timestamps everywhere: ISO-8601 UTC with milliseconds and `Z`. */
export function isoTimestamp(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** Escapes `%`, `_` and `\` so user text is matched literally by LIKE/ILIKE. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
