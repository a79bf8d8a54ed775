/**
 * Go templates (text/template and html/template, as Hugo uses them): `{{ pipeline }}` actions with `{{-`/`-}}`
 * trimming, variables (`$x := …`, `$x = …`), `if`/`else if`/`with`/`range` (with `else`, `break`, `continue`),
 * `define`/`template`/`block`, pipelines with `|`, parenthesised pipelines, field chains on the dot and on variables,
 * and the functions Hugo templates commonly call. Values come from the repository (front matter, data files, site
 * configuration) and from the caller (a Hugo page or shortcode context); a function this interpreter does not know
 * returns nothing, never an error, and nothing of the product's code runs.
 */
import { markdownToHtml, member, textOf, type Value } from "./values.js";

export interface GoTemplateSource {
  path: string;
  source: string;
}

export interface GoOptions {
  /** A partial by the name a template gives (`partials/card.html`, `card`), or null. */
  loadPartial?(name: string): GoTemplateSource | null;
  /** Functions besides the built-in ones (a dialect's own, or values the manifest supplies). */
  funcs?: Record<string, (...args: Value[]) => Value>;
  /** Named templates (`define`) visible to `template` (shared between a layout and its base). */
  defines?: Map<string, Node[]>;
}

// ---------------------------------------------------------------------------------------------------------------
// Lexing and parsing

export type Node =
  | { t: "text"; v: string }
  | { t: "action"; pipe: Pipeline }
  | { t: "if" | "with"; branches: { pipe: Pipeline | null; body: Node[]; kind: "if" | "with" }[] }
  | { t: "range"; pipe: Pipeline; body: Node[]; otherwise: Node[] }
  | { t: "template"; name: string; pipe: Pipeline | null }
  | { t: "block"; name: string; pipe: Pipeline | null; body: Node[] }
  | { t: "break" | "continue" }
  | { t: "return"; pipe: Pipeline | null };

interface Pipeline {
  /** `$x := …` (declare) or `$x = …` (assign); range may declare two. */
  decl: string[];
  assign: boolean;
  cmds: Operand[][];
}

type Operand =
  | { k: "lit"; v: Value }
  | { k: "field"; base: "dot" | string; path: string[] } // base: "dot", or a variable name ("$", "$x")
  | { k: "ident"; name: string; path: string[] } // a function name (possibly dotted: strings.Contains)
  | { k: "paren"; pipe: Pipeline; path: string[] };

