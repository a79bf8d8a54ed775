/**
 * Values a template reads: front matter, data files (YAML, JSON, TOML) and site configuration, loaded from the
 * repository at the commit, and the small helpers every dialect shares (truthiness, text of a value, filters).
 */
import MarkdownIt from "markdown-it";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import type { RepoAtCommit } from "../repo.js";

export type Value = unknown;

const markdown = new MarkdownIt({ html: true, linkify: false, typographer: false });

/** Markdown to HTML (GFM tables, raw HTML kept), as static site generators render a page or a `markdownify` filter. */
export function markdownToHtml(source: string, inline = false): string {
  return inline ? markdown.renderInline(source) : markdown.render(source);
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
export function siteConfig(repo: RepoAtCommit): Record<string, Value> {
  for (const file of [
    "_config.yml",
    "_config.yaml",
    "config.toml",
    "hugo.toml",
    "config.yaml",
    "config.yml",
    "hugo.yaml",
  ]) {
    const text = repo.read(file);
    if (text !== null) return parseStructured(text, file.endsWith(".toml") ? "toml" : "yaml");
  }
  return {};
}

/** A value as the page shows it: strings and numbers as they are, nothing for null, undefined and objects. */
export function textOf(value: Value): string {
  if (value === null || value === undefined) return "";
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
      return Number(value) + Number(args[0]);
    case "minus":
      return Number(value) - Number(args[0]);
    case "times":
      return Number(value) * Number(args[0]);
    case "divided_by":
      return Number(value) / Number(args[0]);
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
    case "slice":
      return Array.isArray(value)
        ? value.slice(Number(args[0]) || 0, args.length > 1 ? (Number(args[0]) || 0) + Number(args[1]) : undefined)
        : value;
    default:
      return value;
  }
}

function compare(a: Value, b: Value): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return textOf(a) < textOf(b) ? -1 : textOf(a) > textOf(b) ? 1 : 0;
}

/** HTML entity-escaping for values a dialect escapes; kept for templates that print user-facing strings raw. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
