/**
 * Masking of volatile tokens. A page that only changes its clock, "updated N minutes ago", visitor counter, CSRF
 * value, copyright year or build hash must yield no diff (docs/real-pages.md#volatile-content-and-boilerplate), so
 * those tokens are replaced by stable placeholders before anything is compared. Prices and plan names are never
 * touched: they are the changes the product exists to report.
 */

const MONTH =
  "(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const WEEKDAY =
  "(?:Mon(?:day)?|Tue(?:s(?:day)?)?|Wed(?:nesday)?|Thu(?:r(?:s(?:day)?)?)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)\\.?";
const WEEKDAY_FULL = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const ORDINAL = "(?:st|nd|rd|th)?";
/** A counted quantity: 1,234 · 98765 · 1.2k · 3M+. */
const COUNT = "\\d[\\d,.\\u00a0]*(?:\\s?[kKmM]\\b)?\\+?";
/** Not part of a price or a larger number: "$1,234 online" keeps its price. */
const NOT_AFTER_MONEY = "(?<![\\d.,$€£¥₹])";

export const PLACEHOLDER = { date: "‹date›", time: "‹time›", n: "‹n›", token: "‹token›", year: "‹year›" } as const;

/**
 * A pattern, its replacement, and what any text it matches must hold, checked before the pattern runs: NEEDS_DIGIT
 * (a digit), or one of a few lower-case literals (`["ago"]`). Most lines hold neither, and a substring test costs a
 * fraction of a case-insensitive alternation scanned from every position: a pricing page masks thousands of lines.
 */
