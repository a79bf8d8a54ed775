/**
 * Go's text/template and html/template language, for Go web services' templates and for Hugo (hugo.ts is its host):
 * actions `{{ pipeline }}` with `{{-`/`-}}` trimming and comments (slash-star inside braces), pipelines with `|`,
 * parenthesised pipelines and field chains on the dot, on variables, on a function's result (`site.Params.x`) and on
 * a parenthesised pipeline; variables (`$x := …`, `$x = …`, `$i, $v :=` in `range`); `if`/`else if`/`else`, `with`
 * (and `else with`), `range` (over slices, maps in key order and integers, with `else`, `break` and `continue`),
 * `define`, `block`, `template`, and Hugo's `return` from a partial; the language's built-in functions (`and`, `or`,
 * `not`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `len`, `index`, `slice`, `print`, `printf`, `println`, `html`, `js`,
 * `urlquery`, `call`). As html/template does, an action's output is HTML-escaped unless it is HTML already
 * (`SafeHtml`: a partial's output, `.Content`, `safeHTML`).
 *
 * The host gives the data (the dot), more functions, and the template a `template` action names. Nothing of the
 * product's code runs: a function neither the host nor the language defines yields nothing. For a Go web service
 * (`serverRendered`), the data is only what the manifest gives, so a value missing from it is unknown rather than nil:
 * a condition on it reads the way the brace dialects read one (see BraceOptions.serverRendered), true unless it is
 * about the visitor's own state, and comparisons and `not`/`or` with an unknown operand stay unknown.
 */
import type { TemplateSource } from "./brace.js";
import { escapeHtml, member, textOf, truthy, VISITOR_STATE_RE, type Value } from "./values.js";

/** A value html/template prints as it is (template.HTML: a partial's output, `.Content`, `safeHTML`). */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export type GoFunction = (...args: Value[]) => Value;

export interface GoOptions {
  /**
   * The template a `template` action names when no `define` of that name is known (a file of that name, relative to
   * the template `from` which it is called), or null.
   */
  load?(name: string, from: string): TemplateSource | null;
  /** The host's functions by name (`partial`, `strings.Contains`), before the language's own; null when not one. */
  functions?(name: string): GoFunction | null;
  /** A Go web service's template: a value the data does not hold is unknown (see the module comment). */
  serverRendered?: boolean;
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
  /** The pipeline's text (a server-rendered condition on an unknown value reads what it is about). */
  source: string;
  /** `$x := …` (declare) or `$x = …` (assign); `range` may declare two. */
  decl: { vars: string[]; assign: boolean } | null;
  cmds: Command[];
}

export type GoNode =
  | { t: "text"; v: string }
  | { t: "out"; pipe: Pipeline }
  | { t: "if" | "with"; pipe: Pipeline; body: GoNode[]; els: GoNode[] }
  | { t: "range"; pipe: Pipeline; body: GoNode[]; els: GoNode[] }
  | { t: "define"; name: string; body: GoNode[] }
  | { t: "block"; name: string; pipe: Pipeline | null; body: GoNode[] }
  | { t: "template"; name: string; pipe: Pipeline | null }
  | { t: "return"; pipe: Pipeline | null }
  | { t: "break" | "continue" };

/** One `{{ … }}` (its inside, trim markers removed) or a run of text between them, with the trim markers applied. */
type Piece = { kind: "text"; v: string } | { kind: "action"; v: string };

