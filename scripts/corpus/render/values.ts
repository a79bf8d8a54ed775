/**
 * Values a template reads: front matter, data files (YAML, JSON, TOML) and site configuration, loaded from the
 * repository at the commit, and the small helpers every dialect shares (truthiness, text of a value, filters).
 */
import MarkdownIt from "markdown-it";
import { parse as parseToml } from "smol-toml";
import { parse as parseYamlStrict } from "yaml";
import type { RepoAtCommit } from "../repo.js";

export type Value = unknown;

/**
 * YAML as the sites' own generators read it: Jekyll (Ruby's Psych) and Hugo keep the last of a mapping's repeated
 * keys where a strict parser refuses the whole document (a page whose front matter repeats `suits:` lost its plans).
 */
function parseYaml(text: string): unknown {
  return parseYamlStrict(text, { uniqueKeys: false });
}

const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** Markdown to HTML (GFM tables, raw HTML kept), as static site generators render a page or a `markdownify` filter. */
export function markdownToHtml(source: string, inline = false): string {
  return inline ? markdown.renderInline(source) : markdown.render(source);
}

const KRAMDOWN_BLOCK_TAGS =
  "address|article|aside|blockquote|body|center|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|" +
  "form|h[1-6]|header|hgroup|hr|iframe|li|main|menu|nav|noscript|ol|p|pre|script|section|style|summary|table|" +
  "tbody|td|tfoot|th|thead|tr|ul";
const KRAMDOWN_BLOCK_START = new RegExp(`^ {0,3}<(${KRAMDOWN_BLOCK_TAGS})(?=[\\s/>])`, "i");

/**
 * Markdown as Jekyll's default engine, kramdown, reads it: a block-level HTML element that starts a line is raw HTML
 * up to its matching closing tag, blank lines and indented lines inside it included (CommonMark would end the HTML
 * block at the first blank line and read the indented lines after it as code). With `parse_block_html: true` in the
 * site's kramdown settings the HTML's content is Markdown too, and the CommonMark reading is kept.
 */
export function kramdownToHtml(source: string, parseBlockHtml = false): string {
  if (parseBlockHtml) return markdownToHtml(source);
  const lines = source.split("\n");
  const raw: string[] = [];
  const out: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (fenceMark && fenceMark[1]!.startsWith(fence)) fence = null;
      out.push(line);
      continue;
    }
    if (fenceMark) {
      fence = fenceMark[1]!;
      out.push(line);
      continue;
    }
    const start = KRAMDOWN_BLOCK_START.exec(line);
    if (!start) {
      out.push(line);
      continue;
    }
    const tag = start[1]!.toLowerCase();
    const end = closingLine(lines, i, tag);
    if (end === -1) {
      out.push(line);
      continue;
    }
    raw.push(lines.slice(i, end + 1).join("\n"));
    out.push("", `KRAMDOWNRAWHTML${raw.length - 1}END`, "");
    i = end;
  }
  return markdownToHtml(out.join("\n")).replace(
    /<p>KRAMDOWNRAWHTML(\d+)END<\/p>/g,
    (_, n: string) => raw[Number(n)] ?? "",
  );
}

/** The line where the element opened on line `from` closes (nested elements of the same name counted), or -1. */
function closingLine(lines: string[], from: number, tag: string): number {
  const voids = new Set(["hr"]);
  const pattern = new RegExp(`<(/?)${tag}(?=[\\s/>])[^>]*?(/?)>`, "gi");
  // A start tag whose attributes run over several lines (`<h1 style="⏎ margin: 0;⏎ …">Cerb Cloud</h1>`, Cerb's
  // pricing tabs): kramdown reads the whole tag, so its lines are read as one, up to the line where it ends.
  let first = from;
  let head = lines[from]!;
  const open = new RegExp(`<${tag}(?=[\\s/>])[^>]*$`, "i");
  while (open.test(head) && first + 1 < lines.length && first - from < 100) head += `\n${lines[++first]!}`;
  if (open.test(head)) {
    first = from;
    head = lines[from]!;
  }
  let depth = 0;
  for (let k = first; k < lines.length; k++) {
    for (const match of (k === first ? head : lines[k]!).matchAll(pattern)) {
      if (match[1]) depth--;
      else if (!match[2] && !voids.has(tag)) depth++;
      if (depth <= 0) return k;
    }
    if (k === first && depth <= 0) return k;
  }
  return -1;
}

/** Front matter (`---` YAML or `+++` TOML) and the body after it. */
export function splitFrontMatter(source: string): { data: Record<string, Value>; body: string } {
  const yaml = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (yaml) return { data: parseStructured(yaml[1]!, "yaml"), body: source.slice(yaml[0].length) };
  const toml = /^\uFEFF?\+\+\+[ \t]*\r?\n([\s\S]*?)\r?\n\+\+\+[ \t]*(?:\r?\n|$)/.exec(source);
  if (toml) return { data: parseStructured(toml[1]!, "toml"), body: source.slice(toml[0].length) };
  return { data: {}, body: source };
}