type Rule = [
  RegExp,
  string | ((match: string, ...groups: string[]) => string),
  needsDigit?: boolean,
  needsOneOf?: readonly string[],
];
const NEEDS_DIGIT = true;
const ANY_TEXT = false;
const DATE_SEPARATORS = ["-", "/", "."];
const MONTH_HINTS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Order matters: wide patterns (timestamps, tokens) run before the narrow ones they contain (dates, times). */
const RULES: Rule[] = [
  // Copyright years: "© 2026", "Copyright 2019–2026", "(c) 2026".
  [
    /(©|\([cC]\)|\bcopyright\b)(\s*(?:©|\([cC]\))?\s*)\d{4}(?:\s*[-–—]\s*(?:\d{4}|present))?/gi,
    (_m, mark: string, space: string) => `${mark}${space || " "}${PLACEHOLDER.year}`,
    NEEDS_DIGIT,
    ["©", "(c)", "copyright"],
  ],
  // Cache-busting query values in visible URLs: app.css?v=1732273927.
  [
    /([?&](?:v|ver|version|t|ts|_|cb|cachebust(?:er)?|cache|bust|rev|build|timestamp|nocache|hash)=)[\w.-]+/gi,
    `$1${PLACEHOLDER.n}`,
    ANY_TEXT,
    ["="],
  ],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, PLACEHOLDER.token, ANY_TEXT, ["-"]],
  // Short hashes are only volatile next to a word that says so: "Build 3f9c2a1", "Ray ID: 8e1f2a3b4c5d6e7f".
  [
    /\b(build|commit|revision|rev|sha|hash|deploy(?:ment)?(?:\s+id)?|release\s+id|request\s+id|trace\s+id|ray\s+id)(\s*[:#]?\s*)(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b/gi,
    `$1$2${PLACEHOLDER.token}`,
    NEEDS_DIGIT,
    ["build", "commit", "rev", "sha", "hash", "deploy", "release", "request", "trace", "ray"],
  ],
  [
    /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?(?:Z\b|UTC\b|GMT\b|[+-]\d{2}:?\d{2}))?/g,
    PLACEHOLDER.date,
    NEEDS_DIGIT,
    [":"],
  ],
  [/[A-Za-z0-9+/_=-]{20,}/g, (m) => (looksRandom(m) ? PLACEHOLDER.token : m)],
  // Unix timestamps and other long counters (10+ digits); phone numbers are written with separators.
  [/(?<![\d.,])\d{10,}(?![\d.,])/g, PLACEHOLDER.n, NEEDS_DIGIT],
  // Numeric dates. Two-digit years only with slashes, so "version 1.2.10" stays a version.
  [/(?<![\d.,/])\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?![\d])/g, PLACEHOLDER.date, NEEDS_DIGIT, DATE_SEPARATORS],
  [
    /(?<![\d.,/])\d{1,2}(?:\/\d{1,2}\/(?:\d{4}|\d{2})|\.\d{1,2}\.\d{4}|-\d{1,2}-\d{4})(?![\d])/g,
    PLACEHOLDER.date,
    NEEDS_DIGIT,
    DATE_SEPARATORS,
  ],
  // Written dates: "Sunday, November 22, 2026", "Nov 22", "22nd of November 2026", "November 2026".
  [
    new RegExp(`\\b(?:${WEEKDAY},?\\s+)?${MONTH}\\s+\\d{1,2}${ORDINAL}\\b(?:,?\\s+\\d{4}\\b)?`, "g"),
    PLACEHOLDER.date,
    NEEDS_DIGIT,
    MONTH_HINTS,
  ],
  [
    new RegExp(`\\b(?:${WEEKDAY},?\\s+)?\\d{1,2}${ORDINAL}\\s+(?:of\\s+)?${MONTH}(?![a-z])(?:,?\\s+\\d{4}\\b)?`, "g"),
    PLACEHOLDER.date,
    NEEDS_DIGIT,
    MONTH_HINTS,
  ],
  [new RegExp(`\\b${MONTH},?\\s+\\d{4}\\b`, "g"), PLACEHOLDER.date, NEEDS_DIGIT, MONTH_HINTS],
  [new RegExp(`\\b${WEEKDAY},?\\s+${PLACEHOLDER.date}`, "g"), PLACEHOLDER.date, ANY_TEXT, [PLACEHOLDER.date]],
  [new RegExp(`\\b${WEEKDAY_FULL}\\b`, "g"), PLACEHOLDER.date, ANY_TEXT, ["day"]],
  // Clock times: "10:42", "10:42:07 am", "09:15 UTC", "3pm".
  [
    /(?<![\d:$€£¥₹])\d{1,2}:[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:\s?(?:[ap]\.m\.(?!\w)|[AaPp][Mm]\b))?(?:\s?(?:UTC|GMT|Z|[A-Z]{2,4}T)\b|\s?[+-]\d{2}:?\d{2}\b)?/g,
    PLACEHOLDER.time,
    NEEDS_DIGIT,
    [":"],
  ],
  [
    /(?<![\d.,:])\b\d{1,2}\s?(?:[ap]\.m\.(?!\w)|[AaPp][Mm]\b)/g,
    PLACEHOLDER.time,
    NEEDS_DIGIT,
    ["am", "pm", "a.m.", "p.m."],
  ],
  // Relative times: "3 minutes ago", "updated 5 min ago", "2h ago", "just now", "updated yesterday".
  [
    /\b(?:(?:about|over|almost|nearly|less than|more than)\s+)?(?:\d+|an?|one|two|three|a few|few|several)\s+(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?|yrs?)\s+ago\b/gi,
    PLACEHOLDER.time,
    ANY_TEXT,
    ["ago"],
  ],
  [/\b\d+\s?(?:s|m|h|d|w|mo|y)\s+ago\b/gi, PLACEHOLDER.time, NEEDS_DIGIT, ["ago"]],
  [/\b(?:just now|a moment ago|moments ago)\b/gi, PLACEHOLDER.time, ANY_TEXT, ["now", "moment"]],
  [
    /\b(updated|posted|published|edited|modified|refreshed|synced|checked)\s+(?:today|yesterday)\b/gi,
    `$1 ${PLACEHOLDER.time}`,
    ANY_TEXT,
    ["today", "yesterday"],
  ],
  // Live counters: "1,234 users online", "12 people viewing", "Page views: 98765", "visitor #1234".
  [
    new RegExp(
      `${NOT_AFTER_MONEY}${COUNT}(?=\\s+(?:[A-Za-z]+\\s+){0,2}?(?:online|viewing|watching|browsing|active now|here now|in line|in queue)\\b)`,
      "gi",
    ),
    PLACEHOLDER.n,
    NEEDS_DIGIT,
    ["online", "viewing", "watching", "browsing", "active now", "here now", "in line", "in queue"],
  ],
  [
    /\b((?:page\s?views|views|visitors|visits|hits|downloads|viewers|online(?:\s+now)?|users\s+online|active\s+users|visitor\s+count|stars|followers|subscribers)\s*[:：]\s*)\d[\d,.]*(?:\s?[kKmM]\b)?\+?/gi,
    `$1${PLACEHOLDER.n}`,
    NEEDS_DIGIT,
    [":", "："],
  ],
  [
    new RegExp(
      `${NOT_AFTER_MONEY}(?<!\\bup to )${COUNT}(?=\\s+(?:visitors|page\\s?views|views|visits|hits|downloads|viewers|stars|followers)\\b(?!\\s*(?:per\\b|\\/|a month|a year|each\\b|monthly|yearly|included)))`,
      "gi",
    ),
    PLACEHOLDER.n,
    NEEDS_DIGIT,
    ["visit", "view", "hits", "download", "stars", "followers"],
  ],
  [/\b(visitor\s*(?:#|no\.?|number)\s*)\d[\d,]*/gi, `$1${PLACEHOLDER.n}`, NEEDS_DIGIT, ["visitor"]],
];

/**
 * A 20+ character run is a token (session id, CSRF value, build hash) when it is hex with digits, all digits, or
 * switches often between lower case, upper case and digits — a slug like "state-of-the-art-2026" or a path does not.
 */
function looksRandom(run: string): boolean {
  const core = run.replace(/[+/_=-]/g, "");
  if (core.length < 16) return false;
  if (/^\d+$/.test(core)) return true;
  const hasDigit = /\d/.test(core);
  if (/^[0-9a-f]+$/i.test(core) && hasDigit && /[a-f]/i.test(core)) return true;
  let switches = 0;
  let previous = -1;
  for (const char of core) {
    const kind = char >= "0" && char <= "9" ? 0 : char >= "a" && char <= "z" ? 1 : 2;
    if (previous !== -1 && kind !== previous) switches += 1;
    previous = kind;
  }
  return hasDigit ? switches >= 6 : switches >= 10;
}

function holdsOneOf(text: string, literals: readonly string[]): boolean {
  for (const literal of literals) if (text.includes(literal)) return true;
  return false;
}

/** Replaces volatile tokens (dates, times, relative times, live counters, copyright years, tokens) by placeholders. */
export function maskVolatile(text: string): string {
  if (!text) return "";
  let out = String(text);
  // Masking never adds a digit, so text without one has none for the digit rules to match.
  const hasDigit = /\d/.test(out);
  // Lower-cased once, and again only after a rule replaced something (a placeholder may be a later rule's literal).
  let lower = out.toLowerCase();
  for (const [pattern, replacement, needsDigit, needsOneOf] of RULES) {
    if (needsDigit && !hasDigit) continue;
    if (needsOneOf && !holdsOneOf(lower, needsOneOf)) continue;
    const before = out;
    out = typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
    if (out !== before) lower = out.toLowerCase();
  }
  return out.replace(/[ \t\u00a0]+/g, " ").trim();
}

/** True when a line says nothing once its placeholders are removed ("‹date›", "‹date› · ‹time›"). */
export function isPlaceholderOnly(line: string): boolean {
  return !/[\p{L}\p{N}]/u.test(line.replace(/‹[a-z]+›/g, ""));
}