function lex(source: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  let trimNext = false;
  while (at < source.length) {
    const open = source.indexOf("{{", at);
    let text = open === -1 ? source.slice(at) : source.slice(at, open);
    if (trimNext) text = text.replace(/^\s+/, "");
    trimNext = false;
    if (open === -1) {
      if (text) pieces.push({ kind: "text", v: text });
      break;
    }
    let inner = open + 2;
    // `{{- ` trims the space before it; the dash must be followed by a space (`{{-3}}` is a number).
    if (/^-\s/.test(source.slice(inner, inner + 2))) {
      text = text.replace(/\s+$/, "");
      inner += 1;
    }
    if (text) pieces.push({ kind: "text", v: text });
    // The action runs to the first `}}` outside a string, a raw string or a comment.
    let end = inner;
    let close = -1;
    while (end < source.length) {
      const ch = source[end]!;
      if (ch === '"' || ch === "'") {
        end++;
        while (end < source.length && source[end] !== ch) end += source[end] === "\\" ? 2 : 1;
        end++;
      } else if (ch === "`") {
        end = source.indexOf("`", end + 1);
        end = end === -1 ? source.length : end + 1;
      } else if (source.startsWith("/*", end)) {
        end = source.indexOf("*/", end + 2);
        end = end === -1 ? source.length : end + 2;
      } else if (source.startsWith("}}", end)) {
        close = end;
        break;
      } else end++;
    }
    if (close === -1) {
      pieces.push({ kind: "text", v: source.slice(open) });
      break;
    }
    let body = source.slice(inner, close);
    if (/\s-$/.test(body)) {
      body = body.slice(0, -1);
      trimNext = true;
    }
    pieces.push({ kind: "action", v: body.trim() });
    at = close + 2;
  }
  return pieces;
}

type Token =
  | { k: "str"; v: string }
  | { k: "num"; v: number }
  | { k: "word"; v: string }
  | { k: "var"; v: string }
  | { k: "field"; v: string; attached: boolean }
  | { k: "punct"; v: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
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
      tokens.push({ k: "str", v: s });
      i = j + 1;
      continue;
    }
    if (c === "`") {
      const j = src.indexOf("`", i + 1);
      const end = j === -1 ? src.length : j;
      tokens.push({ k: "str", v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === "'") {
      // A character constant is its code point.
      const m = /^'(\\.|[^'])'/.exec(src.slice(i));
      if (m) {
        tokens.push({ k: "num", v: m[1]!.replace(/^\\/, "").codePointAt(0)! });
        i += m[0].length;
        continue;
      }
    }
    if (c === ":" && src[i + 1] === "=") {
      tokens.push({ k: "punct", v: ":=" });
      i += 2;
      continue;
    }
    if ("()|=,".includes(c)) {
      tokens.push({ k: "punct", v: c });
      i++;
      continue;
    }
    const num = /^[-+]?(?:0x[0-9a-fA-F_]+|[\d_]+\.?[\d_]*(?:[eE][-+]?\d+)?|\.\d+)/.exec(src.slice(i));
    if (num && (c !== "." || /\d/.test(src[i + 1] ?? "")) && /\d/.test(num[0])) {
      tokens.push({ k: "num", v: Number(num[0].replace(/_/g, "")) });
      i += num[0].length;
      continue;
    }
    if (c === "$") {
      const m = /^\$\w*/.exec(src.slice(i))!;
      tokens.push({ k: "var", v: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === ".") {
      const m = /^\.\w*/.exec(src.slice(i))!;
      // `.B` right after `$a`, `.A`, `fn` or `)` continues its chain; after a space it is an argument of its own.
      tokens.push({ k: "field", v: m[0].slice(1), attached: i > 0 && /[\w$)]/.test(src[i - 1]!) });
      i += m[0].length;
      continue;
    }
    const word = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*/.exec(src.slice(i));
    if (word) {
      tokens.push({ k: "word", v: word[0] });
      i += word[0].length;
      continue;
    }
    i++; // an unknown character is skipped
  }
  return tokens;
}

