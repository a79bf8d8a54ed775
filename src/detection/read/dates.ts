/**
 * Reading dates that pages and feeds show. Page dates become `YYYY-MM-DD` (the publisher's calendar day, no time
 * zone guessing); feed timestamps become full ISO-8601 instants because feeds state their zone.
 */

const MONTH_NAME =
  "(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

interface Pattern {
  re: RegExp;
  read: (m: RegExpExecArray) => [number, number, number] | null;
}

const monthNumber = (name: string): number => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

const PATTERNS: Pattern[] = [
  { re: /(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/, read: (m) => [+m[1]!, +m[2]!, +m[3]!] },
  { re: /(?<![\d/])(\d{4})\/(\d{1,2})\/(\d{1,2})(?![\d/])/, read: (m) => [+m[1]!, +m[2]!, +m[3]!] },
  {
    re: new RegExp(`\\b${MONTH_NAME}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, "i"),
    read: (m) => [+m[3]!, monthNumber(m[1]!), +m[2]!],
  },
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME},?\\s+(\\d{4})\\b`, "i"),
    read: (m) => [+m[3]!, monthNumber(m[2]!), +m[1]!],
  },
  {
    // a/b/yyyy: day first when a > 12, month first when b > 12, otherwise month first (US English pages).
    re: /(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/.])/,
    read: (m) => {
      const a = +m[1]!;
      const b = +m[2]!;
      return a > 12 ? [+m[3]!, b, a] : [+m[3]!, a, b];
    },
  },
];

/** `YYYY-MM-DD` for a valid calendar day, else null. */
export function isoDay(year: number, month: number, day: number): string | null {
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export interface FoundDate {
  iso: string;
  index: number;
  length: number;
}

const FOUR_DIGITS_RE = /\d{4}/;

/** The earliest full date (with a year) written in `text`. */
export function findDate(text: string): FoundDate | null {
  // Every pattern holds a four-digit year: text without four digits in a row is skipped in one scan.
  if (!FOUR_DIGITS_RE.test(text)) return null;
  let best: FoundDate | null = null;
  for (const pattern of PATTERNS) {
    const m = pattern.re.exec(text);
    if (!m) continue;
    const parts = pattern.read(m);
    const iso = parts ? isoDay(...parts) : null;
    if (iso && (!best || m.index < best.index)) best = { iso, index: m.index, length: m[0].length };
  }
  return best;
}

/** A page date (a `datetime` attribute or visible text) as `YYYY-MM-DD`. */
export function toIsoDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  const leading = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed);
  if (leading) return isoDay(+leading[1]!, +leading[2]!, +leading[3]!);
  return findDate(trimmed)?.iso ?? null;
}

/** A feed date (RFC 822 pubDate, Atom/ISO timestamp) as an ISO instant; a bare date stays `YYYY-MM-DD`. */
export function toIsoTimestamp(value: string | null | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return toIsoDate(trimmed);
  const parsed = Date.parse(trimmed);
  if (Number.isFinite(parsed)) {
    const date = new Date(parsed);
    const year = date.getUTCFullYear();
    if (year >= 1970 && year <= 2200) return date.toISOString();
  }
  return toIsoDate(trimmed);
}
