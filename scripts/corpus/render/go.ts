/**
 * Go's text/template and html/template language (the templates of Go web services; Hugo builds on it): actions
 * `{{ pipeline }}`, `if`/`else if`/`else`, `range` (with `else` and `$i, $v :=`), `with`, `define`, `block`,
 * `template`, variables, `{{- -}}` trimming, comments (slash-star inside braces), and the language's built-in
 * functions (`and`, `or`, `not`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `len`, `index`, `slice`, `print`, `printf`, `println`, `html`, `js`,
 * `urlquery`). The data (`.`) is what the manifest's context gives; nothing of the product's code runs, so a function
 * or method the product defines yields nothing. A condition on a value the page cannot know reads the way the brace
 * dialects read it (see BraceOptions.serverRendered): true, unless it is about the visitor's own state.
 */
import type { TemplateSource } from "./brace.js";
import { escapeHtml, iterable, member, textOf, VISITOR_STATE_RE, type Value } from "./values.js";

export interface GoOptions {
  /** Finds a template by the name `template`/`block` gives when no `define` of that name is known. */
  load(name: string, from: string): TemplateSource | null;
  /** The data the template is executed with (`.` and `$`). */
  data: Record<string, Value>;
  /** Extra functions (a host such as Hugo adds its own); a function not here nor built in yields nothing. */
  functions?: Record<string, (args: Value[], context: GoContext) => Value>;
}

type Node =
  | { t: "text"; v: string }
  | { t: "action"; pipe: string }
  | { t: "template"; name: string; pipe: string | null }
  | { t: "if" | "with"; branches: { pipe: string | null; body: Node[] }[] }
  | { t: "range"; pipe: string; body: Node[]; otherwise: Node[] }
  | { t: "define"; name: string; body: Node[] }
  | { t: "block"; name: string; pipe: string | null; body: Node[] };

/** One `{{ … }}` or a run of text between them, with Go's trim markers applied. */
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
        if (end === -1) end = source.length;
        else end++;
      } else if (source.startsWith("/*", end)) {
        end = source.indexOf("*/", end + 2);
        if (end === -1) end = source.length;
        else end += 2;
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

const KEYWORD_RE = /^(if|else|end|range|with|define|block|template|break|continue)\b\s*([\s\S]*)$/;

function parse(source: string): Node[] {
  const pieces = lex(source);
  let at = 0;
  /** Parses nodes until an `end`/`else` at this level; returns them and the keyword that stopped it. */
  const list = (): { nodes: Node[]; stop: { word: string; rest: string } | null } => {
    const nodes: Node[] = [];
    while (at < pieces.length) {
      const piece = pieces[at++]!;
      if (piece.kind === "text") {
        nodes.push({ t: "text", v: piece.v });
        continue;
      }
      const action = piece.v;
      if (action.startsWith("/*")) continue;
      const keyword = KEYWORD_RE.exec(action);
      if (!keyword) {
        if (action) nodes.push({ t: "action", pipe: action });
        continue;
      }
      const [, word, rest] = keyword as unknown as [string, string, string];
      switch (word) {
        case "end":
        case "else":
          return { nodes, stop: { word, rest } };
        case "if":
        case "with": {
          const branches: { pipe: string | null; body: Node[] }[] = [];
          let pipe: string | null = rest;
          for (;;) {
            const inner = list();
            branches.push({ pipe, body: inner.nodes });
            if (!inner.stop || inner.stop.word === "end") break;
            // `else`, `else if …`, `else with …`
            const chained = /^(if|with)\b\s*([\s\S]*)$/.exec(inner.stop.rest);
            pipe = chained ? chained[2]! : null;
            if (pipe === null) {
              const last = list();
              branches.push({ pipe: null, body: last.nodes });
              break;
            }
          }
          nodes.push({ t: word, branches });
          break;
        }
        case "range": {
          const inner = list();
          let otherwise: Node[] = [];
          if (inner.stop?.word === "else") otherwise = list().nodes;
          nodes.push({ t: "range", pipe: rest, body: inner.nodes, otherwise });
          break;
        }
        case "define": {
          const inner = list();
          nodes.push({ t: "define", name: stringLiteral(rest) ?? rest, body: inner.nodes });
          break;
        }
        case "block": {
          const { name, pipe } = namedCall(rest);
          const inner = list();
          nodes.push({ t: "block", name, pipe, body: inner.nodes });
          break;
        }
        case "template": {
          const { name, pipe } = namedCall(rest);
          nodes.push({ t: "template", name, pipe });
          break;
        }
        default:
          // break / continue: rare in page templates; read as nothing.
          break;
      }
    }
    return { nodes, stop: null };
  };
  const nodes: Node[] = [];
  for (;;) {
    const part = list();
    nodes.push(...part.nodes);
    if (!part.stop) break; // a stray `end`/`else` is skipped
  }
  return nodes;
}

function stringLiteral(text: string): string | null {
  const match = /^\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)/.exec(text);
  if (!match) return null;
  return match[2] ?? JSON.parse(`"${match[1]}"`);
}