function parsePipeline(source: string): Pipeline {
  const tokens = tokenize(source);
  let pos = 0;
  const fieldsAfter = (): string[] => {
    const fields: string[] = [];
    for (let t = tokens[pos]; t?.k === "field" && t.attached && t.v !== ""; t = tokens[++pos]) fields.push(t.v);
    return fields;
  };
  const operand = (): Operand => {
    const t = tokens[pos++]!;
    switch (t.k) {
      case "str":
      case "num":
        return { k: "lit", v: t.v };
      case "var":
        return { k: "var", name: t.v, fields: fieldsAfter() };
      case "field":
        return { k: "dot", fields: [...(t.v === "" ? [] : [t.v]), ...fieldsAfter()] };
      case "word":
        if (t.v === "true" || t.v === "false") return { k: "lit", v: t.v === "true" };
        if (t.v === "nil") return { k: "lit", v: null };
        return { k: "fn", name: t.v, fields: fieldsAfter() };
      case "punct": {
        if (t.v !== "(") return { k: "lit", v: undefined };
        const inner = pipeline(true);
        if (tokens[pos]?.k === "punct" && tokens[pos]!.v === ")") pos++;
        return { k: "paren", pipe: inner, fields: fieldsAfter() };
      }
    }
  };
  const pipeline = (inParens: boolean): Pipeline => {
    let decl: Pipeline["decl"] = null;
    const start = pos;
    const vars: string[] = [];
    while (tokens[pos]?.k === "var") {
      vars.push(tokens[pos++]!.v as string);
      if (tokens[pos]?.k !== "punct" || tokens[pos]!.v !== ",") break;
      pos++;
    }
    if (vars.length > 0 && tokens[pos]?.k === "punct" && (tokens[pos]!.v === ":=" || tokens[pos]!.v === "=")) {
      decl = { vars, assign: tokens[pos]!.v === "=" };
      pos++;
    } else pos = start;
    const cmds: Command[] = [];
    let cmd: Command = [];
    while (pos < tokens.length) {
      const t = tokens[pos]!;
      if (t.k === "punct" && t.v === ")") {
        if (inParens) break;
        pos++;
      } else if (t.k === "punct" && t.v === "|") {
        cmds.push(cmd);
        cmd = [];
        pos++;
      } else cmd.push(operand());
    }
    if (cmd.length > 0) cmds.push(cmd);
    return { source, decl, cmds };
  };
  return pipeline(false);
}

const KEYWORD_RE = /^(if|with|range|else|end|define|block|template|return|break|continue)\b\s*([\s\S]*)$/;