export function parseStructured(text: string, kind: "yaml" | "toml" | "json"): Record<string, Value> {
  try {
    const value = kind === "json" ? JSON.parse(text) : kind === "toml" ? parseToml(text) : parseYaml(text);
    return value && typeof value === "object" ? (value as Record<string, Value>) : {};
  } catch {
    return {};
  }
}

/**
 * A data directory (Jekyll's `_data`, Hugo's `data`) as a lazy object tree: `site.data.plans` reads
 * `_data/plans.yml` (or .yaml, .json, .toml) the first time it is asked for, and `site.data.pricing.plans` reads
 * `_data/pricing/plans.yml`.
 */
export function dataTree(repo: RepoAtCommit, dir: string): Record<string, Value> {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const files = repo.files().filter((file) => file.startsWith(prefix));
  const build = (base: string): Record<string, Value> => {
    const node: Record<string, Value> = {};
    for (const file of files) {
      if (!file.startsWith(base)) continue;
      const rest = file.slice(base.length);
      const [head, ...tail] = rest.split("/");
      if (!head) continue;
      if (tail.length > 0) {
        if (!(head in node)) {
          Object.defineProperty(node, head, {
            enumerable: true,
            configurable: true,
            get: () => build(`${base}${head}/`),
          });
        }
        continue;
      }
      const match = /^(.*)\.(ya?ml|json|toml)$/i.exec(head);
      if (!match) continue;
      const key = match[1]!;
      const kind = match[2]!.toLowerCase().startsWith("y") ? "yaml" : (match[2]!.toLowerCase() as "json" | "toml");
      Object.defineProperty(node, key, {
        enumerable: true,
        configurable: true,
        get: () => {
          const text = repo.read(file);
          if (text === null) return undefined;
          try {
            return kind === "json" ? JSON.parse(text) : kind === "toml" ? parseToml(text) : parseYaml(text);
          } catch {
            return undefined;
          }
        },
      });
    }
    return node;
  };
  return build(prefix);
}

/** The site configuration (`_config.yml`, `config.toml`, `hugo.toml`, …), or {}. */
export function siteConfig(repo: RepoAtCommit, root = ""): Record<string, Value> {
  for (const name of [
    "_config.yml",
    "_config.yaml",
    "config.toml",
    "hugo.toml",
    "config.yaml",
    "config.yml",
    "hugo.yaml",
  ]) {
    const file = root ? `${root}/${name}` : name;
    const text = repo.read(file);
    if (text !== null) return parseStructured(text, file.endsWith(".toml") ? "toml" : "yaml");
  }
  return {};
}

/**
 * A Liquid float: Ruby keeps a Float apart from an Integer and prints it with its decimal point, so a Jekyll page's
 * `{% assign avg = 1000.0 | divided_by: 25 %}{{ avg }}` prints "40.0" where a JS number prints "40" (Cerb's volume
 * pricing tables compute each seat price from `base_cost=40.00` and pad "40.0" to "$40.00"). Made only by a Liquid
 * include's parameter written as a whole number with a decimal point (`base_cost=40.00`; see brace.ts) and kept by the
 * arithmetic filters it flows through.
 */
export class RubyFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  toJSON(): number {
    return this.value;
  }
  /** Ruby's Float#to_s: the shortest digits, with ".0" on a whole number (exponent form past 1e16). */
  toString(): string {
    return Number.isInteger(this.value) && Math.abs(this.value) < 1e16 ? this.value.toFixed(1) : String(this.value);
  }
}

/** A mapping (a YAML/TOML table, a Ruby hash): not a list, a date or a number such as a Ruby float. */
export function isPlainObject(value: Value): value is Record<string, Value> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RubyFloat)
  );
}

/**
 * `from`'s keys merged over `into`'s, maps key by key and anything else replaced, as Hugo merges an environment's
 * configuration and Rails its locale files. Maps are copied, never shared with `from`. Returns `into`.
 */
export function mergeMaps(into: Record<string, Value>, from: Record<string, Value>): Record<string, Value> {
  for (const [key, value] of Object.entries(from)) {
    const have = into[key];
    into[key] = isPlainObject(value) ? mergeMaps(isPlainObject(have) ? { ...have } : {}, value) : value;
  }
  return into;
}

/** Ruby's arithmetic: a Float operand makes the result a Float. */
function rubyArithmetic(result: number, value: Value, operand: Value): Value {
  return value instanceof RubyFloat || operand instanceof RubyFloat ? new RubyFloat(result) : result;
}