function namedCall(rest: string): { name: string; pipe: string | null } {
  const match = /^\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*([\s\S]*)$/.exec(rest);
  if (!match) return { name: rest.trim(), pipe: null };
  return { name: stringLiteral(match[1]!) ?? "", pipe: match[2]!.trim() || null };
}

// ---------------------------------------------------------------------------------------------------------------
// Pipelines

type Token =
  | { k: "str"; v: string }
  | { k: "num"; v: number }
  | { k: "field"; v: string[] } // .A.B (empty: `.`)
  | { k: "var"; v: string; path: string[] } // $x.A
  | { k: "ident"; v: string }
  | { k: "open" }
  | { k: "close" }
  | { k: "chain"; path: string[] } // `.Field` after `)` or after an identifier
  | { k: "pipe" }
  | { k: "comma" }
  | { k: "declare"; v: ":=" | "=" };

function tokenizePipe(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const fieldPath = (): string[] => {
    const path: string[] = [];
    while (source[at] === "." && /[A-Za-z_]/.test(source[at + 1] ?? "")) {
      at++;
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(at))!;
      path.push(match[0]);
      at += match[0].length;
    }
    return path;
  };
  while (at < source.length) {
    const ch = source[at]!;
    if (/\s/.test(ch)) at++;
    else if (ch === '"') {
      let end = at + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === "\\" ? 2 : 1;
      tokens.push({ k: "str", v: JSON.parse(source.slice(at, end + 1).replace(/\n/g, "\\n")) as string });
      at = end + 1;
    } else if (ch === "`") {
      const end = source.indexOf("`", at + 1);
      tokens.push({ k: "str", v: source.slice(at + 1, end === -1 ? undefined : end) });
      at = end === -1 ? source.length : end + 1;
    } else if (ch === "'") {
      const match = /^'(\\.|[^'])'/.exec(source.slice(at));
      tokens.push({ k: "num", v: match ? match[1]!.codePointAt(match[1]!.length - 1)! : 0 });
      at += match ? match[0].length : 1;
    } else if (ch === "(") {
      tokens.push({ k: "open" });
      at++;
    } else if (ch === ")") {
      at++;
      tokens.push({ k: "close" });
      const path = fieldPath();
      if (path.length > 0) tokens.push({ k: "chain", path });
    } else if (ch === "|") {
      tokens.push({ k: "pipe" });
      at++;
    } else if (ch === ",") {
      tokens.push({ k: "comma" });
      at++;
    } else if (source.startsWith(":=", at)) {
      tokens.push({ k: "declare", v: ":=" });
      at += 2;
    } else if (ch === "=") {
      tokens.push({ k: "declare", v: "=" });
      at++;
    } else if (ch === ".") {
      const path = fieldPath();
      if (path.length === 0) at++;
      tokens.push({ k: "field", v: path });
    } else if (ch === "$") {
      const match = /^\$[A-Za-z0-9_]*/.exec(source.slice(at))!;
      at += match[0].length;
      tokens.push({ k: "var", v: match[0], path: fieldPath() });
    } else if (/[-+0-9]/.test(ch)) {
      const match = /^[-+]?(?:0x[0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+(?:[eE][-+]?[0-9]+)?)/.exec(source.slice(at));
      if (!match || match[0] === "" || match[0] === "-" || match[0] === "+") {
        at++;
        continue;
      }
      tokens.push({ k: "num", v: Number(match[0].replace(/_/g, "")) });
      at += match[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(at))!;
      at += match[0].length;
      tokens.push({ k: "ident", v: match[0] });
      // a method or field of an identifier's result (`site.Params.x` in Hugo)
      const path = fieldPath();
      if (path.length > 0) tokens.push({ k: "chain", path });
    } else at++;
  }
  return tokens;
}