/** The template's nodes; a stray `end` or `else` is skipped. */
function parseGo(source: string): GoNode[] {
  const pieces = lex(source);
  let pos = 0;
  // Parses until `end` (or `else`, returned to the caller so that it can read an `else if` chain).
  const list = (): { nodes: GoNode[]; stop: "end" | "else" | "eof"; elseArgs: string } => {
    const nodes: GoNode[] = [];
    while (pos < pieces.length) {
      const piece = pieces[pos++]!;
      if (piece.kind === "text") {
        nodes.push({ t: "text", v: piece.v });
        continue;
      }
      if (piece.v.startsWith("/*")) continue;
      const keyword = KEYWORD_RE.exec(piece.v);
      if (!keyword) {
        if (piece.v) nodes.push({ t: "out", pipe: parsePipeline(piece.v) });
        continue;
      }
      const [, word, args = ""] = keyword;
      switch (word) {
        case "end":
          return { nodes, stop: "end", elseArgs: "" };
        case "else":
          return { nodes, stop: "else", elseArgs: args };
        case "if":
        case "with":
        case "range":
          nodes.push(control(word, args));
          break;
        case "define":
          nodes.push({ t: "define", name: stringArg(args), body: list().nodes });
          break;
        case "block": {
          const pipe = afterName(args);
          nodes.push({ t: "block", name: stringArg(args), pipe, body: list().nodes });
          break;
        }
        case "template":
          nodes.push({ t: "template", name: stringArg(args), pipe: afterName(args) });
          break;
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
  const control = (word: "if" | "with" | "range", args: string): GoNode => {
    const pipe = parsePipeline(args);
    const body = list();
    let els: GoNode[] = [];
    if (body.stop === "else") {
      const chained = /^(if|with)\b\s*([\s\S]*)$/.exec(body.elseArgs);
      els = chained ? [control(chained[1] as "if" | "with", chained[2]!)] : list().nodes;
    }
    return { t: word, pipe, body: body.nodes, els };
  };
  const nodes: GoNode[] = [];
  for (;;) {
    const part = list();
    nodes.push(...part.nodes);
    if (part.stop === "eof") return nodes;
  }
}

function stringArg(args: string): string {
  const m = /^\s*(?:"((?:\\.|[^"\\])*)"|`([^`]*)`)/.exec(args);
  if (!m) return args.trim();
  return m[2] ?? (JSON.parse(`"${m[1]}"`) as string);
}

function afterName(args: string): Pipeline | null {
  const rest = args.replace(/^\s*("(?:\\.|[^"\\])*"|`[^`]*`)\s*/, "");
  return rest ? parsePipeline(rest) : null;
}

/** Whether a template holds nothing outside its `define`s but space (a layout that fills a base's blocks). */
export function onlyDefines(nodes: GoNode[]): boolean {
  return nodes.every((node) => node.t === "define" || (node.t === "text" && node.v.trim() === ""));
}

// ---------------------------------------------------------------------------------------------------------------
// Values

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false. */
export function goTruthy(value: Value): boolean {
  if (value instanceof SafeHtml) return value.html !== "";
  if (typeof value === "function" || value instanceof Date) return true;
  return truthy(value);
}

/** The value without its HTML mark. */
export function plain(value: Value): Value {
  return value instanceof SafeHtml ? value.html : value;
}

/** A value's text (a SafeHtml's HTML). */
export function str(value: Value): string {
  return value instanceof SafeHtml ? value.html : textOf(value);
}

/** A number from a value (0 when it is not one). */
export function num(value: Value): number {
  const n = Number(plain(value));
  return Number.isFinite(n) ? n : 0;
}

/** Go's `eq` on basic values: the same kind and value (nil equals nil). */
export function same(a: Value, b: Value): boolean {
  const x = plain(a);
  const y = plain(b);
  if (typeof x === "number" || typeof y === "number") return typeof x === typeof y && x === y;
  return x === y || (x == null && y == null);
}

/** A field of a value: a map's key (case-insensitive, as Hugo reads params), an object's method. */
export function goField(value: Value, name: string): Value {
  if (value === null || value === undefined || value instanceof SafeHtml) return undefined;
  if (Array.isArray(value)) return name === "Len" || name === "len" ? value.length : undefined;
  if (typeof value === "object") return member(value, name);
  return undefined;
}

/** Walks a field chain; a method met on the way is called (the last one with `args`, when the action gives some). */
export function resolveFields(value: Value, fields: string[], args: Value[] | null): Value {
  let current = value;
  fields.forEach((name, i) => {
    current = goField(current, name);
    if (typeof current === "function" && (i < fields.length - 1 || args === null)) current = (current as GoFunction)();
  });
  if (args !== null && typeof current === "function") return (current as GoFunction)(...args);
  return current;
}

/** How Go prints a value: strings as they are, slices as `[a b]`, nil as nothing. */
export function show(value: Value): string {
  if (value instanceof SafeHtml) return value.html;
  if (Array.isArray(value)) return `[${value.map(show).join(" ")}]`;
  if (typeof value === "function") return "";
  return textOf(value);
}

function goTypeName(value: Value): string {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float64";
  if (typeof value === "string") return "string";
  if (value instanceof SafeHtml) return "template.HTML";
  if (Array.isArray(value)) return "[]interface {}";
  if (value === null || value === undefined) return "<nil>";
  return "map[string]interface {}";
}

/** Go's fmt.Sprintf for the verbs templates use (%s %v %d %f %.Nf %e %g %q %t %x %X %T %%, widths and flags). */
function sprintf(format: string, args: Value[]): string {
  let i = 0;
  return format.replace(
    /%([-+ #0]*)(\d*)(?:\.(\d+))?([vsdqfgtxXeT%])/g,
    (_, flags: string, width: string, precision: string | undefined, verb: string) => {
      if (verb === "%") return "%";
      const value = plain(args[i++]);
      let out: string;
      switch (verb) {
        case "d":
          out = String(Math.trunc(num(value)));
          break;
        case "f":
        case "e":
        case "g":
          out =
            precision !== undefined
              ? num(value).toFixed(Number(precision))
              : verb === "f"
                ? num(value).toFixed(6)
                : String(num(value));
          break;
        case "q":
          out = JSON.stringify(str(value));
          break;
        case "x":
        case "X":
          out = typeof value === "number" ? value.toString(16) : Buffer.from(str(value)).toString("hex");
          if (verb === "X") out = out.toUpperCase();
          break;
        case "t":
          out = goTruthy(value) ? "true" : "false";
          break;
        case "T":
          out = goTypeName(value);
          break;
        default:
          out = show(value);
      }
      const w = Number(width || 0);
      if (out.length < w) out = flags.includes("-") ? out.padEnd(w) : out.padStart(w, flags.includes("0") ? "0" : " ");
      return out;
    },
  );
}

/** `range` over a slice (index, item), a map (its keys in order, as Go ranges maps) or an integer n (0 … n-1). */
function rangeEntries(value: Value): [Value, Value][] {
  const v = plain(value);
  if (Array.isArray(v)) return v.map((item, i) => [i, item]);
  if (typeof v === "number" && Number.isInteger(v) && v > 0)
    return Array.from({ length: Math.min(v, 10000) }, (_, i) => [i, i]);
  if (v && typeof v === "object" && !(v instanceof Date))
    return Object.keys(v)
      .sort()
      .map((key) => [key, (v as Record<string, Value>)[key]]);
  return [];
}

// ---------------------------------------------------------------------------------------------------------------
// Execution

class ReturnSignal {
  constructor(readonly value: Value) {}
}

/** `break`/`continue`, thrown to the loop; what the loop body printed before it still shows. */
class LoopSignal {
  output = "";
  constructor(readonly kind: "break" | "continue") {}
}

interface Vars {
  values: Map<string, Value>;
  parent: Vars | null;
}

interface Frame {
  dot: Value;
  /** `$`: the data the template was executed with. */
  root: Value;
  vars: Vars;
  /** The template's file (`template` names are looked up from it). */
  path: string;
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

const child = (frame: Frame, dot = frame.dot): Frame => ({
  ...frame,
  dot,
  vars: { values: new Map(), parent: frame.vars },
});

/** A set of templates executed together: the `define`s they make, the files they were parsed from. */
export class GoTemplates {
  private readonly defines = new Map<string, { body: GoNode[]; path: string }>();
  private readonly parsed = new Map<string, GoNode[]>();
  private depth = 0;

  constructor(private readonly options: GoOptions = {}) {}

  /**
   * A template's nodes (parsed once per file). Its `define`s join the set: replacing earlier ones of the same name
   * when `override` (the page's own template over its base), else only where the name is new.
   */
  parse(template: TemplateSource, override = false): GoNode[] {
    let nodes = this.parsed.get(template.path);
    if (!nodes) {
      nodes = parseGo(template.source);
      this.parsed.set(template.path, nodes);
    }
    for (const node of nodes) {
      if (node.t !== "define" && node.t !== "block") continue;
      // A block's body is the template of its name until a `define` gives another.
      if (!this.defines.has(node.name) || (node.t === "define" && override))
        this.defines.set(node.name, { body: node.body, path: template.path });
    }
    return nodes;
  }

  /** A template's output with the dot; a `return` ends it, printing the value. */
  render(template: TemplateSource, dot: Value, override = false): string {
    const result = this.run(template, dot, override);
    return result instanceof ReturnSignal ? show(result.value) : result;
  }

  /** A partial's result: its output as HTML, or the value it `return`s. */
  partial(template: TemplateSource, dot: Value): Value {
    const result = this.run(template, dot, false);
    return result instanceof ReturnSignal ? result.value : new SafeHtml(result);
  }

  /** A `define`d template's output, or null when no template has that name. */
  renderDefined(name: string, dot: Value): string | null {
    const defined = this.defines.get(name);
    return defined ? this.execute(defined.body, this.frame(dot, defined.path)) : null;
  }

  private run(template: TemplateSource, dot: Value, override: boolean): string | ReturnSignal {
    if (this.depth > 40) return "";
    this.depth++;
    try {
      return this.execute(this.parse(template, override), this.frame(dot, template.path));
    } catch (signal) {
      if (signal instanceof ReturnSignal) return signal;
      if (signal instanceof LoopSignal) return "";
      throw signal;
    } finally {
      this.depth--;
    }
  }

  private frame(dot: Value, path: string): Frame {
    return { dot, root: dot, vars: { values: new Map(), parent: null }, path };
  }

  private execute(nodes: GoNode[], frame: Frame): string {
    let out = "";
    try {
      for (const node of nodes) out += this.node(node, frame);
    } catch (signal) {
      if (signal instanceof LoopSignal) signal.output = out + signal.output;
      throw signal;
    }
    return out;
  }

  private node(node: GoNode, frame: Frame): string {
    switch (node.t) {
      case "text":
        return node.v;
      case "out": {
        const value = this.evalPipeline(node.pipe, frame);
        if (node.pipe.decl) return "";
        return value instanceof SafeHtml ? value.html : escapeHtml(show(value)).replace(/'/g, "&#39;");
      }
      case "if":
      case "with": {
        const scope = child(frame);
        const value = this.evalPipeline(node.pipe, scope);
        if (!this.holds(node.pipe, value)) return this.execute(node.els, scope);
        return this.execute(node.body, node.t === "with" && value !== undefined ? { ...scope, dot: value } : scope);
      }
      case "range":
        return this.range(node, frame);
      case "define":
        return "";
      case "block": {
        const dot = node.pipe ? this.evalPipeline(node.pipe, frame) : null;
        const defined = this.defines.get(node.name) ?? { body: node.body, path: frame.path };
        return this.execute(defined.body, this.frame(dot, defined.path));
      }
      case "template": {
        const dot = node.pipe ? this.evalPipeline(node.pipe, frame) : null;
        const defined = this.defines.get(node.name);
        if (defined) return this.execute(defined.body, this.frame(dot, defined.path));
        const found = this.options.load?.(node.name, frame.path) ?? null;
        return found ? this.render(found, dot) : "";
      }
      case "return":
        throw new ReturnSignal(node.pipe ? this.evalPipeline(node.pipe, frame) : undefined);
      case "break":
      case "continue":
        throw new LoopSignal(node.t);
    }
  }

  private range(node: Extract<GoNode, { t: "range" }>, frame: Frame): string {
    const scope = child(frame);
    const decl = node.pipe.decl;
    const entries = rangeEntries(this.evalPipeline({ ...node.pipe, decl: null }, scope));
    if (entries.length === 0) return this.execute(node.els, scope);
    let out = "";
    for (const [key, item] of entries) {
      const iteration = child(scope, item);
      if (decl?.vars.length === 1) iteration.vars.values.set(decl.vars[0]!, item);
      else if (decl) {
        iteration.vars.values.set(decl.vars[0]!, key);
        iteration.vars.values.set(decl.vars[1]!, item);
      }
      try {
        out += this.execute(node.body, iteration);
      } catch (signal) {
        if (!(signal instanceof LoopSignal)) throw signal;
        out += signal.output;
        if (signal.kind === "break") break;
      }
    }
    return out;
  }

  /** Whether an `if`/`with` branch is taken: the value's truth; for a server's unknown value, the rule above. */
  private holds(pipe: Pipeline, value: Value): boolean {
    if (value !== undefined || !this.options.serverRendered) return goTruthy(value);
    const negated = /^\s*not\b/.test(pipe.source);
    const about = VISITOR_STATE_RE.test(pipe.source.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/g, ""));
    return negated ? about : !about;
  }

  private evalPipeline(pipe: Pipeline, frame: Frame): Value {
    let value: Value = undefined;
    pipe.cmds.forEach((cmd, i) => {
      value = this.evalCommand(cmd, frame, i === 0 ? null : { value });
    });
    if (pipe.decl) {
      if (pipe.decl.assign) assignVar(frame.vars, pipe.decl.vars[0]!, value);
      else frame.vars.values.set(pipe.decl.vars[0]!, value);
    }
    return value;
  }

  private evalCommand(cmd: Command, frame: Frame, piped: { value: Value } | null): Value {
    if (cmd.length === 0) return piped?.value;
    const [head, ...rest] = cmd as [Operand, ...Operand[]];
    const args = rest.map((operand) => this.evalOperand(operand, frame, null));
    if (piped) args.push(piped.value);
    if (head.k === "lit") return head.v;
    return this.evalOperand(head, frame, head.k === "fn" || args.length > 0 ? args : null);
  }

  private evalOperand(operand: Operand, frame: Frame, args: Value[] | null): Value {
    switch (operand.k) {
      case "lit":
        return operand.v;
      case "dot":
        return resolveFields(frame.dot, operand.fields, args);
      case "var":
        return resolveFields(
          operand.name === "$" ? frame.root : lookupVar(frame.vars, operand.name),
          operand.fields,
          args,
        );
      case "paren":
        return resolveFields(this.evalPipeline(operand.pipe, frame), operand.fields, args);
      case "fn": {
        // `strings.Contains` is one function; `site.Params.x` is the function `site`, then fields of its result.
        const parts = operand.name.split(".");
        for (let n = parts.length; n >= 1; n--) {
          const fn = this.function(parts.slice(0, n).join("."));
          if (fn) return resolveFields(fn(...(args ?? [])), [...parts.slice(n), ...operand.fields], null);
        }
        return undefined;
      }
    }
  }

  private function(name: string): GoFunction | null {
    return this.options.functions?.(name) ?? goBuiltin(name, this.options.serverRendered === true);
  }
}

/**
 * The language's own functions. With `server` (a Go web service's data, see the module comment), `not`, `or`,
 * the comparisons and `len` of an unknown value are unknown.
 */
export function goBuiltin(name: string, server: boolean): GoFunction | null {
  const unknown = (args: Value[]) => server && args.some((arg) => arg === undefined);
  const compare = (test: (a: Value, b: Value) => boolean): GoFunction => {
    return (a, b) => (unknown([a, b]) ? undefined : test(a, b));
  };
  const ordered = (a: Value) => typeof plain(a) === "string";
  switch (name) {
    case "and":
      return (...a) => {
        for (const x of a) if (!goTruthy(x)) return x;
        return a[a.length - 1];
      };
    case "or":
      return (...a) => {
        for (const x of a) if (goTruthy(x)) return x;
        return unknown(a) ? undefined : a[a.length - 1];
      };
    case "not":
      return (a) => (unknown([a]) ? undefined : !goTruthy(a));
    case "eq":
      return (a, ...b) => (unknown([a, ...b]) ? undefined : b.some((x) => same(a, x)));
    case "ne":
      return compare((a, b) => !same(a, b));
    case "lt":
      return compare((a, b) => (ordered(a) ? str(a) < str(b) : num(a) < num(b)));
    case "le":
      return compare((a, b) => (ordered(a) ? str(a) <= str(b) : num(a) <= num(b)));
    case "gt":
      return compare((a, b) => (ordered(a) ? str(a) > str(b) : num(a) > num(b)));
    case "ge":
      return compare((a, b) => (ordered(a) ? str(a) >= str(b) : num(a) >= num(b)));
    case "len":
      return (a) => {
        const v = plain(a);
        if (typeof v === "string" || Array.isArray(v)) return v.length;
        if (v && typeof v === "object") return Object.keys(v).length;
        return server ? undefined : 0;
      };
    case "index":
      return (v, ...keys) => {
        let current = v;
        for (const key of keys.flat())
          current = Array.isArray(current) ? current[num(key)] : goField(current, str(key));
        return current;
      };
    case "slice":
      return (v, from, to) => {
        const x = plain(v);
        if (typeof x !== "string" && !Array.isArray(x)) return undefined;
        return x.slice(from === undefined ? 0 : num(from), to === undefined ? undefined : num(to));
      };
    case "print":
      return (...a) => a.map(str).join("");
    case "println":
      return (...a) => `${a.map(str).join(" ")}\n`;
    case "printf":
      return (format, ...a) => sprintf(str(format), a);
    case "html":
      return (...a) => escapeHtml(a.map(str).join(""));
    case "js":
      // template.JSEscapeString
      return (...a) =>
        a
          .map(str)
          .join("")
          .replace(/[\\'"]/g, "\\$&")
          .replace(/[<>&=]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
    case "urlquery":
      // url.QueryEscape
      return (...a) =>
        encodeURIComponent(a.map(str).join(""))
          .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
          .replace(/%20/g, "+");
    case "call":
      return (f, ...a) => (typeof f === "function" ? (f as GoFunction)(...a) : undefined);
    default:
      return null;
  }
}

/** A Go web service's template, executed with the manifest's data (`serverRendered`: missing values are unknown). */
export function renderGo(
  template: TemplateSource,
  options: { load: (name: string, from: string) => TemplateSource | null; data: Record<string, Value> },
): string {
  return new GoTemplates({ load: options.load, serverRendered: true }).render(template, options.data, true);
}