/** A value as the page shows it: strings and numbers as they are, nothing for null, undefined and objects. */
export function textOf(value: Value): string {
  if (value === null || value === undefined) return "";
  if (value instanceof RubyFloat) return value.toString();
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.map(textOf).join("");
  return "";
}

/** Python's and Jinja's truthiness (Liquid's is looser: only nil and false are false; see `liquidTruthy`). */
export function truthy(value: Value): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}

export function liquidTruthy(value: Value): boolean {
  return value !== null && value !== undefined && value !== false;
}

/** Looks one step into a value: an object's key, an array's index, a string's length or `size`. */
export function member(value: Value, key: string | number): Value {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (key === "size" || key === "length") return value.length;
    if (key === "first") return value[0];
    if (key === "last") return value[value.length - 1];
    const index = typeof key === "number" ? key : Number(key);
    return Number.isInteger(index) ? value.at(index) : undefined;
  }
  if (typeof value === "string") return key === "size" || key === "length" ? value.length : undefined;
  if (typeof value === "object") {
    const record = value as Record<string, Value>;
    if (Object.prototype.hasOwnProperty.call(record, key)) return record[key as string];
    // Hugo lowercases front-matter keys; templates often name them in camel case (`.Params.showPricing`).
    if (typeof key === "string") {
      const lower = key.toLowerCase();
      for (const own of Object.keys(record)) if (own.toLowerCase() === lower) return record[own];
    }
    if (key === "size" || key === "length") return Object.keys(record).length;
    if (key === "items") return () => Object.entries(record);
    if (key === "values") return () => Object.values(record);
    if (key === "keys") return () => Object.keys(record);
  }
  return undefined;
}

/** A sequence to loop over: arrays as they are, objects as [key, value] pairs (Liquid and Python's dict.items()). */
export function iterable(value: Value): Value[] | null {
  if (Array.isArray(value)) return value;
  if (value && typeof value === "object") return Object.entries(value as Record<string, Value>);
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 1000) {
    return Array.from({ length: value }, (_, i) => i);
  }
  return null;
}

/**
 * Names of a visitor's own state (signed in, subscribed, on a team). A server-rendered page seen from outside shows
 * the anonymous visitor's branch, so a condition on them is false when the template cannot know it. `messages` and
 * `flashes` are the one-time notices of the visitor's session (Django's messages framework, Flask's flashed messages).
 */
export const VISITOR_STATE_RE =
  /\b(?:user|users|current_user|request|session|logged_in|is_authenticated|authenticated|signed_in|sub|subscription|profile|account|team|project|customer|member|is_owner|is_admin|owner|admin|debug|billing|realm|plan_id|current_plan|messages|flashes)\b/i;

