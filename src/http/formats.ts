/**
 * What request validation adds to the JSON-schema formats: a value the contract accepts must also be one Postgres
 * can store, or the request would pass validation and fail in the database with a 500
 * (docs/product-rules.md#validation).
 */
import type { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import type { ValidationIssue } from "./errors.js";

const rfc3339DateTime = fullFormats["date-time"] as { validate: (value: string) => boolean };

/** The widest UTC offsets in use (UTC−12:00 to UTC+14:00); Postgres refuses some that RFC 3339 allows (`+23:00`). */
const MAX_OFFSET_MINUTES = 14 * 60;

/**
 * An RFC 3339 date-time that Postgres can store: year 0001 or later (RFC 3339 allows `0000`, Postgres refuses it)
 * and an offset of at most ±14:00.
 */
export function isStorableDateTime(value: string): boolean {
  if (!rfc3339DateTime.validate(value)) return false;
  if (value.startsWith("0000")) return false;
  const offset = /([+-])(\d\d):?(\d\d)$/.exec(value);
  if (offset && Number(offset[2]) * 60 + Number(offset[3]) > MAX_OFFSET_MINUTES) return false;
  return true;
}

/** ajv-formats' formats, with `date-time` narrowed to what Postgres stores. Used by the app and the tests alike. */
export function addContractFormats(ajv: Ajv): Ajv {
  addFormats.default(ajv);
  ajv.addFormat("date-time", { type: "string", validate: isStorableDateTime });
  return ajv;
}

/**
 * Issues for every string holding a NUL character, which Postgres text cannot store: checked on the validated
 * request (path, query, body) so the client learns which field, instead of the database failing the statement.
 */
export function nulCharacterIssues(parts: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (value: unknown, loc: (string | number)[], depth: number): void => {
    if (issues.length >= 10 || depth > 64) return;
    if (typeof value === "string") {
      if (value.includes("\u0000"))
        issues.push({ loc, msg: "String must not contain NUL characters", type: "value_error" });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...loc, i], depth + 1));
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\u0000"))
          issues.push({ loc: [...loc, key], msg: "Key must not contain NUL characters", type: "value_error" });
        visit(item, [...loc, key], depth + 1);
      }
    }
  };
  for (const [part, value] of Object.entries(parts)) visit(value, [part], 0);
  return issues;
}
