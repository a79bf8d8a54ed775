/**
 * ERB (Embedded Ruby: Rails views, Middleman and Sitepress pages, `.html.erb`, `.html.md.erb`, `.html.markerb`): `<%= %>`
 * output, `<% %>` code, `<%# %>` comments, `-%>` trimming. The Ruby is not run: a small reader understands the code
 * templates use to shape a page (`if`/`elsif`/`else`/`unless`/`case`/`when`, blocks over collections with `do |x|`,
 * assignments) and evaluates expressions over values the page can know: front matter (`current_page.data`), the
 * site's data files (`data.pricing.plans`), locals a partial is given, literals, and a handful of view helpers
 * (`partial`/`render`, `link_to`, `number_to_currency`…). A call into the application's own code (a model's price, a
 * helper taking arguments) is the value the manifest's context gives for it as written (`Subscription.price`,
 * `localised_price(:monthly)`). Anything else is nil and prints nothing. `Time.now` reads
 * the render context's `now` (the commit's time, when the manifest gives it). Sinatra views are read the same way:
 * `erb :'dir/name'` renders views/dir/name.erb in place, a constant path (`Site::PLAN_FEATURES`) or a top-level
 * constant (`BASE_PRICE_MONTHLY`) is a context key like a call, and a regular expression literal
 * (`request.path.match /\/plan/`) tests strings. DocPad's Eco and ECT templates (CoffeeScript inside the same tags)
 * are read by the same reader once put in its terms (coffeeTemplateToErb).
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import {
  dataTree,
  escapeHtml,
  markdownToHtml,
  member,
  parseStructured,
  splitFrontMatter,
  isPlainObject,
  mergeMaps,
  textOf,
  type Value,
} from "./values.js";

// ---------------------------------------------------------------------------------------------------------------
// Template structure

type Node =
  | { t: "text"; v: string }
  | { t: "out"; code: string; raw: boolean }
  | { t: "code"; code: string }
  | { t: "if"; branches: { cond: string | null; negate: boolean; body: Node[] }[] }
  | { t: "case"; subject: string; whens: { values: string | null; body: Node[] }[] }
  | { t: "block"; head: string; params: string[]; body: Node[]; output: boolean };

const TAG_RE = /<%(%|#|=+|-)?([\s\S]*?)(-)?%>/g;

function lex(source: string): ({ kind: "text"; v: string } | { kind: "tag"; mode: string; code: string })[] {
  const out: ({ kind: "text"; v: string } | { kind: "tag"; mode: string; code: string })[] = [];
  let at = 0;
  let trimNext = false;
  TAG_RE.lastIndex = 0;
  for (let m = TAG_RE.exec(source); m; m = TAG_RE.exec(source)) {
    let text = source.slice(at, m.index);
    if (trimNext) text = text.replace(/^[ \t]*\r?\n/, "");
    if (m[1] === "-") text = text.replace(/[ \t]+$/, "");
    if (text) out.push({ kind: "text", v: text });
    at = TAG_RE.lastIndex;
    trimNext = m[3] === "-";
    const mode = m[1] ?? "";
    if (mode === "%") {
      out.push({ kind: "text", v: `<%${m[2]}${m[3] ?? ""}%>` });
      continue;
    }
    if (mode === "#") continue;
    // A code tag alone on its line takes its line ending with it (Erubi's rule for `<% %>`).
    if (mode !== "=" && mode !== "==" && !trimNext && /(^|\n)[ \t]*$/.test(source.slice(0, m.index))) {
      const after = /^[ \t]*\r?\n/.exec(source.slice(at));
      if (after) {
        const before = /[ \t]*$/.exec(
          out.length > 0 && out[out.length - 1]!.kind === "text" ? (out[out.length - 1] as { v: string }).v : "",
        );
        if (before && out.length > 0 && out[out.length - 1]!.kind === "text") {
          const last = out[out.length - 1] as { kind: "text"; v: string };
          last.v = last.v.slice(0, last.v.length - before[0].length);
        }
        at += after[0].length;
      }
    }
    out.push({ kind: "tag", mode, code: m[2]!.trim() });
  }
  const rest = source.slice(at);
  if (rest) out.push({ kind: "text", v: trimNext ? rest.replace(/^[ \t]*\r?\n/, "") : rest });
  return out;
}

const BLOCK_OPEN_RE = /\bdo\s*(?:\|([^|]*)\|)?\s*$/;

function parse(source: string): Node[] {
  const tokens = lex(source);
  let i = 0;
  return parseList();

  function parseList(): Node[] {
    const out: Node[] = [];
    while (i < tokens.length) {
      const tok = tokens[i]!;
      if (tok.kind === "text") {
        out.push({ t: "text", v: tok.v });
        i++;
        continue;
      }
      const code = tok.code;
      const output = tok.mode.startsWith("=");
      if (!output && /^(end|else|elsif\b|when\b|in\b|\}$)/.test(code)) return out; // a closer: the caller takes it
      i++;
      if (!output && /^(if|unless)\b/.test(code) && !/\bend\s*$/.test(code)) {
        out.push(parseIf(code));
        continue;
      }
      if (!output && /^case\b/.test(code)) {
        out.push(parseCase(code));
        continue;
      }
      const block = BLOCK_OPEN_RE.exec(code) ?? /\{\s*\|([^|]*)\|\s*$/.exec(code);
      if (block) {
        const head = code.slice(0, block.index).trim();
        const params = (block[1] ?? "")
          .split(",")
          .map((p) => p.trim().replace(/[()*&]/g, ""))
          .filter(Boolean);
        const body = parseList();
        i++; // end or }
        out.push({ t: "block", head, params, body, output });
        continue;
      }
      if (output) out.push({ t: "out", code, raw: tok.mode === "==" });
      else out.push({ t: "code", code });
    }
    return out;
  }

  function parseIf(code: string): Node {
    const negate = code.startsWith("unless");
    const branches: { cond: string | null; negate: boolean; body: Node[] }[] = [];
    let cond: string | null = code.replace(/^(if|unless)\s*/, "").replace(/\s+then\s*$/, "");
    let neg = negate;
    for (;;) {
      const body = parseList();
      branches.push({ cond, negate: neg, body });
      const closer = tokens[i];
      i++;
      if (!closer || closer.kind !== "tag" || /^end\b/.test(closer.code)) break;
      if (/^elsif\b/.test(closer.code)) {
        cond = closer.code.replace(/^elsif\s*/, "");
        neg = false;
      } else {
        cond = null;
        neg = false;
      }
    }
    return { t: "if", branches };
  }

  function parseCase(code: string): Node {
    const subject = code.replace(/^case\s*/, "");
    const whens: { values: string | null; body: Node[] }[] = [];
    parseList(); // text between `case` and the first `when`
    for (;;) {
      const closer = tokens[i];
      i++;
      if (!closer || closer.kind !== "tag" || /^end\b/.test(closer.code)) break;
      const values = /^when\b/.test(closer.code)
        ? closer.code.replace(/^when\s*/, "").replace(/\s+then\s*$/, "")
        : null;
      whens.push({ values, body: parseList() });
    }
    return { t: "case", subject, whens };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Ruby expressions (a reading subset)

type Tok = { k: "str" | "istr" | "num" | "sym" | "id" | "ivar" | "const" | "op" | "re"; v: string; flags?: string };

// A symbol may be quoted either way (`:"x"`, `:'views/x'`: Sinatra names a view so).
const RUBY_RE =
  /\s*(?:("(?:[^"\\]|\\.)*")|('(?:[^'\\]|\\.)*')|(\d[\d_]*(?:\.\d+)?)|(:[A-Za-z_]\w*[?!]?|:"[^"]*"|:'[^']*')|(@{1,2}[A-Za-z_]\w*)|([A-Z]\w*)|([a-z_]\w*[?!]?)|(&\.|\.\.\.?|::|\*\*|<=>|===?|!=|=~|>=|<=|&&|\|\||<<|=>|[-+*/%<>=!?:.,()[\]{}|&]))/y;

/**
 * Whether a `/` here opens a regular expression literal rather than dividing (Ruby's reading): at the start, after an
 * operator or an opening bracket, after a keyword, or as a command's first argument (`path.match /x/`: a space
 * before the slash and none after it).
 */
function regexStarts(prev: Tok | undefined, spaceBefore: boolean, next: string | undefined): boolean {
  if (!prev) return true;
  if (prev.k === "op") return ![")", "]", "}"].includes(prev.v);
  if (prev.k !== "id") return false;
  if (["if", "unless", "elsif", "when", "and", "or", "not", "return", "then", "while", "until"].includes(prev.v))
    return true;
  return spaceBefore && next !== undefined && !/[\s=]/.test(next);
}

function tokenize(code: string): Tok[] {
  const out: Tok[] = [];
  let at = 0;
  while (at < code.length) {
    const space = /^\s*/.exec(code.slice(at))![0].length;
    if (code[at + space] === "/" && regexStarts(out[out.length - 1], space > 0, code[at + space + 1])) {
      const literal = /^\/((?:[^/\\\n]|\\.)*)\/([a-z]*)/.exec(code.slice(at + space));
      if (literal) {
        out.push({ k: "re", v: literal[1]!, flags: literal[2]! });
        at += space + literal[0].length;
        continue;
      }
    }
    RUBY_RE.lastIndex = at;
    const m = RUBY_RE.exec(code);
    if (!m || m[0].length === 0) {
      if (/^\s*$/.test(code.slice(at))) break;
      at++;
      continue;
    }
    at = RUBY_RE.lastIndex;
    if (m[1] !== undefined) out.push({ k: "istr", v: m[1].slice(1, -1) });
    else if (m[2] !== undefined) out.push({ k: "str", v: m[2].slice(1, -1).replace(/\\(['\\])/g, "$1") });
    else if (m[3] !== undefined) out.push({ k: "num", v: m[3].replace(/_/g, "") });
    else if (m[4] !== undefined) out.push({ k: "sym", v: m[4].slice(1).replace(/^(["'])([\s\S]*)\1$/, "$2") });
    else if (m[5] !== undefined) out.push({ k: "ivar", v: m[5] });
    else if (m[6] !== undefined) out.push({ k: "const", v: m[6] });
    else if (m[7] !== undefined) {
      const w = m[7];
      out.push({ k: "id", v: w });
    } else if (m[8] !== undefined) out.push({ k: "op", v: m[8] });
  }
  return out;
}

/** The scope Ruby code reads: local variables, and the helpers and data of the page. */
export interface ErbScope {
  locals: Map<string, Value>[];
  helpers: ErbHelpers;
}

interface ErbHelpers {
  call(name: string, args: Value[], kwargs: Record<string, Value>, scope: ErbScope): Value | typeof NOT_A_HELPER;
  now(): Date | undefined;
}

const NOT_A_HELPER = Symbol("not a helper");

class RubyTime {
  constructor(readonly date: Date) {}
  toString(): string {
    return this.date
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d+Z$/, " UTC");
  }
}

function lookupLocal(name: string, scope: ErbScope): { found: boolean; value: Value } {
  for (let k = scope.locals.length - 1; k >= 0; k--)
    if (scope.locals[k]!.has(name)) return { found: true, value: scope.locals[k]!.get(name) };
  return { found: false, value: undefined };
}

function rubyTruthy(value: Value): boolean {
  return value !== null && value !== undefined && value !== false;
}

/**
 * A Ruby regular expression literal as JavaScript's (`\A`/`\z` anchors, `m` is dotAll); undefined if it will not
 * compile.
 */
function rubyRegExp(source: string, flags: string): RegExp | undefined {
  const js = source
    .replace(/\\A/g, "^")
    .replace(/\\[zZ]/g, "$")
    .replace(/\\h/g, "[0-9a-fA-F]");
  try {
    return new RegExp(js, (flags.includes("i") ? "i" : "") + (flags.includes("m") ? "s" : ""));
  } catch {
    return undefined;
  }
}

/** `string.match(re)` / `string =~ re`: the match (truthy) or nil; a string pattern is a regular expression too. */
function regexMatch(receiver: Value, pattern: Value): RegExpExecArray | null | undefined {
  if (receiver instanceof RegExp) [receiver, pattern] = [pattern, receiver];
  if (typeof receiver !== "string") return undefined;
  const re = pattern instanceof RegExp ? pattern : typeof pattern === "string" ? rubyRegExp(pattern, "") : undefined;
  return re ? re.exec(receiver) : undefined;
}

function timeOf(value: Value): number | null {
  if (value instanceof RubyTime) return value.date.getTime();
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string" && /^\d{4}-\d\d-\d\d/.test(value)) {
    const t = Date.parse(value);
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

function compare(a: Value, b: Value): number | null {
  if (a instanceof RubyTime || b instanceof RubyTime || a instanceof Date || b instanceof Date) {
    const x = timeOf(a);
    const y = timeOf(b);
    return x === null || y === null ? null : x - y;
  }
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function rubyEqual(a: Value, b: Value): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a === "number" && typeof b === "number") return a === b;
  return a === b || (typeof a === "string" && typeof b === "string" && a === b);
}

/** What `<%= %>` prints: Ruby's to_s (nil is empty). */
export function rubyText(value: Value): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(value);
  if (value instanceof RubyTime) return value.toString();
  if (Array.isArray(value)) return value.map(rubyText).join("");
  if (typeof value === "object") return "";
  return textOf(value);
}

function delimit(n: number, precision: number | null, delimiter = ",", separator = "."): string {
  const fixed = precision === null ? String(n) : n.toFixed(precision);
  const [int, frac] = fixed.split(".");
  return int!.replace(/\B(?=(\d{3})+(?!\d))/g, delimiter) + (frac ? separator + frac : "");
}

const DURATION_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800 };

/** Ruby methods on the values a page holds (strings, numbers, arrays, hashes). */
function callMethod(
  receiver: Value,
  name: string,
  args: Value[],
  scope: ErbScope,
  block?: (args: Value[]) => Value,
): Value {
  const items = Array.isArray(receiver)
    ? receiver
    : receiver && typeof receiver === "object" && !(receiver instanceof RubyTime)
      ? Object.entries(receiver as Record<string, Value>)
      : null;
  // ActiveSupport's durations on a number (`1.hours`, `30.days`) are seconds: a view divides a quota kept in seconds
  // by `1.hours` to print hours. Only on a number; on anything else these names are read as before.
  const duration = DURATION_SECONDS[name.replace(/s$/, "")];
  if (typeof receiver === "number" && duration !== undefined) return receiver * duration;
  switch (name) {
    case "nil?":
      return receiver === null || receiver === undefined;
    case "present?":
      return (
        rubyTruthy(receiver) &&
        !(typeof receiver === "string" && receiver.trim() === "") &&
        !(Array.isArray(receiver) && receiver.length === 0)
      );
    case "blank?":
    case "empty?":
      return !callMethod(receiver, "present?", [], scope);
    case "any?":
      return items ? (block ? items.some((x) => rubyTruthy(block([x]))) : items.length > 0) : false;
    case "none?":
      return items ? !items.some((x) => rubyTruthy(block ? block([x]) : x)) : true;
    case "size":
    case "length":
    case "count":
      return typeof receiver === "string" ? receiver.length : items ? items.length : 0;
    case "first":
      return items ? (args.length > 0 ? items.slice(0, Number(args[0])) : items[0]) : undefined;
    case "last":
      return items ? (args.length > 0 ? items.slice(-Number(args[0])) : items[items.length - 1]) : undefined;
    case "keys":
      return receiver && typeof receiver === "object" ? Object.keys(receiver as object) : [];
    case "values":
      return receiver && typeof receiver === "object" ? Object.values(receiver as object) : [];
    case "to_s":
      return rubyText(receiver);
    case "to_i":
      return Math.trunc(Number(receiver) || 0);
    case "to_f":
      return Number(receiver) || 0;
    case "to_a":
      return items ?? [];
    case "to_sym":
      return textOf(receiver);
    case "round":
      return typeof receiver === "number" ? Number(receiver.toFixed(Number(args[0] ?? 0))) : receiver;
    case "abs":
      return Math.abs(Number(receiver));
    case "upcase":
      return textOf(receiver).toUpperCase();
    case "downcase":
      return textOf(receiver).toLowerCase();
    case "capitalize":
      return textOf(receiver).charAt(0).toUpperCase() + textOf(receiver).slice(1).toLowerCase();
    case "titleize":
    case "humanize":
      return textOf(receiver)
        .replace(/_/g, " ")
        .replace(/\b\w/g, (c) => c.toUpperCase());
    case "strip":
    case "squish":
      return textOf(receiver).trim();
    case "html_safe":
    case "freeze":
    case "dup":
    case "itself":
    case "presence":
      return receiver;
    case "include?":
      return typeof receiver === "string"
        ? receiver.includes(textOf(args[0]))
        : Array.isArray(receiver)
          ? receiver.some((x) => rubyEqual(x, args[0]))
          : !!receiver && typeof receiver === "object" && textOf(args[0]) in (receiver as object);
    case "key?":
    case "has_key?":
      return !!receiver && typeof receiver === "object" && textOf(args[0]) in (receiver as object);
    case "match":
    case "match?": {
      const found = regexMatch(receiver, args[0]);
      if (found === undefined) return member(receiver, name);
      return name === "match?" ? found !== null : found === null ? null : [...found];
    }
    case "start_with?":
      return textOf(receiver).startsWith(textOf(args[0]));
    case "end_with?":
      return textOf(receiver).endsWith(textOf(args[0]));
    case "join":
      return items ? items.map(rubyText).join(args.length > 0 ? textOf(args[0]) : "") : receiver;
    case "split":
      return textOf(receiver).split(args.length > 0 ? textOf(args[0]) : /\s+/);
    case "gsub":
    case "sub":
    case "tr":
      return name === "sub"
        ? textOf(receiver).replace(textOf(args[0]), textOf(args[1]))
        : textOf(receiver).split(textOf(args[0])).join(textOf(args[1]));
    case "reverse":
      return Array.isArray(receiver) ? [...receiver].reverse() : textOf(receiver).split("").reverse().join("");
    case "compact":
      return Array.isArray(receiver) ? receiver.filter((x) => x !== null && x !== undefined) : receiver;
    case "flatten":
      return Array.isArray(receiver) ? receiver.flat(Infinity) : receiver;
    case "uniq":
      return Array.isArray(receiver) ? [...new Set(receiver)] : receiver;
    case "sort":
      return Array.isArray(receiver) ? [...receiver].sort((a, b) => compare(a, b) ?? 0) : receiver;
    case "min":
      return Array.isArray(receiver) ? [...receiver].sort((a, b) => compare(a, b) ?? 0)[0] : undefined;
    case "max":
      return Array.isArray(receiver) ? [...receiver].sort((a, b) => compare(b, a) ?? 0)[0] : undefined;
    case "sum":
      return items ? items.reduce<number>((s, x) => s + Number(block ? block([x]) : x), 0) : 0;
    case "map":
    case "collect":
    case "flat_map":
      return items && block ? items.map((x) => block(Array.isArray(receiver) ? [x] : (x as Value[]))) : (items ?? []);
    case "select":
    case "filter":
      return items && block
        ? items.filter((x) => rubyTruthy(block(Array.isArray(receiver) ? [x] : (x as Value[]))))
        : (items ?? []);
    case "reject":
      return items && block
        ? items.filter((x) => !rubyTruthy(block(Array.isArray(receiver) ? [x] : (x as Value[]))))
        : (items ?? []);
    case "find":
    case "detect":
      return items && block ? items.find((x) => rubyTruthy(block([x]))) : undefined;
    case "sort_by":
      return items && block ? [...items].sort((a, b) => compare(block([a]), block([b])) ?? 0) : (items ?? []);
    case "group_by":
      return receiver;
    case "utc":
    case "localtime":
    case "in_time_zone":
    case "to_time":
    case "to_date":
    case "beginning_of_day":
      return receiver;
    case "strftime":
      return receiver instanceof RubyTime ? strftime(receiver.date, textOf(args[0])) : undefined;
    case "year":
      return receiver instanceof RubyTime ? receiver.date.getUTCFullYear() : undefined;
    case "fetch":
    case "dig": {
      let value: Value = receiver;
      for (const key of name === "fetch" ? [args[0]] : args) value = index(value, key);
      return value === undefined && name === "fetch" ? args[1] : value;
    }
    case "[]":
      return index(receiver, args[0]);
    default:
      // A data hash read with a method: `plan.price`, `data.pricing`.
      return member(receiver, name);
  }
}

function index(receiver: Value, key: Value): Value {
  if (Array.isArray(receiver)) return receiver.at(Number(key));
  return member(receiver, textOf(key));
}

function strftime(date: Date, format: string): string {
  const months = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
  ];
  const pad = (n: number) => String(n).padStart(2, "0");
  return format.replace(/%([YmdBbeHMSy%])/g, (_, f: string) => {
    switch (f) {
      case "Y":
        return String(date.getUTCFullYear());
      case "y":
        return pad(date.getUTCFullYear() % 100);
      case "m":
        return pad(date.getUTCMonth() + 1);
      case "d":
        return pad(date.getUTCDate());
      case "e":
        return String(date.getUTCDate());
      case "B":
        return months[date.getUTCMonth()]!;
      case "b":
        return months[date.getUTCMonth()]!.slice(0, 3);
      case "H":
        return pad(date.getUTCHours());
      case "M":
        return pad(date.getUTCMinutes());
      case "S":
        return pad(date.getUTCSeconds());
      default:
        return "%";
    }
  });
}

class RubyParser {
  private i = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly scope: ErbScope,
  ) {}

  static evaluate(code: string, scope: ErbScope): Value {
    const parser = new RubyParser(tokenize(code), scope);
    return parser.statement();
  }

  private peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  private isOp(v: string, o = 0): boolean {
    return this.peek(o)?.k === "op" && this.peek(o)!.v === v;
  }
  private isId(v: string, o = 0): boolean {
    return this.peek(o)?.k === "id" && this.peek(o)!.v === v;
  }

  statement(): Value {
    // `x = expr`, `x ||= expr`
    if (this.peek()?.k === "id" && this.isOp("=", 1) && !this.isOp("=", 2)) {
      const name = this.peek()!.v;
      this.i += 2;
      const value = this.expression();
      this.scope.locals[this.scope.locals.length - 1]!.set(name, value);
      return value;
    }
    if (this.peek()?.k === "id" && this.isOp("||", 1) && this.isOp("=", 2)) {
      const name = this.peek()!.v;
      this.i += 3;
      const value = this.expression();
      const old = lookupLocal(name, this.scope);
      if (!rubyTruthy(old.value)) this.scope.locals[this.scope.locals.length - 1]!.set(name, value);
      return old.value ?? value;
    }
    const value = this.expression();
    // Trailing modifiers: `x if cond`, `x unless cond`.
    if (this.isId("if") || this.isId("unless")) {
      const negate = this.peek()!.v === "unless";
      this.i++;
      const cond = rubyTruthy(this.expression());
      return cond !== negate ? value : undefined;
    }
    return value;
  }

  expression(): Value {
    return this.notWord();
  }

  private notWord(): Value {
    if (this.isId("not")) {
      this.i++;
      return !rubyTruthy(this.notWord());
    }
    let left = this.ternary();
    while (this.isId("and") || this.isId("or")) {
      const op = this.peek()!.v;
      this.i++;
      const right = this.ternary();
      left = op === "and" ? (rubyTruthy(left) ? right : left) : rubyTruthy(left) ? left : right;
    }
    return left;
  }

  private ternary(): Value {
    const cond = this.orExpr();
    if (this.isOp("?")) {
      this.i++;
      const yes = this.ternary();
      if (this.isOp(":")) this.i++;
      const no = this.ternary();
      return rubyTruthy(cond) ? yes : no;
    }
    return cond;
  }

  private orExpr(): Value {
    let left = this.andExpr();
    while (this.isOp("||")) {
      this.i++;
      const right = this.andExpr();
      left = rubyTruthy(left) ? left : right;
    }
    return left;
  }

  private andExpr(): Value {
    let left = this.notExpr();
    while (this.isOp("&&")) {
      this.i++;
      const right = this.notExpr();
      left = rubyTruthy(left) ? right : left;
    }
    return left;
  }

  private notExpr(): Value {
    if (this.isOp("!")) {
      this.i++;
      return !rubyTruthy(this.notExpr());
    }
    return this.comparison();
  }

  private comparison(): Value {
    const left = this.additive();
    const op = this.peek();
    if (op?.k === "op" && ["==", "!=", "<", ">", "<=", ">=", "<=>", "===", "=~"].includes(op.v)) {
      this.i++;
      const right = this.additive();
      switch (op.v) {
        case "=~": {
          const found = regexMatch(left, right);
          return found ? found.index : found === null ? null : undefined;
        }
        case "==":
        case "===":
          return rubyEqual(left, right);
        case "!=":
          return !rubyEqual(left, right);
        case "<=>":
          return compare(left, right);
      }
      const c = compare(left, right);
      if (c === null) return undefined;
      return op.v === "<" ? c < 0 : op.v === ">" ? c > 0 : op.v === "<=" ? c <= 0 : c >= 0;
    }
    return left;
  }

  private additive(): Value {
    let left = this.multiplicative();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.peek()!.v;
      this.i++;
      const right = this.multiplicative();
      if (op === "+") {
        if (typeof left === "number" && typeof right === "number") left = left + right;
        else if (Array.isArray(left) && Array.isArray(right)) left = [...left, ...right];
        else left = rubyText(left) + rubyText(right);
      } else left = Number(left) - Number(right);
    }
    return left;
  }

  private multiplicative(): Value {
    let left = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%") || this.isOp("**")) {
      const op = this.peek()!.v;
      this.i++;
      const right = this.unary();
      const a = Number(left);
      const b = Number(right);
      left =
        op === "*"
          ? a * b
          : op === "/"
            ? Number.isInteger(a) && Number.isInteger(b)
              ? Math.floor(a / b)
              : a / b
            : op === "%"
              ? a % b
              : a ** b;
    }
    return left;
  }

  private unary(): Value {
    if (this.isOp("-")) {
      this.i++;
      return -Number(this.unary());
    }
    return this.postfix();
  }

  private args(): { args: Value[]; kwargs: Record<string, Value> } {
    const args: Value[] = [];
    const kwargs: Record<string, Value> = {};
    const close = this.isOp("(") ? ")" : null;
    if (close) this.i++;
    while (this.peek() && !(close && this.isOp(close))) {
      if (!close && (this.isId("do") || this.isOp("{") || this.isId("if") || this.isId("unless") || this.isOp(")")))
        break;
      // `key: value`, `"key" => value`, `:key => value`
      if ((this.peek()?.k === "id" || this.peek()?.k === "const") && this.isOp(":", 1)) {
        const key = this.peek()!.v;
        this.i += 2;
        kwargs[key] = this.ternary();
      } else {
        const value = this.ternary();
        if (this.isOp("=>")) {
          this.i++;
          kwargs[textOf(value)] = this.ternary();
        } else args.push(value);
      }
      if (this.isOp(",")) this.i++;
      else if (!(close && this.isOp(close))) break;
    }
    if (close && this.isOp(close)) this.i++;
    return { args, kwargs };
  }

  /** A command call without parentheses takes arguments when a value follows (`partial "x"`, `link_to "A", url`). */
  private startsArgument(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (
      t.k === "str" ||
      t.k === "istr" ||
      t.k === "num" ||
      t.k === "sym" ||
      t.k === "ivar" ||
      t.k === "const" ||
      t.k === "re"
    )
      return true;
    if (t.k === "id") return !["if", "unless", "and", "or", "do", "then", "not", "end"].includes(t.v);
    return t.k === "op" && (t.v === "[" || t.v === ":");
  }

  /**
   * A call into the application's own code whose value the manifest's context gives, keyed by the call as written
   * without spaces (`Subscription.price`, `localised_price(:monthly)`, `Rails.features.enabled?(:comments)`; `&.` is
   * written `.`): the longest such chain of names, dots and argument lists here. Only keys with a dot or a
   * parenthesis are calls (a plain name is a local, read as before).
   */
  private contextCall(): { value: Value } | null {
    const first = this.peek();
    if (!first || (first.k !== "id" && first.k !== "const")) return null;
    let j = this.i + 1;
    let text = first.v;
    let best: { value: Value; end: number } | null = null;
    const tokenText = (t: Tok) => (t.k === "sym" ? `:${t.v}` : t.k === "str" || t.k === "istr" ? `"${t.v}"` : t.v);
    for (;;) {
      const t = this.toks[j];
      if (t?.k === "op" && t.v === "(") {
        let depth = 0;
        let k = j;
        for (; k < this.toks.length; k++) {
          const u = this.toks[k]!;
          if (u.k === "op" && u.v === "(") depth++;
          if (u.k === "op" && u.v === ")" && --depth === 0) break;
        }
        if (k >= this.toks.length) break;
        text += this.toks
          .slice(j, k + 1)
          .map(tokenText)
          .join("");
        j = k + 1;
      } else if (t?.k === "op" && (t.v === "." || t.v === "&.") && this.toks[j + 1]?.k === "id") {
        text += `.${this.toks[j + 1]!.v}`;
        j += 2;
      } else if (t?.k === "op" && t.v === "::" && (this.toks[j + 1]?.k === "const" || this.toks[j + 1]?.k === "id")) {
        // A constant path (`Site::PLAN_FEATURES`, a Ruby app's settings): keyed as written, like a call.
        text += `::${this.toks[j + 1]!.v}`;
        j += 2;
      } else break;
      const found = lookupLocal(text, this.scope);
      if (found.found) best = { value: found.value, end: j };
    }
    if (!best) return null;
    this.i = best.end;
    return { value: best.value };
  }

  private postfix(): Value {
    const called = this.contextCall();
    let value = called ? called.value : this.primary();
    for (;;) {
      if (this.isOp(".") || this.isOp("&.")) {
        const safe = this.peek()!.v === "&.";
        this.i++;
        const name = this.peek()?.v ?? "";
        this.i++;
        if (safe && (value === null || value === undefined)) {
          if (this.isOp("(")) this.args();
          continue;
        }
        // Without parentheses a method takes no arguments here, but for a regular expression (`path.match /x/`).
        const { args } = this.isOp("(")
          ? this.args()
          : this.peek()?.k === "re"
            ? { args: [this.primary()] }
            : { args: [] as Value[] };
        const block = this.blockArg();
        value = callMethod(value, name, args, this.scope, block);
      } else if (this.isOp("[")) {
        this.i++;
        const key = this.expression();
        if (this.isOp("]")) this.i++;
        value = index(value, key);
      } else if (this.isOp("::")) {
        this.i += 2;
      } else break;
    }
    return value;
  }

  /** `{ |x| expr }` or `(&:name)` after a method: a block evaluated per item. */
  private blockArg(): ((args: Value[]) => Value) | undefined {
    if (this.isOp("{") && this.isOp("|", 1)) {
      this.i += 2;
      const params: string[] = [];
      while (this.peek() && !this.isOp("|")) {
        if (this.peek()!.k === "id") params.push(this.peek()!.v);
        this.i++;
      }
      this.i++;
      const start = this.i;
      let depth = 0;
      while (this.peek() && !(depth === 0 && this.isOp("}"))) {
        if (this.isOp("{")) depth++;
        if (this.isOp("}")) depth--;
        this.i++;
      }
      const body = this.toks.slice(start, this.i);
      this.i++;
      return (args) => {
        const frame = new Map<string, Value>();
        params.forEach((p, k) =>
          frame.set(
            p,
            args.length === 1 && params.length > 1 && Array.isArray(args[0]) ? (args[0] as Value[])[k] : args[k],
          ),
        );
        const scope = { ...this.scope, locals: [...this.scope.locals, frame] };
        return new RubyParser(body, scope).statement();
      };
    }
    return undefined;
  }

  private primary(): Value {
    const t = this.peek();
    if (!t) return undefined;
    this.i++;
    switch (t.k) {
      case "str":
        return t.v;
      case "istr":
        return t.v
          .replace(/#\{([^}]*)\}/g, (_, code: string) => rubyText(RubyParser.evaluate(code, this.scope)))
          .replace(/\\n/g, "\n")
          .replace(/\\t/g, "\t")
          .replace(/\\(.)/g, "$1");
      case "num":
        return Number(t.v);
      case "sym":
        return t.v;
      case "re":
        return rubyRegExp(t.v, t.flags ?? "");
      case "ivar":
        return lookupLocal(t.v, this.scope).value;
      case "const": {
        if ((t.v === "Time" || t.v === "DateTime" || t.v === "Date") && this.isOp(".")) {
          const method = this.peek(1)?.v;
          if (method === "now" || method === "current" || method === "today") {
            this.i += 2;
            const now = this.scope.helpers.now();
            return now ? new RubyTime(now) : undefined;
          }
          if (method === "parse" || method === "iso8601") {
            this.i += 2;
            const { args } = this.args();
            const ms = Date.parse(textOf(args[0]));
            return Number.isFinite(ms) ? new RubyTime(new Date(ms)) : undefined;
          }
        }
        if (t.v === "I18n" && this.isOp(".")) {
          this.i += 2;
          const { args } = this.args();
          return args[0];
        }
        // A top-level constant the application sets in its own code (`BASE_PRICE_MONTHLY = 299.00` in a Rails
        // initializer, printed by a view): keyed as written in the manifest's context, like a constant path.
        const constant = lookupLocal(t.v, this.scope);
        return constant.found ? constant.value : undefined;
      }
      case "op":
        if (t.v === "(") {
          const value = this.statement();
          if (this.isOp(")")) this.i++;
          return value;
        }
        if (t.v === "[") {
          const items: Value[] = [];
          while (this.peek() && !this.isOp("]")) {
            items.push(this.ternary());
            if (this.isOp(",")) this.i++;
            else if (!this.isOp("]")) this.i++;
          }
          this.i++;
          return items;
        }
        if (t.v === "{") {
          const hash: Record<string, Value> = {};
          while (this.peek() && !this.isOp("}")) {
            let key: string;
            if (
              (this.peek()?.k === "id" || this.peek()?.k === "str" || this.peek()?.k === "istr") &&
              this.isOp(":", 1)
            ) {
              key = this.peek()!.v;
              this.i += 2;
            } else {
              key = textOf(this.ternary());
              if (this.isOp("=>")) this.i++;
            }
            hash[key] = this.ternary();
            if (this.isOp(",")) this.i++;
            else if (!this.isOp("}")) this.i++;
          }
          this.i++;
          return hash;
        }
        return undefined;
      case "id": {
        const name = t.v;
        if (name === "true") return true;
        if (name === "false") return false;
        if (name === "nil") return null;
        if (name === "self") return undefined;
        const local = lookupLocal(name, this.scope);
        if (local.found && !this.isOp("(")) return local.value;
        const hasArgs = this.isOp("(") || this.startsArgument();
        const { args, kwargs } = hasArgs ? this.args() : { args: [] as Value[], kwargs: {} };
        const result = this.scope.helpers.call(name, args, kwargs, this.scope);
        return result === NOT_A_HELPER ? undefined : result;
      }
      default:
        return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

export interface ErbOptions {
  repo: RepoAtCommit;
  /** The template's own path (partials resolve beside it). */
  file: string;
  /** Values the page knows: front matter as `current_page.data`, the site's `data`, the manifest's context. */
  globals: Record<string, Value>;
  now?: Date;
  /** Rails I18n's locale (RenderOptions.locale): `t(".key")` prints its string from `config/locales`. */
  locale?: string;
}

export class ErbRenderer {
  private depth = 0;
  private readonly data: Record<string, Value>;

  constructor(private readonly options: ErbOptions) {
    this.data = dataTree(options.repo, "data");
  }

  private translations: Record<string, Value> | null = null;

  /**
   * Rails I18n's strings for the manifest's locale: every `config/locales/…/*.yml` file's tree under the locale's
   * key, merged (a later file's keys over an earlier one's, as Rails loads them in order).
   */
  private locales(): Record<string, Value> {
    if (this.translations) return this.translations;
    const tree: Record<string, Value> = {};
    const locale = this.options.locale!;
    for (const file of this.options.repo.files().sort()) {
      if (!/^config\/locales\/.*\.ya?ml$/i.test(file)) continue;
      const text = this.options.repo.read(file);
      const root = text === null ? {} : parseStructured(text, "yaml");
      const branch = root[locale];
      if (isPlainObject(branch)) mergeMaps(tree, branch);
    }
    return (this.translations = tree);
  }

  /**
   * Rails' `t(key, **options)` in a view when the manifest names a locale: a key starting with `.` is looked up under
   * the view's own path (`app/views/pricing/_plan.html.erb` reads `.title` as `pricing.plan.title`); `%{name}` takes
   * the option of that name; a `count` picks `one`/`other`; `default:` stands in for a missing key. A key not found
   * prints the key, as without a locale.
   */
  private translate(args: Value[], kwargs: Record<string, Value>, file: string): Value {
    let key = textOf(args[0]);
    if (key.startsWith(".")) {
      const view = file
        .replace(/^(.*\/)?app\/views\//, "")
        .replace(/\.[^/]*$/, "")
        .split("/")
        .map((part, i, all) => (i === all.length - 1 ? part.replace(/^_/, "") : part))
        .join(".");
      key = `${view}${key}`;
    }
    let value: Value = this.locales();
    for (const part of key.split(".")) value = isPlainObject(value) ? value[part] : undefined;
    if (isPlainObject(value) && kwargs.count !== undefined)
      value = (Number(kwargs.count) === 1 && value.one !== undefined ? value.one : value.other) ?? value;
    if (value === undefined || value === null) return kwargs.default ?? args[0];
    if (typeof value !== "string") return value;
    return value.replace(/%\{(\w+)\}/g, (whole, name: string) =>
      kwargs[name] === undefined ? whole : rubyText(kwargs[name]),
    );
  }

  render(source: string, file: string, locals: Record<string, Value> = {}): string {
    const scope: ErbScope = {
      locals: [new Map(Object.entries({ ...this.options.globals, ...locals }))],
      helpers: this.helpers(file),
    };
    return this.renderNodes(parse(source), scope);
  }

  private helpers(file: string): ErbHelpers {
    return {
      now: () => this.options.now,
      call: (name, args, kwargs, scope) => this.helper(name, args, kwargs, scope, file),
    };
  }

  private helper(
    name: string,
    args: Value[],
    kwargs: Record<string, Value>,
    scope: ErbScope,
    file: string,
  ): Value | typeof NOT_A_HELPER {
    switch (name) {
      case "data":
        return this.data;
      case "partial":
      case "render": {
        const target = textOf(args[0] ?? kwargs.partial ?? kwargs.template);
        const locals =
          (kwargs.locals as Record<string, Value> | undefined) ?? (args[1] as Record<string, Value> | undefined) ?? {};
        return this.partial(target, file, { ...kwargs, ...locals });
      }
      case "erb": {
        // Sinatra's view helper: `erb :'plan/_pricing', layout: false` renders views/plan/_pricing.erb in place.
        const name = textOf(args[0]).replace(/^\/+/, "");
        const locals = (kwargs.locals as Record<string, Value> | undefined) ?? {};
        return name ? this.view(name, locals) : "";
      }
      case "link_to": {
        const text = rubyText(args[0]);
        const href = rubyText(args[1]);
        return `<a href="${escapeHtml(href)}">${text}</a>`;
      }
      case "image_tag":
        return `<img src="${escapeHtml(rubyText(args[0]))}" alt="${escapeHtml(rubyText(kwargs.alt))}">`;
      case "content_tag": {
        const tag = textOf(args[0]) || "span";
        return `<${tag}>${rubyText(args[1])}</${tag}>`;
      }
      case "number_to_currency": {
        const n = Number(args[0]);
        if (!Number.isFinite(n)) return rubyText(args[0]);
        const precision = kwargs.precision === undefined ? 2 : Number(kwargs.precision);
        const unit = kwargs.unit === undefined ? "$" : textOf(kwargs.unit);
        const body = delimit(
          Math.abs(n),
          precision,
          kwargs.delimiter === undefined ? "," : textOf(kwargs.delimiter),
          kwargs.separator === undefined ? "." : textOf(kwargs.separator),
        );
        const format = kwargs.format === undefined ? "%u%n" : textOf(kwargs.format);
        return (n < 0 ? "-" : "") + format.replace("%u", unit).replace("%n", body);
      }
      case "number_with_delimiter":
        return delimit(Number(args[0]), null, kwargs.delimiter === undefined ? "," : textOf(kwargs.delimiter));
      case "number_with_precision":
        return delimit(
          Number(args[0]),
          kwargs.precision === undefined ? 3 : Number(kwargs.precision),
          kwargs.delimiter === undefined ? "" : textOf(kwargs.delimiter),
        );
      case "number_to_percentage":
        return `${delimit(Number(args[0]), kwargs.precision === undefined ? 3 : Number(kwargs.precision))}%`;
      case "pluralize": {
        const n = Number(args[0]);
        // Rails prints the count as given: `pluralize("unlimited", "credit")` is "unlimited credits".
        const count = typeof args[0] === "string" && Number.isNaN(n) ? args[0] : n;
        return `${count} ${n === 1 ? textOf(args[1]) : textOf(args[2] ?? `${textOf(args[1])}s`)}`;
      }
      case "t":
      case "translate":
        return this.options.locale ? this.translate(args, kwargs, file) : args[0];
      case "raw":
      case "sanitize":
      case "strip_tags":
      case "h":
      case "html_escape":
        return args[0];
      case "current_page": {
        const page = scope.locals[0]!.get("current_page");
        return page;
      }
      case "url_for":
      case "path_for":
      case "asset_path":
      case "image_path":
        return "#";
      case "puts":
      case "content_for":
      case "yield":
      case "stylesheet_link_tag":
      case "javascript_include_tag":
      case "csrf_meta_tags":
        return "";
      default:
        return NOT_A_HELPER;
    }
  }

  /** A Sinatra view by its name: `<name>.erb` under the app's views directory (the nearest `views/` holding it). */
  private view(name: string, locals: Record<string, Value>): string {
    if (++this.depth > 30) {
      this.depth--;
      return "";
    }
    try {
      const found = this.options.repo.resolve(`${name}.erb`, ["views"]);
      const source = found === null ? null : this.options.repo.read(found);
      return found === null || source === null ? "" : this.render(splitFrontMatter(source).body, found, locals);
    } finally {
      this.depth--;
    }
  }

  /** A partial by the name a template gives: `_name` beside the template, under `partials/`, or anywhere. */
  private partial(target: string, from: string, locals: Record<string, Value>): string {
    if (!target || ++this.depth > 30) {
      if (target) this.depth--;
      return "";
    }
    try {
      const repo = this.options.repo;
      const clean = target.replace(/^\/+/, "").replace(/^docs\//, "");
      const dir = path.posix.dirname(clean);
      const base = path.posix.basename(clean);
      const names = [`${dir === "." ? "" : `${dir}/`}_${base}`, clean];
      const exts = [
        "",
        ".html.erb",
        ".erb",
        ".html.md.erb",
        ".md.erb",
        ".html.markerb",
        ".markerb",
        ".html.md",
        ".md",
        ".html",
        ".ect",
        ".eco",
      ];
      let found: string | null = null;
      for (const name of names) {
        for (const ext of exts) {
          const candidate = `${name}${ext}`;
          const beside = path.posix.normalize(path.posix.join(path.posix.dirname(from), candidate));
          if (repo.exists(beside)) found = beside;
          else if (repo.exists(candidate)) found = candidate;
          else found = repo.resolve(candidate, ["partials", "_partials", "shared"]);
          if (found && repo.read(found) !== null) break;
          found = null;
        }
        if (found) break;
      }
      if (!found) return "";
      const source = repo.read(found)!;
      const body = splitFrontMatter(source).body;
      const html = this.render(isCoffeeTemplate(found) ? coffeeTemplateToErb(body) : body, found, locals);
      return /\.(md|markdown|markerb)(\.erb)?$/.test(found) ? markdownToHtml(html) : html;
    } finally {
      this.depth--;
    }
  }

  private renderNodes(nodes: Node[], scope: ErbScope): string {
    let out = "";
    for (const node of nodes) out += this.renderNode(node, scope);
    return out;
  }

  private renderNode(node: Node, scope: ErbScope): string {
    switch (node.t) {
      case "text":
        return node.v;
      case "out":
        return rubyText(RubyParser.evaluate(node.code, scope));
      case "code":
        RubyParser.evaluate(node.code, scope);
        return "";
      case "if":
        for (const branch of node.branches) {
          if (branch.cond === null) return this.renderNodes(branch.body, scope);
          const holds = rubyTruthy(RubyParser.evaluate(branch.cond, scope));
          if (holds !== branch.negate) return this.renderNodes(branch.body, scope);
        }
        return "";
      case "case": {
        const subject = RubyParser.evaluate(node.subject, scope);
        for (const when of node.whens) {
          if (when.values === null) return this.renderNodes(when.body, scope);
          const options = RubyParser.evaluate(`[${when.values}]`, scope) as Value[];
          if (options.some((o) => rubyEqual(o, subject))) return this.renderNodes(when.body, scope);
        }
        return "";
      }
      case "block":
        return this.renderBlock(node, scope);
    }
  }

  /** `coll.each do |x|` (and each_with_index, each_pair, map, times…) loops; any other block renders its body once. */
  private renderBlock(node: Extract<Node, { t: "block" }>, scope: ErbScope): string {
    const m =
      /^([\s\S]*)\.(each_with_index|each_pair|each|map|collect|each_slice|times|select|reverse_each|each_with_object)(?:\(([^)]*)\))?$/.exec(
        node.head,
      );
    const body = (values: Value[]) => {
      const frame = new Map<string, Value>();
      node.params.forEach((p, k) => frame.set(p, values[k]));
      return this.renderNodes(node.body, { ...scope, locals: [...scope.locals, frame] });
    };
    if (!m) {
      // `content_for :x do`, `link_to url do`, `cache do`: the body, in place (content_for's is not shown here).
      if (/^content_for\b/.test(node.head)) return "";
      return body([]);
    }
    const receiver = RubyParser.evaluate(m[1]!, scope);
    const method = m[2]!;
    if (method === "times") {
      const n = Number(receiver);
      let out = "";
      for (let k = 0; Number.isFinite(n) && k < n && k < 1000; k++) out += body([k]);
      return out;
    }
    const isHash = !!receiver && typeof receiver === "object" && !Array.isArray(receiver);
    const items: Value[] = Array.isArray(receiver)
      ? receiver
      : isHash
        ? Object.entries(receiver as Record<string, Value>)
        : [];
    let out = "";
    // `reverse_each` walks the collection from its end, as Ruby does.
    (method === "reverse_each" ? [...items].reverse() : items).forEach((item, k) => {
      if (method === "each_with_index") out += body([item, k]);
      else if (isHash && node.params.length >= 2) out += body(item as Value[]);
      else out += body([item]);
    });
    return out;
  }
}

/** Whether a template is Eco or ECT (DocPad's CoffeeScript templates: `.html.eco`, `.html.ect`). */
export function isCoffeeTemplate(file: string): boolean {
  return /\.(eco|ect)$/i.test(file);
}

/**
 * An Eco or ECT template (CoffeeScript inside `<% %>`, DocPad's templates) in ERB's terms, for the ERB reader:
 * `<%- x %>` prints raw (ERB's `<%==`), `<%= x %>` prints; a block opens with a colon (`if x:`, `else if x:`,
 * `else:`, `unless x:`, `for item in list:`, `for item, i in list:`, `for key, value of hash:`) and closes with
 * `end`; in expressions `is`/`isnt` compare, `@name` reads the template's data (`@document`) and `@partial(name)`
 * includes a template. What else the CoffeeScript calls (the site's own helpers) reads as nothing.
 */
export function coffeeTemplateToErb(source: string): string {
  return source.replace(/<%([-=]?)([\s\S]*?)%>/g, (_, mode: string, raw: string) => {
    const code = raw.trim();
    if (mode === "-") return `<%== ${coffeeExpression(code)} %>`;
    if (mode === "=") return `<%= ${coffeeExpression(code)} %>`;
    const head = code.replace(/\s*:\s*$/, "");
    let m: RegExpExecArray | null;
    if (/^end$/.test(code)) return "<% end %>";
    if (/^else$/.test(head)) return "<% else %>";
    if ((m = /^else\s+if\s+([\s\S]+)$/.exec(head))) return `<% elsif ${coffeeExpression(m[1]!)} %>`;
    if ((m = /^(if|unless)\s+([\s\S]+)$/.exec(head)) && head !== code)
      return `<% ${m[1]} ${coffeeExpression(m[2]!)} %>`;
    if ((m = /^for\s+(?:own\s+)?(\w+)\s*,\s*(\w+)\s+of\s+([\s\S]+)$/.exec(head)))
      return `<% (${coffeeExpression(m[3]!)}).each_pair do |${m[1]}, ${m[2]}| %>`;
    if ((m = /^for\s+(\w+)\s+of\s+([\s\S]+)$/.exec(head)))
      return `<% (${coffeeExpression(m[2]!)}).keys.each do |${m[1]}| %>`;
    if ((m = /^for\s+(\w+)\s*,\s*(\w+)\s+in\s+([\s\S]+)$/.exec(head)))
      return `<% (${coffeeExpression(m[3]!)}).each_with_index do |${m[1]}, ${m[2]}| %>`;
    if ((m = /^for\s+(\w+)\s+in\s+([\s\S]+)$/.exec(head)))
      return `<% (${coffeeExpression(m[2]!)}).each do |${m[1]}| %>`;
    return `<% ${coffeeExpression(code)} %>`;
  });
}

/** A CoffeeScript expression in the ERB reader's Ruby: outside strings, `is`/`isnt`, `@partial(`, a bare `@`. */
function coffeeExpression(code: string): string {
  return code
    .split(/("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/)
    .map((part, k) =>
      k % 2 === 1
        ? part
        : part
            .replace(/\bisnt\b/g, "!=")
            .replace(/\bis\b/g, "==")
            .replace(/@partial\s*\(/g, "partial(")
            .replace(/@(?![A-Za-z_])/g, "nil"),
    )
    .join("");
}

/**
 * An ERB page: front matter out; ERB first, then Markdown for `.md.erb` and `.markerb` pages; the page's article
 * under its title (a docs layout's navigation is not the page).
 */
export function renderErbPage(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  locale?: string,
): string {
  const { data, body } = splitFrontMatter(source);
  const nowText = textOf(context.now);
  const now = nowText && Number.isFinite(Date.parse(nowText)) ? new Date(nowText) : undefined;
  const currentPage = { data, title: data.title, url: `/${file.replace(/\.(html|md|erb|markerb)(\.\w+)*$/, "")}` };
  const coffee = isCoffeeTemplate(file);
  // An Eco/ECT template reads its data as `@name` (CoffeeScript's `this.name`): the page's front matter is
  // `@document`, the context's values are `@key`.
  const globals: Record<string, Value> = coffee
    ? { ...Object.fromEntries(Object.entries(context).map(([k, v]) => [`@${k}`, v])), "@document": data }
    : { ...context, current_page: currentPage };
  const renderer = new ErbRenderer({ repo, file, globals, now, locale });
  let html = renderer.render(coffee ? coffeeTemplateToErb(body) : body, file);
  if (/\.(md|markdown|markerb)(\.erb)?$/i.test(file) || /\.md\.erb$/i.test(file)) html = markdownToHtml(html);
  const title = textOf(data.title) || null;
  const heading = title && !/<h1[\s>]/i.test(html) ? `<h1>${escapeHtml(title)}</h1>` : "";
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8">${title ? `<title>${escapeHtml(title)}</title>` : ""}</head><body>\n<main><article>${heading}${html}</article></main>\n</body></html>\n`;
}