/** Filters every dialect understands the same way; unknown filters pass the value through. */
export function applyFilter(name: string, value: Value, args: Value[]): Value {
  switch (name.toLowerCase()) {
    case "default":
    case "default_if_none":
    case "d":
      return value === undefined || value === null || value === "" || value === false ? args[0] : value;
    case "upcase":
    case "upper":
      return textOf(value).toUpperCase();
    case "downcase":
    case "lower":
      return textOf(value).toLowerCase();
    case "capitalize":
    case "capfirst": {
      const text = textOf(value);
      return text.charAt(0).toUpperCase() + text.slice(1);
    }
    case "title":
      return textOf(value).replace(/\b\w/g, (c) => c.toUpperCase());
    case "strip":
    case "trim":
      return textOf(value).trim();
    case "markdownify":
    case "markdown":
      return markdownToHtml(textOf(value), true);
    case "append":
      return textOf(value) + textOf(args[0]);
    case "prepend":
      return textOf(args[0]) + textOf(value);
    case "replace":
      return textOf(value).split(textOf(args[0])).join(textOf(args[1]));
    // Liquid's string and array filters
    case "replace_first":
      return textOf(value).replace(textOf(args[0]), () => textOf(args[1]));
    case "remove":
      return textOf(value).split(textOf(args[0])).join("");
    case "remove_first":
      return textOf(value).replace(textOf(args[0]), "");
    case "split": {
      const text = textOf(value);
      const separator = textOf(args[0]);
      // Ruby's String#split: a single space splits on runs of whitespace; trailing empty strings are dropped.
      const parts = separator === " " ? text.trim().split(/\s+/) : text.split(separator);
      while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
      return text === "" ? [] : parts;
    }
    case "lstrip":
      return textOf(value).replace(/^\s+/, "");
    case "rstrip":
      return textOf(value).replace(/\s+$/, "");
    case "strip_html":
      return textOf(value).replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<!--[\s\S]*?-->|<[^>]*>/gi, "");
    case "strip_newlines":
      return textOf(value).replace(/\r?\n/g, "");
    case "newline_to_br":
      return textOf(value).replace(/\r?\n/g, "<br />\n");
    case "truncate": {
      const text = textOf(value);
      const length = args.length > 0 ? Number(args[0]) : 50;
      const ellipsis = args.length > 1 ? textOf(args[1]) : "...";
      return text.length <= length ? text : text.slice(0, Math.max(0, length - ellipsis.length)) + ellipsis;
    }
    case "truncatewords": {
      const words = textOf(value).split(/\s+/).filter(Boolean);
      const count = args.length > 0 ? Math.max(1, Number(args[0])) : 15;
      const ellipsis = args.length > 1 ? textOf(args[1]) : "...";
      return words.length <= count ? words.join(" ") : words.slice(0, count).join(" ") + ellipsis;
    }
    case "escape":
    case "xml_escape":
      return escapeHtml(textOf(value)).replace(/'/g, "&#39;");
    case "url_encode":
      return encodeURIComponent(textOf(value)).replace(/%20/g, "+");
    case "abs":
      return Math.abs(Number(value));
    case "ceil":
      return Math.ceil(Number(value));
    case "floor":
      return Math.floor(Number(value));
    case "modulo":
      return Number(value) % Number(args[0]);
    case "at_least":
      return Math.max(Number(value), Number(args[0]));
    case "at_most":
      return Math.min(Number(value), Number(args[0]));
    case "map":
      return Array.isArray(value) ? value.map((item) => member(item, textOf(args[0]))) : value;
    case "compact":
      return Array.isArray(value) ? value.filter((item) => item !== null && item !== undefined) : value;
    case "uniq":
      return Array.isArray(value) ? [...new Set(value)] : value;
    case "concat":
      return Array.isArray(value) && Array.isArray(args[0]) ? [...value, ...args[0]] : value;
    case "first":
      return Array.isArray(value) ? value[0] : typeof value === "string" ? value[0] : undefined;
    case "last":
      return Array.isArray(value) ? value[value.length - 1] : typeof value === "string" ? value.at(-1) : undefined;
    case "size":
    case "length":
    case "count":
      return Array.isArray(value) || typeof value === "string" ? value.length : 0;
    case "join":
      return Array.isArray(value) ? value.map(textOf).join(args.length > 0 ? textOf(args[0]) : " ") : value;
    case "plus":
    case "add":
      return rubyArithmetic(Number(value) + Number(args[0]), value, args[0]);
    case "minus":
      return rubyArithmetic(Number(value) - Number(args[0]), value, args[0]);
    case "times":
      return rubyArithmetic(Number(value) * Number(args[0]), value, args[0]);
    case "divided_by":
      return rubyArithmetic(Number(value) / Number(args[0]), value, args[0]);
    case "round":
    case "floatformat": {
      const n = Number(value);
      if (!Number.isFinite(n)) return value;
      const digits = args.length > 0 ? Math.abs(Number(args[0])) || 0 : 0;
      return n.toFixed(digits);
    }
    case "intcomma":
      return textOf(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    case "where": {
      if (!Array.isArray(value)) return value;
      const [key, wanted] = args;
      return value.filter((item) =>
        wanted === undefined ? truthy(member(item, textOf(key))) : member(item, textOf(key)) === wanted,
      );
    }
    case "sort":
      if (!Array.isArray(value)) return value;
      return args.length > 0
        ? [...value].sort((a, b) => compare(member(a, textOf(args[0])), member(b, textOf(args[0]))))
        : [...value].sort(compare);
    case "reverse":
      return Array.isArray(value) ? [...value].reverse() : value;
    case "slice": {
      if (!Array.isArray(value) && typeof value !== "string") return value;
      // Django: a Python slice, "a:b"
      const python = typeof args[0] === "string" ? /^\s*(-?\d*)\s*:\s*(-?\d*)\s*$/.exec(args[0]) : null;
      if (python) return value.slice(python[1] ? Number(python[1]) : 0, python[2] ? Number(python[2]) : undefined);
      // Liquid: a start and a length (default 1)
      const start = Number(args[0]) || 0;
      const from = start < 0 ? Math.max(0, value.length + start) : start;
      return value.slice(from, from + (args.length > 1 ? Number(args[1]) : 1));
    }
    default:
      return value;
  }
}

function compare(a: Value, b: Value): number {
  if (a instanceof RubyFloat) a = a.value;
  if (b instanceof RubyFloat) b = b.value;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return textOf(a) < textOf(b) ? -1 : textOf(a) > textOf(b) ? 1 : 0;
}

/** HTML entity-escaping for values a dialect escapes; kept for templates that print user-facing strings raw. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
