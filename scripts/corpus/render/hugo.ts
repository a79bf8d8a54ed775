/**
 * Hugo pages: Go's text/template language as Hugo uses it (`{{ .Params.x }}`, pipelines, `if`/`with`/`range`/`else`,
 * variables, `define`/`block`/`template`, `partial`, `return`), the layout lookup of a single page (type, layout,
 * `_default`, a theme's layouts, `baseof.html`), shortcodes in content (`{{< name >}}`, `{{% name %}}`), `.Site.Data`
 * from `data/` and `.Site.Params` from the site configuration. Nothing of the product's code runs: functions are
 * interpreted here, and what only Hugo's build could know (resources, remote data, other pages) is empty.
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
  textOf,
  truthy,
  type Value,
} from "./values.js";

/** HTML that is printed as it is (a partial's output, `.Content`, `safeHTML`, `markdownify`). */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lexing and parsing

type Operand =
  | { k: "lit"; v: Value }
  | { k: "dot"; fields: string[] }
  | { k: "var"; name: string; fields: string[] }
  | { k: "fn"; name: string; fields: string[] }
  | { k: "paren"; pipe: Pipeline; fields: string[] };
type Command = Operand[];
interface Pipeline {
  decl: { vars: string[]; assign: boolean } | null;
  cmds: Command[];
}

type GoNode =
  | { t: "text"; v: string }
  | { t: "out"; pipe: Pipeline }
  | { t: "if" | "with"; pipe: Pipeline; body: GoNode[]; els: GoNode[] }
  | { t: "range"; pipe: Pipeline; body: GoNode[]; els: GoNode[] }
  | { t: "define"; name: string; body: GoNode[] }
  | { t: "block"; name: string; pipe: Pipeline | null; body: GoNode[] }
  | { t: "template"; name: string; pipe: Pipeline | null }
  | { t: "return"; pipe: Pipeline | null }
  | { t: "break" | "continue" };

interface RawAction {
  t: "action";
  body: string;
}

function lexGo(source: string): (GoNode | RawAction)[] {
  const out: (GoNode | RawAction)[] = [];
  let at = 0;
  let trimNext = false;
  // `{{- ` trims before, ` -}}` after; a comment may stand alone (`{{/* … */}}`).
  const re = /\{\{(-\s)?\s*([\s\S]*?)\s*(\s-)?\}\}/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    let body = m[2]!;
    // A comment's `*/` may hold `}}`-free text only; a string literal may hold `}}`: extend the match then.
    while (unbalancedQuotes(body)) {
      const next = source.indexOf("}}", re.lastIndex);
      if (next === -1) break;
      body = source.slice(m.index + 2 + (m[1] ? m[1].length : 0), next).trim();
      re.lastIndex = next + 2;
      if (body.endsWith("-")) body = body.slice(0, -1).trim();
    }
    let text = source.slice(at, m.index);
    if (trimNext) text = text.replace(/^\s+/, "");
    if (m[1]) text = text.replace(/\s+$/, "");
    if (text) out.push({ t: "text", v: text });
    trimNext = Boolean(m[3]) || /\s-\}\}$/.test(source.slice(m.index, re.lastIndex));
    at = re.lastIndex;
    if (/^\/\*[\s\S]*\*\/$/.test(body)) continue;
    out.push({ t: "action", body });
  }
  let rest = source.slice(at);
  if (trimNext) rest = rest.replace(/^\s+/, "");
  if (rest) out.push({ t: "text", v: rest });
  return out;
}

function unbalancedQuotes(body: string): boolean {
  let inString: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === "\\" && inString === '"') i++;
      else if (c === inString) inString = null;
    } else if (c === '"' || c === "`") inString = c;
  }
  return inString !== null;
}

type Tok =
  | { k: "str"; v: string }
  | { k: "num"; v: number }
  | { k: "word"; v: string }
  | { k: "var"; v: string }
  | { k: "field"; v: string }
  | { k: "punct"; v: string };