/** Marks a value the page cannot know (a function of the product's, a missing field). */
const UNKNOWN = undefined;

export class GoContext {
  private readonly frames: Map<string, Value>[] = [];
  readonly defines = new Map<string, Node[]>();
  private depth = 0;

  constructor(readonly options: GoOptions) {}

  render(template: TemplateSource): string {
    const nodes = parse(template.source);
    this.collectDefines(nodes, false);
    this.frames.push(new Map([["$", this.options.data]]));
    try {
      return this.nodes(nodes, this.options.data, template.path);
    } finally {
      this.frames.pop();
    }
  }

  private collectDefines(nodes: Node[], override: boolean): void {
    for (const node of nodes) {
      if (node.t === "define" && (override || !this.defines.has(node.name))) this.defines.set(node.name, node.body);
      if (node.t === "block" && !this.defines.has(node.name)) this.defines.set(node.name, node.body);
    }
  }

  private nodes(nodes: Node[], dot: Value, from: string): string {
    let out = "";
    for (const node of nodes) out += this.node(node, dot, from);
    return out;
  }

  private node(node: Node, dot: Value, from: string): string {
    switch (node.t) {
      case "text":
        return node.v;
      case "action": {
        const value = this.pipeline(node.pipe, dot);
        if (/^\$[A-Za-z0-9_]*\s*:?=/.test(node.pipe)) return "";
        return output(value);
      }
      case "if":
      case "with": {
        for (const branch of node.branches) {
          if (branch.pipe === null) return this.scoped(() => this.nodes(branch.body, dot, from));
          const value = this.pipeline(branch.pipe, dot);
          if (this.holds(branch.pipe, value)) {
            const inner = node.t === "with" && value !== UNKNOWN ? value : dot;
            return this.scoped(() => this.nodes(branch.body, inner, from));
          }
        }
        return "";
      }
      case "range": {
        const declared = /^\s*(\$[A-Za-z0-9_]*)\s*(?:,\s*(\$[A-Za-z0-9_]*)\s*)?:=\s*([\s\S]*)$/.exec(node.pipe);
        const value = this.pipeline(declared ? declared[3]! : node.pipe, dot);
        const pairs = rangePairs(value);
        if (pairs.length === 0) return this.scoped(() => this.nodes(node.otherwise, dot, from));
        let out = "";
        for (const [key, item] of pairs) {
          out += this.scoped(() => {
            if (declared) {
              if (declared[2]) {
                this.declare(declared[1]!, key);
                this.declare(declared[2], item);
              } else this.declare(declared[1]!, item);
            }
            return this.nodes(node.body, item, from);
          });
        }
        return out;
      }
      case "define":
        return "";
      case "block":
      case "template": {
        const data = node.pipe === null ? null : this.pipeline(node.pipe, dot);
        return this.include(node.name, data, from, node.t === "block" ? node.body : null);
      }
    }
  }

  private include(name: string, data: Value, from: string, fallback: Node[] | null): string {
    if (this.depth > 30) return "";
    let body = this.defines.get(name) ?? null;
    let path = from;
    if (body === null) {
      const found = this.options.load(name, from);
      if (found) {
        const nodes = parse(found.source);
        this.collectDefines(nodes, false);
        body = nodes;
        path = found.path;
      } else body = fallback;
    }
    if (body === null) return "";
    this.depth++;
    this.frames.push(new Map([["$", data]]));
    try {
      return this.nodes(body, data, path);
    } finally {
      this.frames.pop();
      this.depth--;
    }
  }

  private scoped(run: () => string): string {
    const top = this.frames[this.frames.length - 1]!;
    this.frames.push(new Map(top));
    try {
      return run();
    } finally {
      const inner = this.frames.pop()!;
      // assignments (`$x = …`) to variables of an outer scope persist, as in Go
      for (const [name, value] of inner) if (top.has(name) && name !== "$") top.set(name, value);
    }
  }