const ACTION_RE = /\{\{(-?)(\s*)(\/\*[\s\S]*?\*\/|(?:"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'|[^}"`']|\}(?!\}))*?)(\s*)(-?)\}\}/g;

interface RawToken {
  kind: "text" | "action";
  v: string;
}

function lex(source: string): RawToken[] {
  const tokens: RawToken[] = [];
  let at = 0;
  let trimNext = false;
  ACTION_RE.lastIndex = 0;
  for (let m = ACTION_RE.exec(source); m; m = ACTION_RE.exec(source)) {
    let text = source.slice(at, m.index);
    if (trimNext) text = text.replace(/^\s+/, "");
    // `{{- ` trims only when the dash is followed by a space (Go's rule); `{{-3}}` is a number.
    const trimLeft = m[1] === "-" && (m[2]!.length > 0 || m[3]!.startsWith("/*"));
    const trimRight = m[5] === "-" && (m[4]!.length > 0 || m[3]!.endsWith("*/"));
    if (trimLeft) text = text.replace(/\s+$/, "");
    if (text) tokens.push({ kind: "text", v: text });
    trimNext = trimRight;
    at = ACTION_RE.lastIndex;
    const body = (m[1] === "-" && !trimLeft ? "-" : "") + m[3]! + (m[5] === "-" && !trimRight ? "-" : "");
    if (/^\/\*[\s\S]*\*\/$/.test(body.trim())) continue; // a comment
    tokens.push({ kind: "action", v: body.trim() });
  }
  let rest = source.slice(at);
  if (trimNext) rest = rest.replace(/^\s+/, "");
  if (rest) tokens.push({ kind: "text", v: rest });
  return tokens;
}

type ExprToken = { k: "str" | "num" | "bool" | "nil" | "var" | "field" | "ident" | "op"; v: string };

const EXPR_RE =
  /\s*(?:("(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)+')|(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|-?0x[0-9a-f]+)|(\$[\w]*(?:\.[\w]+)*)|((?:\.[\w]+)+|\.)|([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)|(:=|=|\||\(|\)|,))/iy;

function tokenizeExpr(source: string): ExprToken[] {
  const out: ExprToken[] = [];
  let at = 0;
  while (at < source.length) {
    EXPR_RE.lastIndex = at;
    const m = EXPR_RE.exec(source);
    if (!m || m[0].length === 0) {
      if (/^\s*$/.test(source.slice(at))) break;
      at++;
      continue;
    }
    at = EXPR_RE.lastIndex;
    if (m[1] !== undefined) {
      const s = m[1];
      let v: string;
      if (s.startsWith("`")) v = s.slice(1, -1);
      else if (s.startsWith("'")) v = s.slice(1, -1); // a rune: kept as its text
      else {
        try {
          v = JSON.parse(s.replace(/\\'/g, "'")) as string;
        } catch {
          v = s.slice(1, -1);
        }
      }
      out.push({ k: "str", v });
    } else if (m[2] !== undefined) out.push({ k: "num", v: m[2] });
    else if (m[3] !== undefined) out.push({ k: "var", v: m[3] });
    else if (m[4] !== undefined) {
      // A field chain right after `)` continues it: `(index . 0).Name`.
      out.push({ k: "field", v: m[4] });
    } else if (m[5] !== undefined) {
      const w = m[5];
      if (w === "true" || w === "false") out.push({ k: "bool", v: w });
      else if (w === "nil") out.push({ k: "nil", v: w });
      else out.push({ k: "ident", v: w });
    } else if (m[6] !== undefined) out.push({ k: "op", v: m[6] });
  }
  return out;
}

function parsePipeline(source: string): Pipeline {
  const tokens = tokenizeExpr(source);
  let i = 0;
  const pipe = readPipeline();
  return pipe;

  function readPipeline(): Pipeline {
    const decl: string[] = [];
    let assign = false;
    // `$a := …`, `$a, $b := …`, `$a = …`
    let j = i;
    const names: string[] = [];
    while (tokens[j]?.k === "var") {
      names.push(tokens[j]!.v);
      if (tokens[j + 1]?.k === "op" && tokens[j + 1]!.v === ",") j += 2;
      else {
        j++;
        break;
      }
    }
    if (names.length > 0 && tokens[j]?.k === "op" && (tokens[j]!.v === ":=" || tokens[j]!.v === "=")) {
      decl.push(...names);
      assign = tokens[j]!.v === "=";
      i = j + 1;
    }
    const cmds: Operand[][] = [];
    let cmd: Operand[] = [];
    while (i < tokens.length) {
      const tok = tokens[i]!;
      if (tok.k === "op" && tok.v === ")") break;
      if (tok.k === "op" && tok.v === "|") {
        i++;
        cmds.push(cmd);
        cmd = [];
        continue;
      }
      const operand = readOperand();
      if (operand) cmd.push(operand);
    }
    cmds.push(cmd);
    return { decl, assign, cmds: cmds.filter((c) => c.length > 0) };
  }

  function readOperand(): Operand | null {
    const tok = tokens[i++]!;
    let operand: Operand | null = null;
    switch (tok.k) {
      case "str":
        operand = { k: "lit", v: tok.v };
        break;
      case "num":
        operand = { k: "lit", v: Number(tok.v) };
        break;
      case "bool":
        operand = { k: "lit", v: tok.v === "true" };
        break;
      case "nil":
        operand = { k: "lit", v: null };
        break;
      case "var": {
        const [name, ...path] = tok.v.split(".");
        operand = { k: "field", base: name!, path };
        break;
      }
      case "field":
        operand = { k: "field", base: "dot", path: tok.v === "." ? [] : tok.v.slice(1).split(".") };
        break;
      case "ident": {
        operand = { k: "ident", name: tok.v, path: [] };
        break;
      }
      case "op":
        if (tok.v === "(") {
          const inner = readPipeline();
          if (tokens[i]?.k === "op" && tokens[i]!.v === ")") i++;
          operand = { k: "paren", pipe: inner, path: [] };
        }
        break;
    }
    // A field chain directly after a parenthesised pipeline: `(index $x 0).Title`.
    if (operand && operand.k === "paren" && tokens[i]?.k === "field" && tokens[i]!.v !== ".") {
      operand.path = tokens[i]!.v.slice(1).split(".");
      i++;
    }
    return operand;
  }
}

/** Nests the token stream into if/with/range/define/block nodes; collects `define`s. */
function parse(source: string, defines: Map<string, Node[]>): Node[] {
  const tokens = lex(source);
  let i = 0;
  const nodes = parseList(new Set());
  return nodes;

  function parseList(stops: Set<string>): Node[] {
    const out: Node[] = [];
    while (i < tokens.length) {
      const tok = tokens[i]!;
      if (tok.kind === "text") {
        out.push({ t: "text", v: tok.v });
        i++;
        continue;
      }
      const word = /^(\w+)/.exec(tok.v)?.[1] ?? "";
      if (stops.has(word)) return out;
      i++;
      const rest = tok.v.slice(word.length).trim();
      switch (word) {
        case "if":
        case "with": {
          const branches: { pipe: Pipeline | null; body: Node[]; kind: "if" | "with" }[] = [];
          let kind: "if" | "with" = word;
          let pipe: Pipeline | null = parsePipeline(rest);
          for (;;) {
            const body = parseList(new Set(["else", "end"]));
            branches.push({ pipe, body, kind });
            const closing = tokens[i];
            i++;
            if (!closing || /^end\b/.test(closing.v)) break;
            const elseRest = closing.v.replace(/^else\s*/, "");
            if (/^if\b/.test(elseRest)) {
              kind = "if";
              pipe = parsePipeline(elseRest.slice(2));
            } else if (/^with\b/.test(elseRest)) {
              kind = "with";
              pipe = parsePipeline(elseRest.slice(4));
            } else {
              kind = "if";
              pipe = null;
            }
          }
          out.push({ t: word, branches });
          break;
        }
        case "range": {
          const pipe = parsePipeline(rest);
          const body = parseList(new Set(["else", "end"]));
          let otherwise: Node[] = [];
          if (tokens[i] && /^else\b/.test(tokens[i]!.v)) {
            i++;
            otherwise = parseList(new Set(["end"]));
          }
          i++; // end
          out.push({ t: "range", pipe, body, otherwise });
          break;
        }
        case "define": {
          const name = parseName(rest);
          const body = parseList(new Set(["end"]));
          i++;
          defines.set(name, body);
          break;
        }
        case "block": {
          const name = parseName(rest);
          const pipeSource = rest.replace(/^("(?:[^"\\]|\\.)*"|`[^`]*`)\s*/, "");
          const body = parseList(new Set(["end"]));
          i++;
          if (!defines.has(name)) defines.set(name, body);
          out.push({ t: "block", name, pipe: pipeSource ? parsePipeline(pipeSource) : null, body });
          break;
        }
        case "template": {
          const name = parseName(rest);
          const pipeSource = rest.replace(/^("(?:[^"\\]|\\.)*"|`[^`]*`)\s*/, "");
          out.push({ t: "template", name, pipe: pipeSource ? parsePipeline(pipeSource) : null });
          break;
        }
        case "break":
        case "continue":
          out.push({ t: word });
          break;
        case "return":
          out.push({ t: "return", pipe: rest ? parsePipeline(rest) : null });
          break;
        case "end":
        case "else":
          // A stray closer: ignored.
          break;
        default:
          out.push({ t: "action", pipe: parsePipeline(tok.v) });
      }
    }
    return out;
  }
}

function parseName(rest: string): string {
  const m = /^("(?:[^"\\]|\\.)*"|`[^`]*`)/.exec(rest);
  if (!m) return rest.trim();
  return m[1]!.startsWith("`") ? m[1]!.slice(1, -1) : (JSON.parse(m[1]!) as string);
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

class Signal {
  constructor(
    readonly kind: "break" | "continue" | "return",
    readonly value?: Value,
  ) {}
}

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false. */
export function goTruthy(value: Value): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0 || isObjectWithMethods(value);
  return true;
}

function isObjectWithMethods(value: object): boolean {
  // Page, Site and shortcode objects with getters only are still "something".
  return Object.getPrototypeOf(value) !== Object.prototype;
}

/** Looks a key up the way Go templates do: maps by key, structs and methods by name (Hugo: case-insensitive). */
export function goField(value: Value, key: string): Value {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Map) return value.get(key);
  if (typeof value === "object") {
    const own = (value as Record<string, Value>)[key];
    if (own !== undefined) return own;
  }
  return member(value, key);
}

interface Scope {
  dot: Value;
  vars: Map<string, Value>[];
}

export class GoRenderer {
  private readonly defines: Map<string, Node[]>;
  private depth = 0;

  constructor(private readonly options: GoOptions = {}) {
    this.defines = options.defines ?? new Map();
  }

  /** Parses a template, registering its `define`s; returns its top-level nodes. */
  compile(template: GoTemplateSource): Node[] {
    return parse(template.source, this.defines);
  }

  /** Renders a template with the dot; `defines` seen in earlier templates stay visible. */
  render(template: GoTemplateSource, dot: Value): string {
    return this.renderNodes(this.compile(template), { dot, vars: [new Map([["$", dot]])] });
  }

  /** Renders a named template (`define`), or null when none has that name. */
  renderDefined(name: string, dot: Value): string | null {
    const body = this.defines.get(name);
    if (!body) return null;
    return this.renderNodes(body, { dot, vars: [new Map([["$", dot]])] });
  }

  /** Whether a compiled template has nothing outside its `define`s but whitespace (a layout that fills a base). */
  static onlyDefines(nodes: Node[]): boolean {
    return nodes.every((node) => node.t === "text" && node.v.trim() === "");
  }

  hasDefine(name: string): boolean {
    return this.defines.has(name);
  }

  /** A partial's output; a partial that `return`s a value gives that value. */
  partial(name: string, dot: Value): Value {
    const found = this.options.loadPartial?.(name) ?? null;
    if (!found || ++this.depth > 40) {
      if (found) this.depth--;
      return "";
    }
    try {
      const nodes = parse(found.source, this.defines);
      try {
        return this.renderNodes(nodes, { dot, vars: [new Map([["$", dot]])] });
      } catch (signal) {
        if (signal instanceof Signal && signal.kind === "return") return signal.value;
        throw signal;
      }
    } finally {
      this.depth--;
    }
  }

  private renderNodes(nodes: Node[], scope: Scope): string {
    let out = "";
    for (const node of nodes) out += this.renderNode(node, scope);
    return out;
  }

  private renderNode(node: Node, scope: Scope): string {
    switch (node.t) {
      case "text":
        return node.v;
      case "action": {
        const value = this.evalPipeline(node.pipe, scope);
        return node.pipe.decl.length > 0 ? "" : show(value);
      }
      case "if":
      case "with":
        for (const branch of node.branches) {
          if (branch.pipe === null) return this.inner(branch.body, scope, scope.dot);
          const value = this.evalPipeline(branch.pipe, scope);
          if (goTruthy(value)) return this.inner(branch.body, scope, branch.kind === "with" ? value : scope.dot);
        }
        return "";
      case "range":
        return this.renderRange(node, scope);
      case "template": {
        const body = this.defines.get(node.name);
        if (!body) return "";
        const dot = node.pipe ? this.evalPipeline(node.pipe, scope) : undefined;
        return this.renderNodes(body, { dot, vars: [new Map([["$", dot]])] });
      }
      case "block": {
        const body = this.defines.get(node.name) ?? node.body;
        const dot = node.pipe ? this.evalPipeline(node.pipe, scope) : scope.dot;
        return this.renderNodes(body, { dot, vars: [new Map([["$", dot]])] });
      }
      case "break":
      case "continue":
        throw new Signal(node.t);
      case "return":
        throw new Signal("return", node.pipe ? this.evalPipeline(node.pipe, scope) : undefined);
    }
  }

  private inner(body: Node[], scope: Scope, dot: Value): string {
    const child: Scope = { dot, vars: [...scope.vars, new Map()] };
    return this.renderNodes(body, child);
  }

  private renderRange(node: Extract<Node, { t: "range" }>, scope: Scope): string {
    const value = this.evalPipeline({ ...node.pipe, decl: [] }, scope);
    const entries = rangeEntries(value);
    if (entries.length === 0) return this.inner(node.otherwise, scope, scope.dot);
    let out = "";
    for (const [key, item] of entries) {
      const frame = new Map<string, Value>();
      const decl = node.pipe.decl;
      if (decl.length === 1) frame.set(decl[0]!, item);
      else if (decl.length >= 2) {
        frame.set(decl[0]!, key);
        frame.set(decl[1]!, item);
      }
      try {
        out += this.renderNodes(node.body, { dot: item, vars: [...scope.vars, frame] });
      } catch (signal) {
        if (signal instanceof Signal && signal.kind === "break") break;
        if (signal instanceof Signal && signal.kind === "continue") continue;
        throw signal;
      }
    }
    return out;
  }

  private lookupVar(name: string, scope: Scope): Value {
    for (let k = scope.vars.length - 1; k >= 0; k--) if (scope.vars[k]!.has(name)) return scope.vars[k]!.get(name);
    return undefined;
  }

  private setVar(name: string, value: Value, scope: Scope, assign: boolean): void {
    if (assign) {
      for (let k = scope.vars.length - 1; k >= 0; k--) {
        if (scope.vars[k]!.has(name)) {
          scope.vars[k]!.set(name, value);
          return;
        }
      }
    }
    scope.vars[scope.vars.length - 1]!.set(name, value);
  }

  evalPipeline(pipe: Pipeline, scope: Scope): Value {
    let value: Value = undefined;
    pipe.cmds.forEach((cmd, k) => {
      value = this.evalCommand(cmd, scope, k === 0 ? null : { value });
    });
    if (pipe.decl.length > 0) this.setVar(pipe.decl[pipe.decl.length - 1]!, value, scope, pipe.assign);
    return value;
  }

  private evalCommand(cmd: Operand[], scope: Scope, piped: { value: Value } | null): Value {
    const [head, ...rest] = cmd;
    if (!head) return piped?.value;
    const args = () => {
      const values = rest.map((operand) => this.evalOperand(operand, scope));
      if (piped) values.push(piped.value);
      return values;
    };
    if (head.k === "ident") return this.call(head.name, args(), scope);
    if (head.k === "field") {
      // A method call: the chain's last step is a function, called with the arguments.
      const base = head.base === "dot" ? scope.dot : this.lookupVar(head.base, scope);
      let value = base;
      let holder: Value = undefined;
      for (const key of head.path) {
        holder = value;
        value = goField(callIfNiladic(value), key);
      }
      if (typeof value === "function") return (value as (...a: Value[]) => Value).apply(holder, args());
      return value;
    }
    const value = this.evalOperand(head, scope);
    if (typeof value === "function" && (rest.length > 0 || piped)) return (value as (...a: Value[]) => Value)(...args());
    return value;
  }

  private evalOperand(operand: Operand, scope: Scope): Value {
    switch (operand.k) {
      case "lit":
        return operand.v;
      case "field": {
        let value = operand.base === "dot" ? scope.dot : this.lookupVar(operand.base, scope);
        for (const key of operand.path) value = goField(callIfNiladic(value), key);
        return callIfNiladic(value);
      }
      case "ident":
        return this.call(operand.name, [], scope);
      case "paren": {
        let value = this.evalPipeline(operand.pipe, { dot: scope.dot, vars: [...scope.vars, new Map()] });
        for (const key of operand.path) value = goField(callIfNiladic(value), key);
        return callIfNiladic(value);
      }
    }
  }

  private call(name: string, args: Value[], scope: Scope): Value {
    const own = this.options.funcs?.[name];
    if (own) return own(...args);
    const builtin = FUNCS[name] ?? FUNCS[name.replace(/^\w+\./, "")];
    if (builtin) return builtin(args, this, scope.dot);
    return undefined;
  }
}

function callIfNiladic(value: Value): Value {
  return typeof value === "function" && (value as (...a: Value[]) => Value).length === 0
    ? (value as () => Value)()
    : value;
}

/** What an action prints: Go's fmt of the value (nothing for nil). */
export function show(value: Value): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(show).join(" ")}]`;
  if (value instanceof Map) return `map[${[...value.entries()].map(([k, v]) => `${k}:${show(v)}`).join(" ")}]`;
  if (typeof value === "object") {
    const text = (value as { toString?: () => string }).toString?.();
    return text && text !== "[object Object]" ? text : "";
  }
  return textOf(value);
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(n);
}

/** `range` over a slice (index, item), a map or object (sorted keys, as Go ranges maps), or an integer. */
function rangeEntries(value: Value): [Value, Value][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map((item, k) => [k, item]);
  if (value instanceof Map) return [...value.entries()].sort((a, b) => compareKeys(a[0], b[0]));
  if (typeof value === "number" && Number.isInteger(value) && value > 0 && value < 10000)
    return Array.from({ length: value }, (_, k) => [k, k]);
  if (typeof value === "object") {
    return Object.keys(value as object)
      .sort(compareKeys)
      .map((key) => [key, (value as Record<string, Value>)[key]]);
  }
  return [];
}

function compareKeys(a: Value, b: Value): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = textOf(a);
  const y = textOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Functions (Go's built-ins and Hugo's)

type Func = (args: Value[], renderer: GoRenderer, dot: Value) => Value;

function num(value: Value): number {
  if (typeof value === "number") return value;
  const n = Number(textOf(value));
  return Number.isFinite(n) ? n : 0;
}

function equal(a: Value, b: Value): boolean {
  if (typeof a === "number" || typeof b === "number") return num(a) === num(b) && typeof a === typeof b;
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  return a === b || (typeof a === "string" && typeof b === "string" && a === b);
}

function length(value: Value): number {
  if (typeof value === "string" || Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value && typeof value === "object") return Object.keys(value).length;
  return 0;
}

function collection(value: Value): Value[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Map) return [...value.values()];
  if (value && typeof value === "object") return rangeEntries(value).map(([, v]) => v);
  return [];
}

function goTypeName(value: Value): string {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float64";
  if (typeof value === "string") return "string";
  if (Array.isArray(value)) return "[]interface {}";
  if (value === null || value === undefined) return "<nil>";
  return "map[string]interface {}";
}

/** Go's fmt.Sprintf for the verbs templates use (%s %v %d %f %.Nf %q %T %%). */
export function sprintf(format: string, args: Value[]): string {
  let k = 0;
  return format.replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([svdfqTxXegt%])/g, (_, flags: string, width, precision, verb) => {
    if (verb === "%") return "%";
    const value = args[k++];
    let text: string;
    switch (verb) {
      case "d":
        text = String(Math.trunc(num(value)));
        break;
      case "f":
      case "e":
      case "g":
        text = precision !== undefined ? num(value).toFixed(Number(precision)) : num(value).toFixed(6);
        if (verb === "g") text = String(num(value));
        break;
      case "q":
        text = JSON.stringify(show(value));
        break;
      case "T":
        text = goTypeName(value);
        break;
      case "x":
      case "X":
        text = typeof value === "number" ? value.toString(16) : Buffer.from(show(value)).toString("hex");
        if (verb === "X") text = text.toUpperCase();
        break;
      case "t":
        text = value ? "true" : "false";
        break;
      default:
        text = show(value);
    }
    if (width !== undefined && text.length < Number(width)) {
      const pad = (flags.includes("0") && verb !== "s" ? "0" : " ").repeat(Number(width) - text.length);
      text = flags.includes("-") ? text + pad : pad + text;
    }
    return text;
  });
}

/** Hugo's markdownify: Markdown to HTML, without the paragraph around a single paragraph. */
export function markdownify(text: string): string {
  const html = markdownToHtml(text).trim();
  const single = /^<p>([\s\S]*?)<\/p>$/.exec(html);
  return single && !single[1]!.includes("<p>") ? single[1]! : html;
}

function anchorize(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}_\- ]+/gu, "")
    .replace(/ /g, "-");
}

function urlize(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

function dict(args: Value[]): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (let k = 0; k + 1 < args.length; k += 2) out[textOf(args[k])] = args[k + 1];
  return out;
}

function merge(args: Value[]): Value {
  const out: Record<string, Value> = {};
  for (const arg of args) if (arg && typeof arg === "object" && !Array.isArray(arg)) Object.assign(out, arg);
  return out;
}

function whereFilter(args: Value[]): Value {
  const [coll, key, ...rest] = args;
  const items = collection(coll);
  const op = rest.length >= 2 ? textOf(rest[0]) : "==";
  const wanted = rest.length >= 2 ? rest[1] : rest[0];
  const path = textOf(key).replace(/^\./, "").split(".");
  const get = (item: Value) => path.reduce<Value>((v, p) => goField(callIfNiladic(v), p), item);
  return items.filter((item) => {
    const v = get(item);
    switch (op) {
      case "=":
      case "==":
      case "eq":
        return equal(v, wanted) || textOf(v) === textOf(wanted);
      case "!=":
      case "<>":
      case "ne":
        return !(equal(v, wanted) || textOf(v) === textOf(wanted));
      case ">":
      case "gt":
        return num(v) > num(wanted);
      case ">=":
      case "ge":
        return num(v) >= num(wanted);
      case "<":
      case "lt":
        return num(v) < num(wanted);
      case "<=":
      case "le":
        return num(v) <= num(wanted);
      case "in":
        return collection(wanted).some((w) => textOf(w) === textOf(v));
      case "not in":
        return !collection(wanted).some((w) => textOf(w) === textOf(v));
      case "intersect":
        return collection(v).some((x) => collection(wanted).some((w) => textOf(w) === textOf(x)));
      default:
        return false;
    }
  });
}

function sortFilter(args: Value[]): Value {
  const [coll, key, order] = args;
  const items = [...collection(coll)];
  const path = key === undefined ? [] : textOf(key).replace(/^\./, "").split(".");
  const get = (item: Value) =>
    path.length === 0 || path[0] === "value" ? item : path.reduce<Value>((v, p) => goField(v, p), item);
  items.sort((a, b) => {
    const x = get(a);
    const y = get(b);
    const c = typeof x === "number" && typeof y === "number" ? x - y : textOf(x) < textOf(y) ? -1 : textOf(x) > textOf(y) ? 1 : 0;
    return textOf(order).toLowerCase() === "desc" ? -c : c;
  });
  return items;
}

function humanizeNumber(n: number, decimals: number): string {
  const fixed = n.toFixed(decimals);
  const [int, frac] = fixed.split(".");
  return int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac ? `.${frac}` : "");
}

const FUNCS: Record<string, Func> = {
  // Go's built-ins
  and: (a) => {
    for (const v of a) if (!goTruthy(v)) return v;
    return a[a.length - 1];
  },
  or: (a) => {
    for (const v of a) if (goTruthy(v)) return v;
    return a[a.length - 1];
  },
  not: (a) => !goTruthy(a[0]),
  eq: (a) => a.slice(1).some((b) => equal(a[0], b) || (typeof a[0] !== typeof b && textOf(a[0]) === textOf(b) && a[0] !== undefined && b !== undefined)),
  ne: (a) => !(equal(a[0], a[1]) || (a[0] !== undefined && a[1] !== undefined && textOf(a[0]) === textOf(a[1]))),
  lt: (a) => (typeof a[0] === "string" && typeof a[1] === "string" ? a[0] < a[1] : num(a[0]) < num(a[1])),
  le: (a) => (typeof a[0] === "string" && typeof a[1] === "string" ? a[0] <= a[1] : num(a[0]) <= num(a[1])),
  gt: (a) => (typeof a[0] === "string" && typeof a[1] === "string" ? a[0] > a[1] : num(a[0]) > num(a[1])),
  ge: (a) => (typeof a[0] === "string" && typeof a[1] === "string" ? a[0] >= a[1] : num(a[0]) >= num(a[1])),
  len: (a) => length(a[0]),
  index: (a) => a.slice(1).reduce<Value>((v, k) => (Array.isArray(v) ? v[num(k)] : goField(v, textOf(k))), a[0]),
  print: (a) => a.map(show).join(""),
  println: (a) => `${a.map(show).join(" ")}\n`,
  printf: (a) => sprintf(textOf(a[0]), a.slice(1)),
  html: (a) => show(a[0]),
  js: (a) => show(a[0]),
  urlquery: (a) => encodeURIComponent(show(a[0])),
  call: (a) => (typeof a[0] === "function" ? (a[0] as (...x: Value[]) => Value)(...a.slice(1)) : undefined),
  slice: (a) => [...a],
  // Hugo: collections
  dict: (a) => dict(a),
  merge: (a) => merge(a),
  append: (a) => {
    const target = a[a.length - 1];
    const items = a.slice(0, -1);
    return [...collection(target), ...(items.length === 1 && Array.isArray(items[0]) ? items[0] : items)];
  },
  first: (a) => collection(a[1]).slice(0, num(a[0])),
  last: (a) => collection(a[1]).slice(-num(a[0])),
  after: (a) => collection(a[1]).slice(num(a[0])),
  seq: (a) => {
    const [from, to] = a.length === 1 ? [1, num(a[0])] : [num(a[0]), num(a[a.length - 1])];
    const out: number[] = [];
    for (let v = from; v <= to && out.length < 10000; v++) out.push(v);
    return out;
  },
  shuffle: (a) => collection(a[0]),
  delimit: (a) => collection(a[0]).map(show).join(textOf(a[1])),
  in: (a) =>
    typeof a[0] === "string" ? a[0].includes(textOf(a[1])) : collection(a[0]).some((v) => textOf(v) === textOf(a[1])),
  isset: (a) => {
    const [coll, key] = a;
    if (Array.isArray(coll)) return num(key) < coll.length;
    if (coll instanceof Map) return coll.has(key);
    return !!coll && typeof coll === "object" && goField(coll, textOf(key)) !== undefined;
  },
  where: (a) => whereFilter(a),
  sort: (a) => sortFilter(a),
  uniq: (a) => [...new Set(collection(a[0]))],
  reverse: (a) => [...collection(a[0])].reverse(),
  union: (a) => [...new Set([...collection(a[0]), ...collection(a[1])])],
  intersect: (a) => collection(a[0]).filter((v) => collection(a[1]).includes(v)),
  complement: (a) => collection(a[a.length - 1]).filter((v) => !a.slice(0, -1).some((c) => collection(c).includes(v))),
  group: (a) => a[1],
  querify: (a) => Object.entries(dict(a)).map(([k, v]) => `${k}=${show(v)}`).join("&"),
  // Hugo: defaults and conditions
  default: (a) => (goTruthy(a[1]) ? a[1] : a[0]),
  cond: (a) => (goTruthy(a[0]) ? a[1] : a[2]),
  // Hugo: math
  add: (a) =>
    a.some((v) => typeof v === "string" && !/^-?\d+(?:\.\d+)?$/.test(v))
      ? a.map(show).join("")
      : a.reduce<number>((s, v) => s + num(v), 0),
  sub: (a) => a.slice(1).reduce<number>((s, v) => s - num(v), num(a[0])),
  mul: (a) => a.reduce<number>((s, v) => s * num(v), 1),
  div: (a) => a.slice(1).reduce<number>((s, v) => s / num(v), num(a[0])),
  mod: (a) => num(a[0]) % num(a[1]),
  modBool: (a) => num(a[0]) % num(a[1]) === 0,
  int: (a) => Math.trunc(num(a[0])),
  float: (a) => num(a[0]),
  string: (a) => show(a[0]),
  Round: (a) => Math.round(num(a[0])),
  Floor: (a) => Math.floor(num(a[0])),
  Ceil: (a) => Math.ceil(num(a[0])),
  Max: (a) => Math.max(...a.map(num)),
  Min: (a) => Math.min(...a.map(num)),
  // Hugo: strings
  upper: (a) => show(a[0]).toUpperCase(),
  lower: (a) => show(a[0]).toLowerCase(),
  title: (a) => show(a[0]).replace(/\b\w/g, (c) => c.toUpperCase()),
  humanize: (a) => {
    const s = show(a[0]).replace(/[-_]+/g, " ");
    return s.charAt(0).toUpperCase() + s.slice(1);
  },
  trim: (a) => {
    const chars = textOf(a[1]).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return chars ? show(a[0]).replace(new RegExp(`^[${chars}]+|[${chars}]+$`, "g"), "") : show(a[0]).trim();
  },
  TrimSpace: (a) => show(a[0]).trim(),
  TrimPrefix: (a) => (show(a[1]).startsWith(textOf(a[0])) ? show(a[1]).slice(textOf(a[0]).length) : show(a[1])),
  TrimSuffix: (a) => (show(a[1]).endsWith(textOf(a[0])) ? show(a[1]).slice(0, -textOf(a[0]).length || undefined) : show(a[1])),
  TrimLeft: (a) => show(a[1]).replace(new RegExp(`^[${textOf(a[0]).replace(/[\]\\^-]/g, "\\$&")}]+`), ""),
  TrimRight: (a) => show(a[1]).replace(new RegExp(`[${textOf(a[0]).replace(/[\]\\^-]/g, "\\$&")}]+$`), ""),
  replace: (a) => show(a[0]).split(textOf(a[1])).join(textOf(a[2])),
  replaceRE: (a) => {
    try {
      return show(a[2]).replace(new RegExp(textOf(a[0]), "g"), textOf(a[1]).replace(/\$\{?(\d+)\}?/g, "$$$1"));
    } catch {
      return show(a[2]);
    }
  },
  findRE: (a) => {
    try {
      return show(a[1]).match(new RegExp(textOf(a[0]), "g")) ?? [];
    } catch {
      return [];
    }
  },
  split: (a) => show(a[0]).split(textOf(a[1])),
  substr: (a) => show(a[0]).substr(num(a[1]), a[2] === undefined ? undefined : num(a[2])),
  truncate: (a) => {
    const [n, text] = a.length >= 2 ? [num(a[0]), show(a[a.length - 1])] : [70, show(a[0])];
    return text.length > n ? `${text.slice(0, n).trimEnd()} …` : text;
  },
  HasPrefix: (a) => show(a[0]).startsWith(textOf(a[1])),
  hasPrefix: (a) => show(a[0]).startsWith(textOf(a[1])),
  HasSuffix: (a) => show(a[0]).endsWith(textOf(a[1])),
  hasSuffix: (a) => show(a[0]).endsWith(textOf(a[1])),
  Contains: (a) => show(a[0]).includes(textOf(a[1])),
  ContainsAny: (a) => [...textOf(a[1])].some((c) => show(a[0]).includes(c)),
  Repeat: (a) => show(a[1]).repeat(Math.max(0, num(a[0]))),
  FirstUpper: (a) => show(a[0]).charAt(0).toUpperCase() + show(a[0]).slice(1),
  countwords: (a) => show(a[0]).split(/\s+/).filter(Boolean).length,
  chomp: (a) => show(a[0]).replace(/\r?\n$/, ""),
  anchorize: (a) => anchorize(show(a[0])),
  urlize: (a) => urlize(show(a[0])),
  plainify: (a) => show(a[0]).replace(/<[^>]*>/g, ""),
  htmlEscape: (a) => show(a[0]).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;"),
  htmlUnescape: (a) =>
    show(a[0]).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#34;|&quot;/g, '"').replace(/&amp;/g, "&"),
  markdownify: (a) => markdownify(show(a[0])),
  emojify: (a) => show(a[0]),
  safeHTML: (a) => show(a[0]),
  safeHTMLAttr: (a) => show(a[0]),
  safeCSS: (a) => show(a[0]),
  safeJS: (a) => show(a[0]),
  safeURL: (a) => show(a[0]),
  jsonify: (a) => JSON.stringify(a[a.length - 1] ?? null),
  FormatNumber: (a) => humanizeNumber(num(a[1]), num(a[0])),
  FormatNumberCustom: (a) => humanizeNumber(num(a[1]), num(a[0])),
  lang: () => undefined,
  // Hugo: URLs and translations (links are not the page's text)
  relURL: (a) => show(a[0]),
  absURL: (a) => show(a[0]),
  relLangURL: (a) => show(a[0]),
  absLangURL: (a) => show(a[0]),
  ref: () => "#",
  relref: () => "#",
  T: (a) => show(a[0]),
  i18n: (a) => show(a[0]),
  // Hugo: templates
  partial: (a, renderer) => renderer.partial(textOf(a[0]), a[1]),
  partialCached: (a, renderer) => renderer.partial(textOf(a[0]), a[1]),
  Include: (a, renderer) => renderer.partial(textOf(a[0]), a[1]),
  // Hugo: other
  highlight: (a) => `<pre><code>${show(a[0]).replace(/&/g, "&amp;").replace(/</g, "&lt;")}</code></pre>`,
  errorf: () => "",
  warnf: () => "",
  erroridf: () => "",
  getenv: () => "",
  now: () => undefined,
  Get: () => undefined,
  GetMatch: () => undefined,
  IsMap: (a) => !!a[0] && typeof a[0] === "object" && !Array.isArray(a[0]),
  IsSlice: (a) => Array.isArray(a[0]),
};