function tokenizeAction(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let s = "";
      while (j < src.length && src[j] !== '"') {
        if (src[j] === "\\" && j + 1 < src.length) {
          const e = src[j + 1]!;
          s += e === "n" ? "\n" : e === "t" ? "\t" : e;
          j += 2;
        } else s += src[j++];
      }
      toks.push({ k: "str", v: s });
      i = j + 1;
      continue;
    }
    if (c === "`") {
      const j = src.indexOf("`", i + 1);
      const end = j === -1 ? src.length : j;
      toks.push({ k: "str", v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === "'") {
      const m = /^'(\\.|[^'])'/.exec(src.slice(i));
      if (m) {
        toks.push({ k: "num", v: m[1]!.replace(/^\\/, "").charCodeAt(0) });
        i += m[0].length;
        continue;
      }
    }
    if (c === ":" && src[i + 1] === "=") {
      toks.push({ k: "punct", v: ":=" });
      i += 2;
      continue;
    }
    if ("()|=,".includes(c)) {
      toks.push({ k: "punct", v: c });
      i++;
      continue;
    }
    const num = /^[-+]?(?:0x[0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)/.exec(src.slice(i));
    if (num && (c !== "." || /\d/.test(src[i + 1] ?? ""))) {
      toks.push({ k: "num", v: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    if (c === "$") {
      const m = /^\$[\w]*/.exec(src.slice(i))!;
      toks.push({ k: "var", v: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === ".") {
      const m = /^\.[\w]*/.exec(src.slice(i))!;
      toks.push({ k: "field", v: m[0].slice(1) });
      i += m[0].length;
      continue;
    }
    const word = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(src.slice(i));
    if (word) {
      toks.push({ k: "word", v: word[0] });
      i += word[0].length;
      continue;
    }
    i++; // an unknown character is skipped
  }
  return toks;
}

function parsePipeline(src: string): Pipeline {
  const toks = tokenizeAction(src);
  let pos = 0;
  const parsePipe = (stopAtParen: boolean): Pipeline => {
    let decl: Pipeline["decl"] = null;
    // `$a := …`, `$i, $v := …`, `$a = …`
    const save = pos;
    const vars: string[] = [];
    while (toks[pos]?.k === "var") {
      vars.push(toks[pos]!.v as string);
      pos++;
      if (toks[pos]?.k === "punct" && toks[pos]!.v === ",") {
        pos++;
        continue;
      }
      break;
    }
    if (vars.length > 0 && toks[pos]?.k === "punct" && (toks[pos]!.v === ":=" || toks[pos]!.v === "=")) {
      decl = { vars, assign: toks[pos]!.v === "=" };
      pos++;
    } else pos = save;
    const cmds: Command[] = [];
    let cmd: Command = [];
    while (pos < toks.length) {
      const t = toks[pos]!;
      if (t.k === "punct" && t.v === ")") {
        if (stopAtParen) break;
        pos++;
        continue;
      }
      if (t.k === "punct" && t.v === "|") {
        cmds.push(cmd);
        cmd = [];
        pos++;
        continue;
      }
      cmd.push(parseOperand());
    }
    if (cmd.length > 0) cmds.push(cmd);
    return { decl, cmds };
  };
  const fieldsAfter = (): string[] => {
    const fields: string[] = [];
    while (toks[pos]?.k === "field" && toks[pos]!.v !== "") fields.push(toks[pos++]!.v as string);
    return fields;
  };
  const parseOperand = (): Operand => {
    const t = toks[pos++]!;
    switch (t.k) {
      case "str":
      case "num":
        return { k: "lit", v: t.v };
      case "var": {
        return { k: "var", name: t.v, fields: fieldsAfter() };
      }
      case "field": {
        const fields = t.v === "" ? [] : [t.v];
        fields.push(...fieldsAfter());
        return { k: "dot", fields };
      }
      case "word": {
        if (t.v === "true" || t.v === "false") return { k: "lit", v: t.v === "true" };
        if (t.v === "nil") return { k: "lit", v: null };
        return { k: "fn", name: t.v, fields: fieldsAfter() };
      }
      case "punct": {
        if (t.v === "(") {
          const pipe = parsePipe(true);
          if (toks[pos]?.k === "punct" && toks[pos]!.v === ")") pos++;
          return { k: "paren", pipe, fields: fieldsAfter() };
        }
        return { k: "lit", v: undefined };
      }
    }
  };
  return parsePipe(false);
}

const CONTROL_RE = /^(if|with|range|else|end|define|block|template|return|break|continue)\b\s*([\s\S]*)$/;

function parseTemplate(source: string): GoNode[] {
  const flat = lexGo(source);
  let pos = 0;
  // Parses until `end` (or `else`, returned to the caller so it can read an `else if` chain).
  const parseList = (): { nodes: GoNode[]; stop: "end" | "else" | "eof"; elseArgs: string } => {
    const nodes: GoNode[] = [];
    while (pos < flat.length) {
      const item = flat[pos++]!;
      if (item.t === "text") {
        nodes.push(item);
        continue;
      }
      if (item.t !== "action") continue;
      const m = CONTROL_RE.exec((item as RawAction).body);
      if (!m) {
        nodes.push({ t: "out", pipe: parsePipeline((item as RawAction).body) });
        continue;
      }
      const [, word, args = ""] = m;
      switch (word) {
        case "end":
          return { nodes, stop: "end", elseArgs: "" };
        case "else":
          return { nodes, stop: "else", elseArgs: args };
        case "if":
        case "with":
        case "range":
          nodes.push(parseControl(word, args));
          break;
        case "define": {
          const name = stringArg(args);
          const inner = parseList();
          nodes.push({ t: "define", name, body: inner.nodes });
          break;
        }
        case "block": {
          const name = stringArg(args);
          const rest = args.replace(/^\s*("[^"]*"|`[^`]*`)\s*/, "");
          const inner = parseList();
          nodes.push({ t: "block", name, pipe: rest ? parsePipeline(rest) : null, body: inner.nodes });
          break;
        }
        case "template": {
          const name = stringArg(args);
          const rest = args.replace(/^\s*("[^"]*"|`[^`]*`)\s*/, "");
          nodes.push({ t: "template", name, pipe: rest ? parsePipeline(rest) : null });
          break;
        }
        case "return":
          nodes.push({ t: "return", pipe: args ? parsePipeline(args) : null });
          break;
        case "break":
        case "continue":
          nodes.push({ t: word });
          break;
      }
    }
    return { nodes, stop: "eof", elseArgs: "" };
  };
  const parseControl = (word: "if" | "with" | "range", args: string): GoNode => {
    const pipe = parsePipeline(args);
    const body = parseList();
    let els: GoNode[] = [];
    if (body.stop === "else") {
      const chained = /^(if|with)\b\s*([\s\S]*)$/.exec(body.elseArgs);
      if (chained) els = [parseControl(chained[1] as "if" | "with", chained[2]!)];
      else els = parseList().nodes;
    }
    return word === "range" ? { t: "range", pipe, body: body.nodes, els } : { t: word, pipe, body: body.nodes, els };
  };
  return parseList().nodes;
}

function stringArg(args: string): string {
  const m = /^\s*(?:"((?:\\.|[^"])*)"|`([^`]*)`)/.exec(args);
  return m ? (m[1] ?? m[2] ?? "") : args.trim();
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

class ReturnSignal {
  constructor(readonly value: Value) {}
}
class LoopSignal {
  constructor(readonly kind: "break" | "continue") {}
}

interface Vars {
  values: Map<string, Value>;
  parent: Vars | null;
}

export interface HugoSite {
  repo: RepoAtCommit;
  layoutDirs: string[];
  site: Record<string, Value>;
  i18n: Record<string, Value>;
  templates: Map<string, GoNode[]>;
  defines: Map<string, GoNode[]>;
  depth: number;
}

function lookupVar(vars: Vars, name: string): Value {
  for (let v: Vars | null = vars; v; v = v.parent) if (v.values.has(name)) return v.values.get(name);
  return undefined;
}

function assignVar(vars: Vars, name: string, value: Value): void {
  for (let v: Vars | null = vars; v; v = v.parent)
    if (v.values.has(name)) {
      v.values.set(name, value);
      return;
    }
  vars.values.set(name, value);
}

function plain(value: Value): Value {
  return value instanceof SafeHtml ? value.html : value;
}

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false. */
function goTruthy(value: Value): boolean {
  if (value instanceof SafeHtml) return value.html !== "";
  if (typeof value === "function") return true;
  return truthy(value);
}

/** A field of a value: a map's key (Hugo's keys are case-insensitive for params), an object's method. */
function field(value: Value, name: string): Value {
  if (value === null || value === undefined) return undefined;
  if (value instanceof SafeHtml) return undefined;
  if (Array.isArray(value) && (name === "Len" || name === "len")) return value.length;
  if (typeof value === "object" && !Array.isArray(value)) return member(value, name);
  return undefined;
}

function resolveFields(value: Value, fields: string[], args: Value[] | null): Value {
  let current = value;
  fields.forEach((name, i) => {
    const last = i === fields.length - 1;
    current = field(current, name);
    if (typeof current === "function" && (!last || args === null)) current = (current as (...a: Value[]) => Value)();
  });
  if (args !== null && typeof current === "function") return (current as (...a: Value[]) => Value)(...args);
  return current;
}

interface Ctx {
  site: HugoSite;
  dot: Value;
  root: Value;
  vars: Vars;
}

function evalPipeline(pipe: Pipeline, ctx: Ctx): Value {
  let value: Value = undefined;
  let first = true;
  for (const cmd of pipe.cmds) {
    value = evalCommand(cmd, ctx, first ? null : { value });
    first = false;
  }
  if (pipe.decl) {
    if (pipe.decl.assign) assignVar(ctx.vars, pipe.decl.vars[0]!, value);
    else ctx.vars.values.set(pipe.decl.vars[0]!, value);
  }
  return value;
}

function evalOperand(op: Operand, ctx: Ctx, args: Value[] | null): Value {
  switch (op.k) {
    case "lit":
      return op.v;
    case "dot":
      return resolveFields(ctx.dot, op.fields, args);
    case "var": {
      const base = op.name === "$" ? ctx.root : lookupVar(ctx.vars, op.name);
      return resolveFields(base, op.fields, args);
    }
    case "paren":
      return resolveFields(evalPipeline(op.pipe, ctx), op.fields, args);
    case "fn": {
      const fn = functionNamed(op.name, op.fields, ctx);
      if (fn.call) {
        const result = fn.call(...(args ?? []));
        return resolveFields(result, fn.rest, null);
      }
      return undefined;
    }
  }
}

function evalCommand(cmd: Command, ctx: Ctx, piped: { value: Value } | null): Value {
  if (cmd.length === 0) return piped?.value;
  const [head, ...rest] = cmd;
  const args = rest.map((op) => evalOperand(op, ctx, null));
  if (piped) args.push(piped.value);
  if (head!.k === "lit") return head!.v;
  const callable = head!.k === "fn" || args.length > 0 || rest.length > 0;
  return evalOperand(head!, ctx, callable ? args : null);
}

// ---------------------------------------------------------------------------------------------------------------
// Functions

function functionNamed(
  name: string,
  fields: string[],
  ctx: Ctx,
): { call: ((...a: Value[]) => Value) | null; rest: string[] } {
  // `strings.Contains` is one function; `site.Params.x` is the function `site` and then fields.
  const parts = name.split(".");
  for (let n = parts.length; n >= 1; n--) {
    const candidate = parts.slice(0, n).join(".");
    const fn = builtin(candidate, ctx);
    if (fn) return { call: fn, rest: [...parts.slice(n), ...fields] };
  }
  return { call: null, rest: [] };
}

const num = (v: Value): number => {
  const n = Number(plain(v));
  return Number.isFinite(n) ? n : 0;
};
const str = (v: Value): string => (v instanceof SafeHtml ? v.html : textOf(v));
const same = (a: Value, b: Value): boolean => {
  const x = plain(a);
  const y = plain(b);
  if (typeof x === "number" || typeof y === "number") return typeof x === typeof y && x === y;
  return x === y || (x == null && y == null);
};
const list = (v: Value): Value[] =>
  Array.isArray(v) ? v : v && typeof v === "object" && !(v instanceof SafeHtml) ? Object.values(v) : [];

function builtin(name: string, ctx: Ctx): ((...a: Value[]) => Value) | null {
  const site = ctx.site;
  switch (name) {
    // Go's own
    case "and":
      return (...a) => {
        for (const x of a) if (!goTruthy(x)) return x;
        return a[a.length - 1];
      };
    case "or":
      return (...a) => {
        for (const x of a) if (goTruthy(x)) return x;
        return a[a.length - 1];
      };
    case "not":
      return (a) => !goTruthy(a);
    case "eq":
    case "compare.Eq":
      return (a, ...b) => b.some((x) => same(a, x));
    case "ne":
    case "compare.Ne":
      return (a, b) => !same(a, b);
    case "lt":
    case "compare.Lt":
      return (a, b) => (typeof plain(a) === "string" ? str(a) < str(b) : num(a) < num(b));
    case "le":
    case "compare.Le":
      return (a, b) => (typeof plain(a) === "string" ? str(a) <= str(b) : num(a) <= num(b));
    case "gt":
    case "compare.Gt":
      return (a, b) => (typeof plain(a) === "string" ? str(a) > str(b) : num(a) > num(b));
    case "ge":
    case "compare.Ge":
      return (a, b) => (typeof plain(a) === "string" ? str(a) >= str(b) : num(a) >= num(b));
    case "len":
      return (a) => {
        const v = plain(a);
        return typeof v === "string"
          ? v.length
          : Array.isArray(v)
            ? v.length
            : v && typeof v === "object"
              ? Object.keys(v).length
              : 0;
      };
    case "index":
    case "collections.Index":
      return (v, ...keys) => {
        let cur = v;
        for (const k of keys.flat()) cur = Array.isArray(cur) ? cur[num(k)] : field(cur, str(k));
        return cur;
      };
    case "print":
    case "fmt.Print":
      return (...a) => a.map(str).join("");
    case "println":
    case "fmt.Println":
      return (...a) => a.map(str).join(" ") + "\n";
    case "printf":
    case "fmt.Printf":
      return (format, ...a) => sprintf(str(format), a);
    case "html":
    case "htmlEscape":
    case "transform.HTMLEscape":
      return (a) => escapeHtml(str(a));
    case "htmlUnescape":
    case "transform.HTMLUnescape":
      return (a) =>
        str(a)
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, "&");
    case "js":
    case "urlquery":
      return (a) => str(a);
    case "call":
      return (f, ...a) => (typeof f === "function" ? (f as (...x: Value[]) => Value)(...a) : undefined);
    // Hugo's
    case "partial":
    case "partialCached":
    case "partials.Include":
    case "partials.IncludeCached":
      return (name, context) => renderPartial(site, str(name), context);
    case "templates.Exists":
      return (name) => findLayout(site, `${str(name)}`) !== null || findLayout(site, `partials/${str(name)}`) !== null;
    case "dict":
    case "collections.Dictionary":
      return (...a) => {
        const out: Record<string, Value> = {};
        for (let i = 0; i + 1 < a.length; i += 2) out[str(a[i])] = a[i + 1];
        return out;
      };
    case "slice":
    case "collections.Slice":
      return (...a) => a;
    case "seq":
    case "collections.Seq":
      return (...a) => {
        const [from, to] = a.length === 1 ? [1, num(a[0])] : [num(a[0]), num(a[a.length - 1])];
        const out: number[] = [];
        for (let i = from; i <= to && out.length < 10000; i++) out.push(i);
        return out;
      };
    case "default":
      return (fallback, value) =>
        value === undefined ||
        value === null ||
        value === "" ||
        value === false ||
        (Array.isArray(value) && value.length === 0)
          ? fallback
          : value;
    case "cond":
    case "compare.Conditional":
      return (c, a, b) => (goTruthy(c) ? a : b);
    case "isset":
      return (v, k) => {
        const x = plain(v);
        if (Array.isArray(x)) return num(k) < x.length;
        return x !== null && typeof x === "object" && field(x, str(k)) !== undefined;
      };
    case "in":
    case "collections.In":
      return (set, v) => {
        const x = plain(set);
        if (typeof x === "string") return x.includes(str(v));
        return list(x).some((e) => same(e, v));
      };
    case "where":
    case "collections.Where":
      return (coll, key, ...rest) => {
        const [op, wanted] = rest.length >= 2 ? [str(rest[0]), rest[1]] : ["==", rest[0]];
        return list(coll).filter((item) => {
          const v = resolveFields(item, str(key).replace(/^\./, "").split("."), null);
          switch (op) {
            case "!=":
            case "<>":
              return !same(v, wanted);
            case ">":
              return num(v) > num(wanted);
            case ">=":
              return num(v) >= num(wanted);
            case "<":
              return num(v) < num(wanted);
            case "<=":
              return num(v) <= num(wanted);
            case "in":
              return list(wanted).some((w) => same(w, v));
            case "not in":
              return !list(wanted).some((w) => same(w, v));
            default:
              return same(v, wanted);
          }
        });
      };
    case "sort":
    case "collections.Sort":
      return (coll, key, order) => {
        const items = [...list(coll)];
        const by = (x: Value) =>
          key === undefined || str(key) === "value"
            ? x
            : resolveFields(x, str(key).replace(/^\./, "").split("."), null);
        items.sort((a, b) => {
          const x = plain(by(a));
          const y = plain(by(b));
          const c =
            typeof x === "number" && typeof y === "number" ? x - y : str(x) < str(y) ? -1 : str(x) > str(y) ? 1 : 0;
          return str(order).toLowerCase() === "desc" ? -c : c;
        });
        return items;
      };
    case "first":
    case "collections.First":
      return (n, coll) => list(coll).slice(0, num(n));
    case "last":
    case "collections.Last":
      return (n, coll) => list(coll).slice(-num(n));
    case "after":
    case "collections.After":
      return (n, coll) => list(coll).slice(num(n));
    case "append":
    case "collections.Append":
      return (...a) => {
        const coll = a[a.length - 1];
        return [...list(coll), ...a.slice(0, -1).flatMap((x) => (Array.isArray(x) ? x : [x]))];
      };
    case "merge":
    case "collections.Merge":
      return (...maps) => Object.assign({}, ...maps.map((m) => (m && typeof m === "object" ? m : {})).reverse());
    case "uniq":
    case "collections.Uniq":
      return (coll) => [...new Set(list(coll))];
    case "shuffle":
    case "collections.Shuffle":
      return (coll) => list(coll);
    case "union":
      return (a, b) => [...new Set([...list(a), ...list(b)])];
    case "intersect":
      return (a, b) => list(a).filter((x) => list(b).some((y) => same(x, y)));
    case "complement":
      return (...a) => {
        const coll = list(a[a.length - 1]);
        const others = a.slice(0, -1).flatMap(list);
        return coll.filter((x) => !others.some((y) => same(x, y)));
      };
    case "apply":
      return () => [];
    case "add":
    case "math.Add":
      return (...a) =>
        a.some((x) => typeof plain(x) === "string" && !/^-?\d/.test(str(x)))
          ? a.map(str).join("")
          : a.reduce<number>((s, x) => s + num(x), 0);
    case "sub":
    case "math.Sub":
      return (a, ...b) => b.reduce<number>((s, x) => s - num(x), num(a));
    case "mul":
    case "math.Mul":
      return (...a) => a.reduce<number>((s, x) => s * num(x), 1);
    case "div":
    case "math.Div":
      return (a, b) => {
        const r = num(a) / num(b);
        return Number.isInteger(num(a)) && Number.isInteger(num(b)) ? Math.trunc(r) : r;
      };
    case "mod":
    case "math.Mod":
      return (a, b) => num(a) % num(b);
    case "modBool":
    case "math.ModBool":
      return (a, b) => num(a) % num(b) === 0;
    case "math.Round":
      return (a) => Math.round(num(a));
    case "math.Floor":
      return (a) => Math.floor(num(a));
    case "math.Ceil":
      return (a) => Math.ceil(num(a));
    case "math.Max":
      return (...a) => Math.max(...a.map(num));
    case "math.Min":
      return (...a) => Math.min(...a.map(num));
    case "int":
    case "cast.ToInt":
      return (a) => Math.trunc(num(a));
    case "float":
    case "cast.ToFloat":
      return (a) => num(a);
    case "string":
    case "cast.ToString":
      return (a) => str(a);
    case "lower":
    case "strings.ToLower":
      return (a) => str(a).toLowerCase();
    case "upper":
    case "strings.ToUpper":
      return (a) => str(a).toUpperCase();
    case "title":
    case "strings.Title":
      return (a) => str(a).replace(/(^|[\s-])(\w)/g, (m, p, c: string) => p + c.toUpperCase());
    case "humanize":
    case "inflect.Humanize": {
      return (a) => {
        const s = str(a).replace(/[-_]+/g, " ").trim();
        return s.charAt(0).toUpperCase() + s.slice(1);
      };
    }
    case "singularize":
    case "pluralize":
    case "emojify":
      return (a) => a;
    case "chomp":
    case "strings.Chomp":
      return (a) => str(a).replace(/[\r\n]+$/, "");
    case "urlize":
    case "anchorize":
    case "urls.Anchorize":
      return (a) =>
        str(a)
          .toLowerCase()
          .trim()
          .replace(/[^\w\s-]/g, "")
          .replace(/\s+/g, "-");
    case "replace":
    case "strings.Replace":
      return (s, a, b) => str(s).split(str(a)).join(str(b));
    case "replaceRE":
    case "strings.ReplaceRE":
      return (re, repl, s) => {
        try {
          return str(s).replace(new RegExp(str(re), "g"), str(repl).replace(/\$\{?(\d+)\}?/g, "$$$1"));
        } catch {
          return str(s);
        }
      };
    case "findRE":
    case "strings.FindRE":
      return (re, s) => {
        try {
          return str(s).match(new RegExp(str(re), "g")) ?? [];
        } catch {
          return [];
        }
      };
    case "split":
    case "strings.Split":
      return (s, sep) => str(s).split(str(sep));
    case "delimit":
    case "collections.Delimit":
      return (coll, sep, lastSep) => {
        const items = list(coll).map(str);
        if (lastSep !== undefined && items.length > 1)
          return items.slice(0, -1).join(str(sep)) + str(lastSep) + items[items.length - 1];
        return items.join(str(sep));
      };
    case "trim":
    case "strings.Trim":
      return (s, cut) => {
        const chars = [...str(cut)];
        let t = str(s);
        while (t && chars.includes(t[0]!)) t = t.slice(1);
        while (t && chars.includes(t[t.length - 1]!)) t = t.slice(0, -1);
        return t;
      };
    case "strings.TrimSpace":
      return (s) => str(s).trim();
    case "strings.TrimPrefix":
      return (p, s) => (str(s).startsWith(str(p)) ? str(s).slice(str(p).length) : str(s));
    case "strings.TrimSuffix":
      return (p, s) => (str(s).endsWith(str(p)) ? str(s).slice(0, -str(p).length) : str(s));
    case "strings.Contains":
      return (s, sub) => str(s).includes(str(sub));
    case "strings.HasPrefix":
    case "hasPrefix":
      return (s, p) => str(s).startsWith(str(p));
    case "strings.HasSuffix":
    case "hasSuffix":
      return (s, p) => str(s).endsWith(str(p));
    case "strings.Repeat":
      return (n, s) => str(s).repeat(Math.max(0, Math.min(1000, num(n))));
    case "substr":
    case "strings.Substr":
      return (s, start, length) => {
        const t = str(s);
        const from = num(start) < 0 ? t.length + num(start) : num(start);
        return length === undefined ? t.slice(from) : t.slice(from, from + num(length));
      };
    case "truncate":
    case "strings.Truncate":
      return (n, ...rest) => {
        const t = str(rest[rest.length - 1]);
        const ellipsis = rest.length > 1 ? str(rest[0]) : "…";
        return t.length > num(n) ? t.slice(0, num(n)).trimEnd() + ellipsis : t;
      };
    case "countwords":
    case "strings.CountWords":
      return (s) => str(s).split(/\s+/).filter(Boolean).length;
    case "safeHTML":
    case "safe.HTML":
    case "safeHTMLAttr":
    case "safe.HTMLAttr":
    case "safeCSS":
    case "safe.CSS":
    case "safeJS":
    case "safe.JS":
    case "safeURL":
    case "safe.URL":
      return (a) => new SafeHtml(str(a));
    case "markdownify":
    case "transform.Markdownify":
      return (a) => {
        const html = markdownToHtml(str(a)).trim();
        const single = /^<p>([\s\S]*)<\/p>$/.exec(html);
        return new SafeHtml(single && !single[1]!.includes("<p>") ? single[1]! : html);
      };
    case "plainify":
    case "transform.Plainify":
      return (a) => str(a).replace(/<[^>]*>/g, "");
    case "absURL":
    case "absLangURL":
    case "urls.AbsURL":
    case "urls.AbsLangURL":
      return (a) => {
        const u = str(a);
        if (/^[a-z]+:/i.test(u)) return u;
        const base = textOf(site.site.BaseURL).replace(/\/+$/, "");
        return `${base}/${u.replace(/^\/+/, "")}`;
      };
    case "relURL":
    case "relLangURL":
    case "urls.RelURL":
    case "urls.RelLangURL":
      return (a) => {
        const u = str(a);
        return /^[a-z]+:/i.test(u) || u.startsWith("/") ? u : `/${u}`;
      };
    case "ref":
    case "relref":
      return () => "";
    case "T":
    case "i18n":
    case "lang.Translate":
      return (key) => {
        const entry = site.i18n[str(key)];
        if (entry && typeof entry === "object") return textOf(field(entry, "other") ?? field(entry, "one"));
        return entry === undefined ? "" : textOf(entry);
      };
    case "jsonify":
    case "encoding.Jsonify":
      return (...a) => {
        try {
          return JSON.stringify(plain(a[a.length - 1]));
        } catch {
          return "";
        }
      };
    case "base64Encode":
      return (a) => Buffer.from(str(a)).toString("base64");
    case "md5":
    case "sha1":
    case "sha256":
    case "crypto.MD5":
    case "crypto.SHA1":
    case "crypto.SHA256":
      return () => "";
    case "now":
    case "time.Now":
      return () => timeValue(new Date(0));
    case "time":
    case "time.AsTime":
      return (a) => timeValue(new Date(str(a)));
    case "dateFormat":
    case "time.Format":
      return (layout, d) => formatDate(str(layout), d instanceof Date ? d : new Date(str(d)));
    case "readFile":
    case "os.ReadFile":
      return (p) => site.repo.read(str(p)) ?? "";
    case "fileExists":
    case "os.FileExists":
      return (p) => site.repo.exists(str(p));
    case "getenv":
    case "os.Getenv":
      return () => "";
    case "site":
      return () => site.site;
    case "hugo":
      return () => ({ Generator: new SafeHtml(""), Environment: "production", IsProduction: true, Version: "" });
    case "path.Base":
      return (p) => path.posix.basename(str(p));
    case "path.Dir":
      return (p) => path.posix.dirname(str(p));
    case "path.Join":
      return (...a) => path.posix.join(...a.map(str));
    case "errorf":
    case "warnf":
    case "erroridf":
    case "fmt.Errorf":
    case "fmt.Warnf":
      return () => "";
    case "newScratch":
      return () => scratch();
    // What only Hugo's build has (resources, remote data, image processing): nothing.
    case "resources.Get":
    case "resources.GetMatch":
    case "resources.GetRemote":
    case "resources.Match":
    case "resources.Concat":
    case "resources.FromString":
    case "resources.ExecuteAsTemplate":
    case "resources.Fingerprint":
    case "resources.Minify":
    case "resources.ToCSS":
    case "resources.PostCSS":
    case "resources.Babel":
    case "js.Build":
    case "css.Sass":
    case "css.PostCSS":
    case "fingerprint":
    case "minify":
    case "toCSS":
    case "postCSS":
    case "babel":
    case "getJSON":
    case "getCSV":
    case "images.Filter":
    case "imageConfig":
      return () => undefined;
    default:
      return null;
  }
}

function sprintf(format: string, args: Value[]): string {
  let i = 0;
  return format.replace(
    /%([-+ #0]*)(\d*)(?:\.(\d+))?([vsdqfgtxXeT%])/g,
    (m, flags: string, width: string, prec: string | undefined, verb: string) => {
      if (verb === "%") return "%";
      const a = plain(args[i++]);
      let out: string;
      switch (verb) {
        case "d":
          out = String(Math.trunc(num(a)));
          break;
        case "f":
        case "e":
        case "g":
          out = prec !== undefined ? num(a).toFixed(Number(prec)) : verb === "f" ? num(a).toFixed(6) : String(num(a));
          break;
        case "q":
          out = JSON.stringify(str(a));
          break;
        case "x":
          out = typeof a === "number" ? a.toString(16) : Buffer.from(str(a)).toString("hex");
          break;
        case "X":
          out = (typeof a === "number" ? a.toString(16) : Buffer.from(str(a)).toString("hex")).toUpperCase();
          break;
        case "t":
          out = goTruthy(a) ? "true" : "false";
          break;
        default:
          out = show(a);
      }
      const w = Number(width || 0);
      if (out.length < w) out = flags.includes("-") ? out.padEnd(w) : out.padStart(w, flags.includes("0") ? "0" : " ");
      return out;
    },
  );
}

function timeValue(d: Date): Record<string, Value> {
  const valid = !Number.isNaN(d.getTime());
  return {
    Unix: () => (valid ? Math.floor(d.getTime() / 1000) : 0),
    Year: () => (valid ? d.getUTCFullYear() : 0),
    Month: () => (valid ? d.getUTCMonth() + 1 : 0),
    Day: () => (valid ? d.getUTCDate() : 0),
    Format: (layout: Value) => (valid ? formatDate(str(layout), d) : ""),
    IsZero: () => !valid,
  };
}

function formatDate(layout: string, d: Date): string {
  if (Number.isNaN(d.getTime())) return "";
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
  const days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const pad = (n: number) => String(n).padStart(2, "0");
  return layout.replace(/2006|January|Jan|Monday|Mon|01|02|15|03|04|05|_2|1|2|06/g, (t) => {
    switch (t) {
      case "2006":
        return String(d.getUTCFullYear());
      case "06":
        return String(d.getUTCFullYear()).slice(2);
      case "January":
        return months[d.getUTCMonth()]!;
      case "Jan":
        return months[d.getUTCMonth()]!.slice(0, 3);
      case "Monday":
        return days[d.getUTCDay()]!;
      case "Mon":
        return days[d.getUTCDay()]!.slice(0, 3);
      case "01":
        return pad(d.getUTCMonth() + 1);
      case "1":
        return String(d.getUTCMonth() + 1);
      case "02":
        return pad(d.getUTCDate());
      case "_2":
      case "2":
        return String(d.getUTCDate());
      case "15":
        return pad(d.getUTCHours());
      case "03":
        return pad(d.getUTCHours() % 12 || 12);
      case "04":
        return pad(d.getUTCMinutes());
      case "05":
        return pad(d.getUTCSeconds());
      default:
        return t;
    }
  });
}

function scratch(): Record<string, Value> {
  const store: Record<string, Value> = {};
  return {
    Set: (k: Value, v: Value) => {
      store[str(k)] = v;
      return "";
    },
    Get: (k: Value) => store[str(k)],
    Add: (k: Value, v: Value) => {
      const cur = store[str(k)];
      store[str(k)] = Array.isArray(cur)
        ? [...cur, ...(Array.isArray(v) ? v : [v])]
        : cur === undefined
          ? v
          : typeof cur === "number"
            ? cur + num(v)
            : str(cur) + str(v);
      return "";
    },
    SetInMap: (k: Value, key: Value, v: Value) => {
      const m = (store[str(k)] ??= {}) as Record<string, Value>;
      m[str(key)] = v;
      return "";
    },
    GetSortedMapValues: (k: Value) => {
      const m = store[str(k)] as Record<string, Value> | undefined;
      return m
        ? Object.keys(m)
            .sort()
            .map((key) => m[key])
        : [];
    },
    Delete: (k: Value) => {
      delete store[str(k)];
      return "";
    },
    Values: () => store,
  };
}

/** How Go prints a value: strings as they are, slices as `[a b]`, nil as nothing (Hugo prints `<nil>` rarely). */
function show(value: Value): string {
  if (value instanceof SafeHtml) return value.html;
  if (Array.isArray(value)) return `[${value.map(show).join(" ")}]`;
  if (typeof value === "function") return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(value);
  return textOf(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Execution

function execute(nodes: GoNode[], ctx: Ctx): string {
  let out = "";
  for (const node of nodes) {
    switch (node.t) {
      case "text":
        out += node.v;
        break;
      case "out": {
        const value = evalPipeline(node.pipe, ctx);
        if (node.pipe.decl) break;
        out += value instanceof SafeHtml ? value.html : escapeHtml(show(value)).replace(/'/g, "&#39;");
        break;
      }
      case "if": {
        const scope: Ctx = { ...ctx, vars: { values: new Map(), parent: ctx.vars } };
        const value = evalPipeline(node.pipe, scope);
        out += execute(goTruthy(value) ? node.body : node.els, goTruthy(value) ? scope : ctx);
        break;
      }
      case "with": {
        const scope: Ctx = { ...ctx, vars: { values: new Map(), parent: ctx.vars } };
        const value = evalPipeline(node.pipe, scope);
        if (goTruthy(value)) out += execute(node.body, { ...scope, dot: value });
        else out += execute(node.els, ctx);
        break;
      }
      case "range": {
        const scope: Ctx = { ...ctx, vars: { values: new Map(), parent: ctx.vars } };
        const decl = node.pipe.decl;
        const value = evalPipeline({ decl: null, cmds: node.pipe.cmds }, scope);
        const v = plain(value);
        let entries: [Value, Value][] = [];
        if (Array.isArray(v)) entries = v.map((x, i) => [i, x]);
        else if (typeof v === "number" && Number.isInteger(v) && v > 0)
          entries = Array.from({ length: Math.min(v, 10000) }, (_, i) => [i, i]);
        else if (v && typeof v === "object")
          entries = Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, Value>)[k]]);
        if (entries.length === 0) {
          out += execute(node.els, ctx);
          break;
        }
        for (const [key, item] of entries) {
          const iter: Ctx = { ...scope, dot: item, vars: { values: new Map(), parent: scope.vars } };
          if (decl) {
            if (decl.vars.length === 1) iter.vars.values.set(decl.vars[0]!, item);
            else {
              iter.vars.values.set(decl.vars[0]!, key);
              iter.vars.values.set(decl.vars[1]!, item);
            }
          }
          try {
            out += execute(node.body, iter);
          } catch (signal) {
            if (!(signal instanceof LoopSignal)) throw signal;
            out += (signal as LoopSignal & { partial?: string }).partial ?? "";
            if (signal.kind === "break") break;
          }
        }
        break;
      }
      case "define":
        break;
      case "block": {
        const defined = ctx.site.defines.get(node.name);
        const dot = node.pipe ? evalPipeline(node.pipe, ctx) : ctx.dot;
        out += execute(defined ?? node.body, { ...ctx, dot, root: dot, vars: { values: new Map(), parent: null } });
        break;
      }
      case "template": {
        const dot = node.pipe ? evalPipeline(node.pipe, ctx) : undefined;
        const defined = ctx.site.defines.get(node.name);
        if (defined) out += execute(defined, { ...ctx, dot, root: dot, vars: { values: new Map(), parent: null } });
        else if (!node.name.startsWith("_internal/")) {
          const found = findLayout(ctx.site, node.name) ?? findLayout(ctx.site, `partials/${node.name}`);
          if (found) out += runTemplate(ctx.site, found, dot);
        }
        break;
      }
      case "return":
        throw new ReturnSignal(node.pipe ? evalPipeline(node.pipe, ctx) : undefined);
      case "break":
      case "continue": {
        const signal = new LoopSignal(node.t) as LoopSignal & { partial?: string };
        signal.partial = out;
        throw signal;
      }
    }
  }
  return out;
}

function parsed(site: HugoSite, file: string): GoNode[] {
  let nodes = site.templates.get(file);
  if (!nodes) {
    nodes = parseTemplate(site.repo.read(file) ?? "");
    site.templates.set(file, nodes);
  }
  return nodes;
}

function collectDefines(site: HugoSite, nodes: GoNode[]): void {
  for (const node of nodes) if (node.t === "define") site.defines.set(node.name, node.body);
}

function runTemplate(site: HugoSite, file: string, dot: Value): string {
  if (site.depth > 40) return "";
  site.depth++;
  try {
    const nodes = parsed(site, file);
    collectDefines(site, nodes);
    return execute(nodes, { site, dot, root: dot, vars: { values: new Map(), parent: null } });
  } catch (signal) {
    if (signal instanceof ReturnSignal) return show(signal.value);
    if (signal instanceof LoopSignal) return "";
    throw signal;
  } finally {
    site.depth--;
  }
}

function renderPartial(site: HugoSite, name: string, context: Value): Value {
  const file = findLayout(site, `partials/${name}`) ?? findLayout(site, `partials/${name}.html`);
  if (!file) return new SafeHtml("");
  if (site.depth > 40) return new SafeHtml("");
  site.depth++;
  try {
    const nodes = parsed(site, file);
    return new SafeHtml(
      execute(nodes, { site, dot: context, root: context, vars: { values: new Map(), parent: null } }),
    );
  } catch (signal) {
    if (signal instanceof ReturnSignal) return signal.value;
    if (signal instanceof LoopSignal) return new SafeHtml("");
    throw signal;
  } finally {
    site.depth--;
  }
}

function findLayout(site: HugoSite, name: string): string | null {
  for (const dir of site.layoutDirs) {
    const file = `${dir}/${name}`;
    if (site.repo.exists(file)) return file;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Shortcodes in content

const SHORTCODE_RE =
  /\{\{([<%])\s*(\/?)\s*([\w./-]+)((?:\s+(?:[\w-]+\s*=\s*)?(?:"(?:\\.|[^"])*"|`[^`]*`|[^\s"`>%]+))*)\s*(\/?)\s*[>%]\}\}/g;

function shortcodeArgs(text: string): { positional: string[]; named: Record<string, string> } {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  const re = /(?:([\w-]+)\s*=\s*)?("(?:\\.|[^"])*"|`[^`]*`|[^\s"`]+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const raw = m[2]!;
    const value = raw.startsWith('"')
      ? raw.slice(1, -1).replace(/\\(.)/g, "$1")
      : raw.startsWith("`")
        ? raw.slice(1, -1)
        : raw;
    if (m[1]) named[m[1]] = value;
    else positional.push(value);
  }
  return { positional, named };
}

/** Replaces shortcodes in a page's body: `{{< >}}` output is HTML kept aside from Markdown, `{{% %}}` is Markdown. */
function expandShortcodes(site: HugoSite, body: string, page: Record<string, Value>, kept: string[]): string {
  type Token = {
    index: number;
    end: number;
    kind: string;
    closing: boolean;
    name: string;
    args: string;
    selfClosing: boolean;
  };
  const tokens: Token[] = [];
  SHORTCODE_RE.lastIndex = 0;
  for (let m = SHORTCODE_RE.exec(body); m; m = SHORTCODE_RE.exec(body)) {
    tokens.push({
      index: m.index,
      end: SHORTCODE_RE.lastIndex,
      kind: m[1]!,
      closing: m[2] === "/",
      name: m[3]!,
      args: m[4] ?? "",
      selfClosing: m[5] === "/",
    });
  }
  if (tokens.length === 0) return body;
  let out = "";
  let at = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.closing) continue;
    out += body.slice(at, t.index);
    // Its closing tag, if the shortcode has one (then its inner text is between).
    let closeAt = -1;
    if (!t.selfClosing) {
      let depth = 0;
      for (let j = i + 1; j < tokens.length; j++) {
        const u = tokens[j]!;
        if (u.name !== t.name) continue;
        if (!u.closing) depth++;
        else if (depth === 0) {
          closeAt = j;
          break;
        } else depth--;
      }
    }
    const inner = closeAt === -1 ? "" : body.slice(t.end, tokens[closeAt]!.index);
    const rendered = renderShortcode(
      site,
      t.name,
      t.args,
      expandShortcodes(site, inner, page, kept),
      page,
      t.kind === "%",
    );
    if (t.kind === "%") out += rendered;
    else {
      kept.push(rendered);
      out += `HUGOSHORTCODE${kept.length - 1}END`;
    }
    if (closeAt !== -1) {
      at = tokens[closeAt]!.end;
      i = closeAt;
    } else at = t.end;
  }
  return out + body.slice(at);
}

function renderShortcode(
  site: HugoSite,
  name: string,
  args: string,
  inner: string,
  page: Record<string, Value>,
  _markdownInner: boolean,
): string {
  const file = findLayout(site, `shortcodes/${name}.html`) ?? findLayout(site, `shortcodes/${name}`);
  if (!file) return "";
  const { positional, named } = shortcodeArgs(args);
  const isNamed = Object.keys(named).length > 0;
  const context: Record<string, Value> = {
    Get: (key: Value) =>
      typeof key === "number"
        ? positional[key]
        : (named[str(key)] ?? (/^\d+$/.test(str(key)) ? positional[Number(key)] : undefined)),
    Inner: new SafeHtml(inner),
    InnerDeindent: new SafeHtml(inner),
    Params: isNamed ? named : positional,
    IsNamedParams: isNamed,
    Page: page,
    Site: site.site,
    Name: name,
    Ordinal: 0,
    Parent: undefined,
    Scratch: scratch(),
    Store: scratch(),
  };
  return runTemplate(site, file, context);
}

// ---------------------------------------------------------------------------------------------------------------
// The page

function siteConfiguration(repo: RepoAtCommit): Record<string, Value> {
  for (const file of [
    "hugo.toml",
    "hugo.yaml",
    "hugo.yml",
    "hugo.json",
    "config.toml",
    "config.yaml",
    "config.yml",
    "config.json",
    "config/_default/hugo.toml",
    "config/_default/config.toml",
    "config/_default/hugo.yaml",
    "config/_default/config.yaml",
    "config/_default/config.yml",
  ]) {
    const text = repo.read(file);
    if (text === null) continue;
    const config = parseStructured(text, file.endsWith(".toml") ? "toml" : file.endsWith(".json") ? "json" : "yaml");
    // config/_default/params.toml and menus.toml stand beside the main file.
    if (file.startsWith("config/_default/")) {
      for (const part of ["params", "menus", "languages"]) {
        for (const ext of ["toml", "yaml", "yml"]) {
          const extra = repo.read(`config/_default/${part}.${ext}`);
          if (extra !== null) config[part] = parseStructured(extra, ext === "toml" ? "toml" : "yaml");
        }
      }
    }
    return config;
  }
  return {};
}

function lowerKeys(value: Value): Value {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, Value> = {};
    for (const [k, v] of Object.entries(value as Record<string, Value>)) out[k.toLowerCase()] = lowerKeys(v);
    return out;
  }
  return value;
}

function menus(config: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = {};
  const raw = (config.menu ?? config.menus) as Record<string, Value> | undefined;
  if (!raw || typeof raw !== "object") return out;
  for (const [name, entries] of Object.entries(raw)) {
    if (!Array.isArray(entries)) continue;
    const items = entries.map((e) => {
      const entry = (e ?? {}) as Record<string, Value>;
      const get = (k: string) => member(entry, k);
      return {
        Name: get("name"),
        URL: get("url") ?? get("pageRef"),
        Weight: get("weight") ?? 0,
        Identifier: get("identifier") ?? get("name"),
        Parent: get("parent"),
        Pre: new SafeHtml(textOf(get("pre"))),
        Post: new SafeHtml(textOf(get("post"))),
        Params: get("params") ?? {},
        Title: get("title") ?? get("name"),
        HasChildren: false,
        Children: [] as Value[],
      } as Record<string, Value>;
    });
    for (const item of items)
      if (item.Parent) {
        const parent = items.find((p) => p.Identifier === item.Parent);
        if (parent) {
          (parent.Children as Value[]).push(item);
          parent.HasChildren = true;
        }
      }
    out[name] = items.filter((i) => !i.Parent).sort((a, b) => num(a.Weight) - num(b.Weight));
  }
  return out;
}

/** A Hugo content page (Markdown or HTML under content/) rendered with its single-page layout. */
export function renderHugo(repo: RepoAtCommit, file: string, context: Record<string, Value>): string {
  const config = siteConfiguration(repo);
  const themes = ([] as Value[])
    .concat(config.theme ?? [])
    .map(textOf)
    .filter(Boolean);
  const layoutDirs = ["layouts", ...themes.map((t) => `themes/${t}/layouts`)];
  const data = dataTree(repo, "data");
  for (const theme of [...themes].reverse()) {
    const themeData = dataTree(repo, `themes/${theme}/data`);
    for (const key of Object.keys(themeData))
      if (!(key in data)) Object.defineProperty(data, key, Object.getOwnPropertyDescriptor(themeData, key)!);
  }
  const language = textOf(config.defaultContentLanguage ?? config.languageCode ?? "en").slice(0, 2) || "en";
  const i18n: Record<string, Value> = {};
  for (const dir of [...themes.map((t) => `themes/${t}/i18n`), "i18n"]) {
    for (const ext of ["toml", "yaml", "yml", "json"]) {
      const text = repo.read(`${dir}/${language}.${ext}`);
      if (text === null) continue;
      const parsedI18n = parseStructured(text, ext === "toml" ? "toml" : ext === "json" ? "json" : "yaml");
      if (Array.isArray(parsedI18n))
        for (const e of parsedI18n as Record<string, Value>[]) i18n[textOf(e.id)] = e.translation;
      else Object.assign(i18n, parsedI18n);
    }
  }
  const params = lowerKeys(config.params ?? {}) as Record<string, Value>;
  const baseURL = textOf(config.baseURL ?? config.baseurl ?? "/");
  const site: Record<string, Value> = {
    Title: config.title ?? "",
    BaseURL: baseURL,
    LanguageCode: config.languageCode ?? config.languagecode ?? "",
    Params: params,
    Data: data,
    Menus: menus(config),
    Language: { Lang: language, LanguageName: "", LanguageCode: language, Params: {} },
    Languages: [],
    Pages: [],
    RegularPages: [],
    AllPages: [],
    Sections: [],
    Taxonomies: {},
    Home: { Permalink: baseURL, RelPermalink: "/", Title: config.title ?? "" },
    GetPage: () => undefined,
    Param: (key: Value) => field(params, str(key)),
    Copyright: config.copyright ?? "",
    Author: config.author ?? {},
    IsServer: false,
    IsMultiLingual: false,
    Hugo: { Generator: new SafeHtml(""), Environment: "production" },
    ...context,
  };
  const hugo: HugoSite = { repo, layoutDirs, site, i18n, templates: new Map(), defines: new Map(), depth: 0 };
  const source = repo.read(file) ?? "";
  const { data: frontMatter, body } = splitFrontMatter(source);
  const fm = lowerKeys(frontMatter) as Record<string, Value>;
  const relative = file.replace(/^content\//, "");
  const section = relative.includes("/") ? relative.split("/")[0]! : "";
  const type = textOf(fm.type) || section || "page";
  const layout = textOf(fm.layout);
  const slug = relative.replace(/(?:\/?_?index)?\.(md|markdown|html|htm)$/, "");
  const relPermalink = textOf(fm.url) || `/${slug}${slug ? "/" : ""}`;
  const page: Record<string, Value> = {
    Title: fm.title ?? "",
    LinkTitle: fm.linktitle ?? fm.title ?? "",
    Description: fm.description ?? "",
    Summary: "",
    Params: fm,
    Type: type,
    Layout: layout,
    Kind: "page",
    Section: section,
    IsHome: false,
    IsPage: true,
    IsSection: false,
    IsNode: false,
    Draft: fm.draft ?? false,
    Date: fm.date,
    Lastmod: fm.lastmod ?? fm.date,
    PublishDate: fm.publishdate ?? fm.date,
    Weight: fm.weight ?? 0,
    Keywords: fm.keywords ?? [],
    Aliases: fm.aliases ?? [],
    Permalink: `${baseURL.replace(/\/+$/, "")}${relPermalink}`,
    RelPermalink: relPermalink,
    Site: site,
    Lang: language,
    Language: site.Language,
    File: {
      Path: relative,
      LogicalName: path.posix.basename(relative),
      BaseFileName: path.posix.basename(relative).replace(/\.[^.]+$/, ""),
      Dir: path.posix.dirname(relative) + "/",
      Ext: path.posix.extname(relative).slice(1),
    },
    Resources: { Get: () => undefined, GetMatch: () => undefined, Match: () => [], ByType: () => [] },
    Pages: [],
    RegularPages: [],
    Sections: [],
    Translations: [],
    AllTranslations: [],
    IsTranslated: false,
    TableOfContents: new SafeHtml(""),
    Scratch: scratch(),
    Store: scratch(),
    Param: (key: Value) => field(fm, str(key)) ?? field(params, str(key)),
    HasShortcode: (name: Value) => new RegExp(`\\{\\{[<%]\\s*${str(name)}\\b`).test(body),
    OutputFormats: { Get: () => undefined },
    AlternativeOutputFormats: [],
    Parent: undefined,
    CurrentSection: undefined,
    FirstSection: undefined,
    GitInfo: undefined,
    Sitemap: {},
    WordCount: body.split(/\s+/).filter(Boolean).length,
    ReadingTime: Math.max(1, Math.round(body.split(/\s+/).length / 213)),
    Truncated: false,
    Name: fm.title ?? "",
  };
  // Content: shortcodes, then Markdown (raw HTML kept, as the sites whose pages hold HTML configure Goldmark).
  const kept: string[] = [];
  const expanded = expandShortcodes(hugo, body, page, kept);
  let content = /\.(md|markdown|mkd)$/i.test(file) ? markdownToHtml(expanded) : expanded;
  content = content.replace(/(?:<p>)?HUGOSHORTCODE(\d+)END(?:<\/p>)?/g, (m, i: string) => kept[Number(i)] ?? "");
  page.Content = new SafeHtml(content);
  page.Summary = new SafeHtml(
    content
      .split(/<!--more-->/)[0]!
      .replace(/<[^>]*>/g, "")
      .slice(0, 300),
  );
  page.Plain = content.replace(/<[^>]*>/g, "");

  // The single-page layout: type/layout, type/single, _default/layout, _default/single.
  const names = [
    ...(layout ? [`${type}/${layout}.html`] : []),
    `${type}/single.html`,
    ...(layout ? [`_default/${layout}.html`] : []),
    "_default/single.html",
  ];
  let template: string | null = null;
  for (const name of names) {
    template = findLayout(hugo, name);
    if (template) break;
  }
  if (!template) return content;
  const nodes = parsed(hugo, template);
  collectDefines(hugo, nodes);
  const onlyDefines = nodes.every((n) => n.t === "define" || (n.t === "text" && n.v.trim() === ""));
  if (onlyDefines) {
    const base = findLayout(hugo, `${type}/baseof.html`) ?? findLayout(hugo, "_default/baseof.html");
    if (base) {
      const baseNodes = parsed(hugo, base);
      for (const node of baseNodes)
        if (node.t === "define" && !hugo.defines.has(node.name)) hugo.defines.set(node.name, node.body);
      return runTemplate(hugo, base, page);
    }
    const main = hugo.defines.get("main");
    return main
      ? execute(main, { site: hugo, dot: page, root: page, vars: { values: new Map(), parent: null } })
      : content;
  }
  return runTemplate(hugo, template, page);
}