  private declare(name: string, value: Value): void {
    this.frames[this.frames.length - 1]!.set(name, value);
  }

  private variable(name: string): Value {
    return this.frames[this.frames.length - 1]?.get(name);
  }

  /** Whether an `if`/`with` branch is taken: the value's truth, or for an unknown value the server-rendered rule. */
  holds(pipe: string, value: Value): boolean {
    if (value !== UNKNOWN) return goTruthy(value);
    const negated = /^\s*not\b/.test(pipe);
    const about = VISITOR_STATE_RE.test(pipe.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/g, ""));
    return negated ? about : !about;
  }

  pipeline(source: string, dot: Value): Value {
    const tokens = tokenizePipe(source);
    let start = 0;
    let target: { name: string; declare: boolean } | null = null;
    if (tokens[0]?.k === "var" && tokens[1]?.k === "declare") {
      target = { name: tokens[0].v, declare: tokens[1].v === ":=" };
      start = 2;
    }
    const value = this.evalPipe(tokens.slice(start), dot);
    if (target) {
      if (target.declare) this.declare(target.name, value);
      else {
        for (let i = this.frames.length - 1; i >= 0; i--) {
          if (this.frames[i]!.has(target.name)) {
            this.frames[i]!.set(target.name, value);
            break;
          }
        }
      }
    }
    return value;
  }

  private evalPipe(tokens: Token[], dot: Value): Value {
    // split into commands at top-level `|`
    const commands: Token[][] = [[]];
    let level = 0;
    for (const token of tokens) {
      if (token.k === "open") level++;
      if (token.k === "close") level--;
      if (token.k === "pipe" && level === 0) commands.push([]);
      else commands[commands.length - 1]!.push(token);
    }
    let value: Value = UNKNOWN;
    let first = true;
    for (const command of commands) {
      value = this.evalCommand(command, dot, first ? null : { value });
      first = false;
    }
    return value;
  }

  private evalCommand(tokens: Token[], dot: Value, piped: { value: Value } | null): Value {
    // group operands: a parenthesised pipeline is one operand
    const operands: Token[][] = [];
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.k === "open") {
        let level = 1;
        let j = i + 1;
        for (; j < tokens.length; j++) {
          if (tokens[j]!.k === "open") level++;
          if (tokens[j]!.k === "close" && --level === 0) break;
        }
        operands.push(tokens.slice(i, j + 1));
        i = j;
      } else if (token.k === "chain" && operands.length > 0) {
        operands[operands.length - 1]!.push(token);
      } else operands.push([token]);
    }
    if (operands.length === 0) return piped ? piped.value : UNKNOWN;
    const head = operands[0]!;
    if (head.length === 1 && head[0]!.k === "ident" && !["true", "false", "nil"].includes(head[0]!.v)) {
      const args = operands.slice(1).map((operand) => this.operand(operand, dot));
      if (piped) args.push(piped.value);
      return this.call(head[0]!.v, args);
    }
    if (operands.length > 1 || piped) {
      // a method call with arguments (`.T "key"`) or a field piped into: the product's code, unknown
      return UNKNOWN;
    }
    return this.operand(head, dot);
  }

  private operand(tokens: Token[], dot: Value): Value {
    const first = tokens[0]!;
    let value: Value;
    let rest = tokens.slice(1);
    switch (first.k) {
      case "str":
        value = first.v;
        break;
      case "num":
        value = first.v;
        break;
      case "field":
        value = walk(dot, first.v);
        break;
      case "var":
        value = walk(first.v === "$" ? this.variable("$") : this.variable(first.v), first.path);
        break;
      case "ident":
        value =
          first.v === "true" ? true : first.v === "false" ? false : first.v === "nil" ? null : this.call(first.v, []);
        break;
      case "open": {
        let level = 1;
        let j = 1;
        for (; j < tokens.length; j++) {
          if (tokens[j]!.k === "open") level++;
          if (tokens[j]!.k === "close" && --level === 0) break;
        }
        value = this.evalPipe(tokens.slice(1, j), dot);
        rest = tokens.slice(j + 1);
        break;
      }
      default:
        value = UNKNOWN;
    }
    for (const token of rest) if (token.k === "chain") value = walk(value, token.path);
    return value;
  }

  private call(name: string, args: Value[]): Value {
    const extra = this.options.functions?.[name];
    if (extra) return extra(args, this);
    const known = args.every((arg) => arg !== UNKNOWN);
    switch (name) {
      case "and": {
        let last: Value = true;
        for (const arg of args) {
          if (arg === UNKNOWN) return UNKNOWN;
          last = arg;
          if (!goTruthy(arg)) return arg;
        }
        return last;
      }
      case "or": {
        let last: Value = false;
        let unknown = false;
        for (const arg of args) {
          if (arg === UNKNOWN) {
            unknown = true;
            continue;
          }
          last = arg;
          if (goTruthy(arg)) return arg;
        }
        return unknown ? UNKNOWN : last;
      }
      case "not":
        return args[0] === UNKNOWN ? UNKNOWN : !goTruthy(args[0]);
      case "eq":
        if (!known) return UNKNOWN;
        return args.slice(1).some((arg) => same(args[0], arg));
      case "ne":
        return known ? !same(args[0], args[1]) : UNKNOWN;
      case "lt":
      case "le":
      case "gt":
      case "ge": {
        if (!known) return UNKNOWN;
        const [a, b] = args as [number | string, number | string];
        return name === "lt" ? a < b : name === "le" ? a <= b : name === "gt" ? a > b : a >= b;
      }
      case "len": {
        const value = args[0];
        if (typeof value === "string" || Array.isArray(value)) return value.length;
        if (value && typeof value === "object") return Object.keys(value).length;
        return UNKNOWN;
      }
      case "index": {
        let value = args[0];
        for (const key of args.slice(1)) value = member(value, key as string | number);
        return value;
      }
      case "slice": {
        const [value, from, to] = args as [Value, number | undefined, number | undefined];
        if (typeof value === "string" || Array.isArray(value)) return value.slice(from ?? 0, to);
        return UNKNOWN;
      }
      case "print":
        return args.map(textOf).join("");
      case "println":
        return `${args.map(textOf).join(" ")}\n`;
      case "printf":
        return sprintf(textOf(args[0]), args.slice(1));
      case "html":
        return escapeHtml(args.map(textOf).join(""));
      case "js":
        return args
          .map(textOf)
          .join("")
          .replace(/[\\'"<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      case "urlquery":
        return encodeURIComponent(args.map(textOf).join(""));
      default:
        return UNKNOWN;
    }
  }
}

function walk(value: Value, path: string[]): Value {
  let current = value;
  for (const key of path) {
    if (current === UNKNOWN) return UNKNOWN;
    if (current === null) return UNKNOWN;
    current = member(current, key);
    if (typeof current === "function") current = UNKNOWN;
  }
  return current;
}

function same(a: Value, b: Value): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  return textOf(a) === textOf(b) && typeof a === typeof b;
}

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false. */
export function goTruthy(value: Value): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}

function rangePairs(value: Value): [Value, Value][] {
  if (Array.isArray(value)) return value.map((item, i) => [i, item]);
  if (value && typeof value === "object") {
    return Object.keys(value as object)
      .sort()
      .map((key) => [key, (value as Record<string, Value>)[key]]);
  }
  const list = iterable(value);
  return list ? list.map((item, i) => [i, item]) : [];
}

/** html/template escapes what an action prints (the page's own markup is in the template's text). */
function output(value: Value): string {
  if (value === UNKNOWN || value === null) return "";
  return escapeHtml(textOf(value));
}

function sprintf(format: string, args: Value[]): string {
  let n = 0;
  return format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([vsdqfgtx%])/g, (_, flags: string, verb: string) => {
    if (verb === "%") return "%";
    const arg = args[n++];
    if (verb === "d") return String(Math.trunc(Number(arg)));
    if (verb === "f") {
      const precision = /\.(\d+)/.exec(flags);
      return Number(arg).toFixed(precision ? Number(precision[1]) : 6);
    }
    if (verb === "q") return JSON.stringify(textOf(arg));
    return textOf(arg);
  });
}

export function renderGo(template: TemplateSource, options: GoOptions): string {
  return new GoContext(options).render(template);
}
