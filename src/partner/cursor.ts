/**
 * The opaque cursor of `GET /v1/workspaces/{id}/events` (docs/product-rules.md#partner-api): the sort key of the last
 * item of a page, (`detected_at` to the microsecond, event id, monitor-type rank), as base64url text. Clients pass it
 * back as received; anything else is a 422, never a 500.
 */
import { invalid } from "../http/errors.js";
import { MONITOR_TYPES } from "./monitor-types.js";

export interface CursorKey {
  /** `detected_at` as Postgres wrote it, to the microsecond: `2026-11-24T21:50:04.123456Z`. */
  detected_at: string;
  event_id: string;
  /** 1-based position of the item's monitor type in monitor-type order. */
  rank: number;
}

const VERSION = "v1";
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(`${VERSION}|${key.detected_at}|${key.event_id}|${key.rank}`, "utf8").toString("base64url");
}

/** The key a cursor names, or a 422 at `["query", "cursor"]`. */
export function decodeCursor(cursor: string): CursorKey {
  const malformed = () =>
    invalid(["query", "cursor"], "Invalid cursor: pass back a next_cursor exactly as it was received");
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed();
  const parts = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (parts.length !== 4 || parts[0] !== VERSION) throw malformed();
  const [, detectedAt, eventId, rankText] = parts as [string, string, string, string];
  const rank = Number(rankText);
  if (
    !TIMESTAMP.test(detectedAt) ||
    !isRealInstant(detectedAt) ||
    !UUID.test(eventId) ||
    !/^[1-9]$/.test(rankText) ||
    rank > MONITOR_TYPES.length
  ) {
    throw malformed();
  }
  return { detected_at: detectedAt, event_id: eventId, rank };
}

/** A calendar date and time that exists (no 31 February), from year 1 on, as Postgres accepts them. */
function isRealInstant(timestamp: string): boolean {
  const parsed = Date.parse(timestamp);
  if (Number.isNaN(parsed) || timestamp < "0001") return false;
  return new Date(parsed).toISOString().slice(0, 19) === timestamp.slice(0, 19);
}
