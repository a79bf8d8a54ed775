/**
 * One error type, one renderer (docs/architecture.md#one-error-type). Envelopes are FastAPI's
 * (docs/product-rules.md#error-envelopes):
 * 422 `{detail: [{loc, msg, type}]}`, everything else `{detail: "message"}`.
 */
import type { ErrorObject } from "ajv";

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === "string" ? detail : "Request validation failed");
  }

  get body(): { detail: string | ValidationIssue[] } {
    return { detail: this.detail };
  }
}

export const unauthorized = (detail = "Not authenticated") =>
  new ApiError(401, detail, { "WWW-Authenticate": "Bearer" });
export const forbidden = (detail: string) => new ApiError(403, detail);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (detail: string) => new ApiError(409, detail);
export const tooManyRequests = (retryAfterSeconds: number, detail = "Too many attempts; try again later") =>
  new ApiError(429, detail, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** A 422 naming one field, for rules the schema cannot express (e.g. an unknown time zone). */
export function invalid(loc: (string | number)[], msg: string, type = "value_error"): ApiError {
  return new ApiError(422, [{ loc, msg, type }]);
}

/** openapi-backend validates one object `{requestBody, query, path, headers}`; FastAPI names those parts so. */
const PART_NAMES: Record<string, string> = { requestBody: "body", query: "query", path: "path", headers: "header" };

/** Maps Ajv keywords to FastAPI/pydantic error types, which clients of this contract already switch on. */
function issueType(error: ErrorObject): string {
  switch (error.keyword) {
    case "required":
      return "missing";
    case "type":
      return `${String(error.params.type).split(",")[0]}_type`;
    case "enum":
      return "enum";
    case "format":
      return "value_error";
    case "minimum":
    case "exclusiveMinimum":
      return "greater_than_equal";
    case "maximum":
    case "exclusiveMaximum":
      return "less_than_equal";
    case "minLength":
      return "string_too_short";
    case "maxLength":
      return "string_too_long";
    case "minItems":
      return "too_short";
    case "maxItems":
      return "too_long";
    case "pattern":
      return "string_pattern_mismatch";
    case "additionalProperties":
      return "extra_forbidden";
    default:
      return error.keyword;
  }
}

function issueMessage(error: ErrorObject): string {
  switch (error.keyword) {
    case "required":
      return "Field required";
    case "enum":
      return `Input should be ${(error.params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(", ")}`;
    case "format":
      return `Input should be a valid ${String(error.params.format).replace("date-time", "ISO-8601 date-time")}`;
    default:
      return error.message ? error.message.charAt(0).toUpperCase() + error.message.slice(1) : "Invalid value";
  }
}

/** Turns Ajv errors from openapi-backend into FastAPI-style issues with `loc` paths like `["body", "name"]`. */
export function validationIssues(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    // Ajv reports `nullable` / `anyOf` wrappers alongside the real failure; the specific one is enough.
    if (error.keyword === "anyOf" || error.keyword === "oneOf" || error.keyword === "if") continue;
    const segments = error.instancePath
      .split("/")
      .slice(1)
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (error.keyword === "required") segments.push(String(error.params.missingProperty));
    if (error.keyword === "additionalProperties") segments.push(String(error.params.additionalProperty));
    const [part = "body", ...rest] = segments;
    const loc: (string | number)[] = [PART_NAMES[part] ?? part, ...rest.map((s) => (/^\d+$/.test(s) ? Number(s) : s))];
    const issue = { loc, msg: issueMessage(error), type: issueType(error) };
    const key = JSON.stringify(issue.loc) + issue.type;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues.length > 0 ? issues : [{ loc: ["body"], msg: "Invalid request", type: "value_error" }];
}

/** Postgres error codes a client can cause, mapped once here (Ghost's habit: constraint failures become clean 4xx). */
export function fromDatabaseError(error: unknown): ApiError | null {
  const code = (error as { code?: string } | null)?.code;
  const constraint = (error as { constraint?: string } | null)?.constraint ?? "";
  if (code === "23505") return conflict(`Already exists (${constraint.replace(/_/g, " ")})`);
  if (code === "23503") return notFound("Referenced resource");
  // Class 22 (data exception: a date or number out of range, bad text encoding) and 54000 (a value too large for an
  // index) are caused by a value the request carried that validation let through: the client's error, not ours.
  // Validation should catch each such value by name first (src/http/formats.ts); this is the net under it.
  if (code?.startsWith("22") || code === "54000") {
    return new ApiError(422, [
      { loc: ["request"], msg: "A value in the request cannot be stored", type: "value_error" },
    ]);
  }
  return null;
}
