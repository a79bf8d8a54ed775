/**
 * The brace dialects: Django, Jinja2, Liquid (Jekyll), Twig and Nunjucks share `{% tag %}`, `{{ output }}` and
 * `{# comment #}`. One engine renders them the way a visitor who is not signed in would see the page: `if` takes the
 * first branch whose condition holds (a condition on the visitor's own state is false), `for` loops over the data the
 * repository holds (a list the server would compute from its database is empty), `extends`/`block`, `include`,
 * `import`/macros and Jekyll layouts are followed inside the repository at the same commit. Nothing of the product's
 * code runs: custom tags print nothing (or a value the manifest gives), unknown names are empty.
 */
import { isTruthy, keywordFunction, parseExpr, TRANSLATE_FUNCTIONS, type Expr, type Scope } from "./expr.js";
import { iterable, liquidTruthy, RubyFloat, splitFrontMatter, textOf, VISITOR_STATE_RE, type Value } from "./values.js";

export type BraceDialect = "django" | "jinja" | "liquid";

export interface TemplateSource {
  path: string;
  source: string;
}

export interface BraceOptions {
  dialect: BraceDialect;
  /** Finds a template by the name a tag gives (`base.html`, `card.html`), relative to the including one. */
  load(
    name: string,
    from: string,
    kind: "extends" | "include" | "include_relative" | "import" | "section",
  ): TemplateSource | null;
  /** Values every template sees (`site`, `page`, the manifest's context). */
  globals: Record<string, Value>;
  /**
   * True for server-rendered pages (Django, Jinja, Twig): an unknown name in a condition is view context the page
   * cannot know, read as true unless it names the visitor's own state. Static sites (Liquid) know every value, so
   * an unknown name is simply false.
   */
  serverRendered: boolean;
  /** The product's own filters, as chains of built-in ones (RenderOptions.filters). */
  filters?: Record<string, string>;
  /**
   * Locomotive (Wagon) sections: `{% section 'name' %}`, `{% global_section 'name' %}` and `{% sections_dropzone %}`
   * render the section's template (`load(name, from, "section")`, its JSON definition as front matter) with
   * `section` set to the content this gives (the page's or the site's, else the definition's default). Without it
   * these tags are custom tags (nothing).
   */
  sections?: WagonSections;
}

export interface WagonSections {
  /** A section's content (`settings`, `blocks`) by its name, for a page's section or the site's global one. */
  content(name: string, global: boolean, definition: Record<string, Value>): Value;
  /** The page's dropzone: its sections in order, each with its `type`, `settings` and `blocks`. */
  dropzone(): Value[];
}

type Node =
  | { t: "text"; v: string }
  | { t: "out"; expr: string }
  | { t: "tag"; name: string; args: string }
  | { t: "block"; name: string; args: string; body: Node[]; branches: { name: string; args: string; body: Node[] }[] };

const MIDDLE_TAGS = new Set(["else", "elif", "elsif", "elseif", "empty", "when", "plural"]);
const BLOCK_TAGS = new Set([
  "if",
  "ifequal",
  "ifnotequal",
  "ifchanged",
  "unless",
  "for",
  "tablerow",
  "case",
  "block",
  "with",
  "capture",
  "comment",
  "spaceless",
  "autoescape",
  "filter",
  "blocktrans",
  "blocktranslate",
  "macro",
  "call",
  "localize",
  "cache",
  "language",
  "embed",
  "apply",
  "highlight",
  "schema",
  "stylesheet",
  "javascript",
  "form",
  "paginate",
  "compress",
  "addtoblock",
]);
/** Block tags whose body is never shown (comments, assets, stored text). */
const SILENT_BLOCKS = new Set(["comment", "schema", "stylesheet", "javascript", "compress"]);

const TAG_RE = /\{%-?\s*([\s\S]*?)\s*-?%\}|\{\{-?\s*([\s\S]*?)\s*-?\}\}|\{#[\s\S]*?#\}/g;

/** Splits a template into text, output and tag tokens, honouring `-` whitespace control and raw/verbatim blocks. */
function lex(source: string): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  let trimNext = false;
  TAG_RE.lastIndex = 0;
  for (let match = TAG_RE.exec(source); match; match = TAG_RE.exec(source)) {
    let text = source.slice(at, match.index);
    if (trimNext) text = text.replace(/^\s+/, "");
    if (match[0].startsWith("{%-") || match[0].startsWith("{{-") || match[0].startsWith("{#-"))
      text = text.replace(/\s+$/, "");
    if (text) nodes.push({ t: "text", v: text });
    trimNext = match[0].endsWith("-%}") || match[0].endsWith("-}}") || match[0].endsWith("-#}");
    at = TAG_RE.lastIndex;
    if (match[1] !== undefined) {
      const [, name = "", args = ""] = /^(\S+)\s*([\s\S]*)$/.exec(match[1]) ?? [];
      if (name === "raw" || name === "verbatim") {
        const end = new RegExp(`\\{%-?\\s*end${name}\\s*-?%\\}`, "g");
        end.lastIndex = at;
        const close = end.exec(source);
        nodes.push({ t: "text", v: source.slice(at, close ? close.index : source.length) });
        at = close ? end.lastIndex : source.length;
        TAG_RE.lastIndex = at;
        continue;
      }
      nodes.push({ t: "tag", name, args });
    } else if (match[2] !== undefined) {
      nodes.push({ t: "out", expr: match[2] });
    }
  }
  let rest = source.slice(at);
  if (trimNext) rest = rest.replace(/^\s+/, "");
  if (rest) nodes.push({ t: "text", v: rest });
  return nodes;
}

/** Nests block tags: a tag is a block when it is a known one or its `end<name>` appears in the template. */
function parse(source: string): Node[] {
  const flat = lex(source);
  const names = new Set(flat.filter((n) => n.t === "tag").map((n) => (n as { name: string }).name));
  const isBlock = (name: string, args: string): boolean => {
    if (name === "trans") return !/^["']/.test(args.trim()) && names.has("endtrans");
    if (name === "set") return !args.includes("=") && names.has("endset");
    // A known block tag, or any tag whose `end<name>` the template uses (a project's own block tags).
    return names.has(`end${name}`) && (BLOCK_TAGS.has(name) || !MIDDLE_TAGS.has(name));
  };
  type Frame = { node: Extract<Node, { t: "block" }>; target: Node[] };
  const root: Node[] = [];
  const stack: Frame[] = [];
  const current = () => (stack.length > 0 ? stack[stack.length - 1]!.target : root);
  for (const node of flat) {
    if (node.t !== "tag") {
      current().push(node);
      continue;
    }
    if (node.name.startsWith("end") && node.name.length > 3) {
      const opener = node.name.slice(3);
      const index = stack.map((f) => f.node.name).lastIndexOf(opener);
      if (index !== -1) stack.length = index; // closes it and anything left open inside
      continue;
    }
    if (MIDDLE_TAGS.has(node.name) && stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const branch = { name: node.name, args: node.args, body: [] as Node[] };
      frame.node.branches.push(branch);
      frame.target = branch.body;
      continue;
    }
    if (isBlock(node.name, node.args)) {
      const block: Extract<Node, { t: "block" }> = {
        t: "block",
        name: node.name,
        args: node.args,
        body: [],
        branches: [],
      };
      current().push(block);
      stack.push({ node: block, target: block.body });
      continue;
    }
    current().push(node);
  }
  return root;
}

interface Macro {
  params: { name: string; fallback: Expr | null }[];
  body: Node[];
  /** The macros of the template that defines it, which its body can call (Jinja's module scope). */
  siblings?: Map<string, Macro>;
}

/** One rendering: its variables, the blocks of the templates it extends, and the macros in scope. */
class Context implements Scope {
  readonly liquid: boolean;
  private readonly frames: Record<string, Value>[];
  readonly macros = new Map<string, Macro>();
  /** Block overrides, innermost template first: a child's block replaces its parent's. */
  blocks: Map<string, Node[]>[] = [];

  constructor(
    readonly options: BraceOptions,
    globals: Record<string, Value>,
    private readonly renderer: Renderer,
  ) {
    this.liquid = options.dialect === "liquid";
    this.frames = [{ ...globals }];
  }

  lookup(name: string): Value {
    for (let k = this.frames.length - 1; k >= 0; k--) {
      if (Object.prototype.hasOwnProperty.call(this.frames[k]!, name)) return this.frames[k]![name];
    }
    const macro = this.macros.get(name);
    if (macro) return keywordFunction((args, kwargs) => this.renderer.callMacro(macro, args, kwargs, this));
    return undefined;
  }

  call(name: string, args: Value[], kwargs: Record<string, Value>): Value {
    if (TRANSLATE_FUNCTIONS.has(name)) return args[0];
    const macro = this.macros.get(name);
    if (macro) return this.renderer.callMacro(macro, args, kwargs, this);
    if (name === "static" || name === "url" || name === "url_for") return "#";
    if (name === "range") {
      const [a, b] = args.length > 1 ? [Number(args[0]), Number(args[1])] : [0, Number(args[0])];
      return Number.isFinite(a) && Number.isFinite(b) && b - a < 1000
        ? Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k)
        : [];
    }
    return undefined;
  }

  customFilter(name: string, value: Value, args: Value[]): { value: Value } | undefined {
    const chain = this.options.filters?.[name];
    if (chain === undefined) return undefined;
    // The chain reads the filtered value as `value` and the filter's arguments as `arg0`, `arg1`…
    const scope: Scope = {
      liquid: this.liquid,
      lookup: (key) => (key === "value" ? value : /^arg\d+$/.test(key) ? args[Number(key.slice(3))] : undefined),
      call: () => undefined,
    };
    return { value: parseExpr(`value|${chain}`)(scope) };
  }

  set(name: string, value: Value): void {
    this.frames[this.frames.length - 1]![name] = value;
  }

  /**
   * Liquid's `assign` and `capture`: a variable of the whole render, not of the loop or include it is set in (the
   * frame that already holds the name, else the outermost one).
   */
  setOuter(name: string, value: Value): void {
    for (let i = this.frames.length - 1; i >= 0; i--)
      if (Object.prototype.hasOwnProperty.call(this.frames[i]!, name)) {
        this.frames[i]![name] = value;
        return;
      }
    this.frames[0]![name] = value;
  }

  push(values: Record<string, Value> = {}): void {
    this.frames.push(values);
  }

  pop(): void {
    this.frames.pop();
  }

  /** Whether a condition holds for the anonymous visitor (see BraceOptions.serverRendered). */
  holds(condition: string): boolean {
    const value = parseExpr(condition)(this);
    if (value !== undefined) return this.liquid ? liquidTruthy(value) : isTruthy(value);
    if (!this.options.serverRendered) return false;
    // Unknown to the page: view context. False when it is about the visitor, true otherwise; a leading `not` flips it.
    const negated = /^\s*(?:not\s+|!)/.test(condition);
    const about = VISITOR_STATE_RE.test(condition);
    return negated ? about : !about;
  }
}

class Renderer {
  private depth = 0;

  constructor(private readonly options: BraceOptions) {}

  render(template: TemplateSource): string {
    const context = new Context(this.options, { ...this.options.globals }, this);
    return this.renderTemplate(template, context);
  }

  /** A whole template, following `extends` up to the base whose blocks the chain fills. */
  renderTemplate(template: TemplateSource, context: Context): string {
    if (++this.depth > 40) return "";
    try {
      let nodes = parse(template.source);
      let current = template;
      // Walks up the extends chain, collecting each level's blocks (the child's come first and win).
      for (let level = 0; level < 10; level++) {
        const extendsTag = nodes.find((n) => n.t === "tag" && n.name === "extends") as { args: string } | undefined;
        if (!extendsTag) break;
        context.blocks.push(collectBlocks(nodes));
        // Macros and variables set at the top of a child are visible in its blocks.
        for (const node of nodes)
          if (
            node.t === "tag" &&
            (node.name === "load" || node.name === "import" || node.name === "from" || node.name === "set")
          )
            this.renderNode(node, context, current);
        const name = textOf(parseExpr(extendsTag.args)(context));
        const parent = name ? this.options.load(name, current.path, "extends") : null;
        if (!parent) {
          // The parent is not in the repository: the child's blocks, in order, are the page.
          return nodes
            .filter((n) => n.t === "block" && n.name === "block")
            .map((n) => this.renderNode(n, context, current))
            .join("");
        }
        current = parent;
        nodes = parse(parent.source);
      }
      return this.renderNodes(nodes, context, current);
    } finally {
      this.depth--;
    }
  }

  renderNodes(nodes: Node[], context: Context, template: TemplateSource): string {
    let out = "";
    for (const node of nodes) {
      try {
        out += this.renderNode(node, context, template);
      } catch (signal) {
        // `{% break %}` / `{% continue %}`: what the loop body rendered before it still shows.
        if (signal instanceof LoopControl) signal.output = out + signal.output;
        throw signal;
      }
    }
    return out;
  }

  callMacro(macro: Macro, args: Value[], kwargs: Record<string, Value>, context: Context): string {
    const values: Record<string, Value> = {};
    for (const [name, sibling] of macro.siblings ?? [])
      values[name] = keywordFunction((a, kw) => this.callMacro(sibling, a, kw, context));
    macro.params.forEach((param, k) => {
      values[param.name] =
        k < args.length ? args[k] : param.name in kwargs ? kwargs[param.name] : param.fallback?.(context);
    });
    context.push(values);
    try {
      return this.renderNodes(macro.body, context, { path: "", source: "" });
    } finally {
      context.pop();
    }
  }

  private output(expr: string, context: Context): string {
    return textOf(parseExpr(expr)(context));
  }

  private renderNode(node: Node, context: Context, template: TemplateSource): string {
    switch (node.t) {
      case "text":
        return node.v;
      case "out":
        return this.output(node.expr, context);
      case "tag":
        return this.renderTag(node.name, node.args, context, template);
      case "block":
        return this.renderBlock(node, context, template);
    }
  }

  private renderTag(name: string, args: string, context: Context, template: TemplateSource): string {
    if (this.options.sections && (name === "section" || name === "global_section")) {
      const section = textOf(parseExpr(args.split(",")[0]!)(context));
      return this.section(section, name === "global_section", null, context, template);
    }
    if (this.options.sections && name === "sections_dropzone")
      return this.options.sections
        .dropzone()
        .map((item) => this.section(textOf((item as Record<string, Value>)?.type), false, item, context, template))
        .join("");
    switch (name) {
      case "break":
      case "continue":
        throw new LoopControl(name);
      case "extends":
      case "load":
      case "csrf_token":
      case "now":
      case "debug":
      case "layout":
        return "";
      case "trans":
      case "translate": {
        // Django `{% trans "Text" %}` (optionally `as var`): the literal is the page's text.
        const [, literal = "", alias] =
          /^\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S+)(?:.*?\bas\s+(\w+))?/.exec(args) ?? [];
        const text = textOf(parseExpr(literal)(context));
        if (alias) {
          context.set(alias, text);
          return "";
        }
        return text;
      }
      case "url":
        return /\bas\s+\w+\s*$/.test(args) ? "" : "#";
      case "static":
        return `/static/${textOf(parseExpr(args.split(/\s+as\s+/)[0]!)(context))}`;
      case "cycle": {
        const first = args.split(/\s+/)[0] ?? "";
        return textOf(parseExpr(first.replace(/,$/, ""))(context));
      }
      case "set":
      case "assign": {
        const match = /^\s*([\w.]+)\s*=\s*([\s\S]*)$/.exec(args);
        if (match) {
          const value = parseExpr(match[2]!)(context);
          if (this.options.dialect === "liquid") context.setOuter(match[1]!, value);
          else context.set(match[1]!, value);
        }
        // Jinja's unpacking: `{% set (value, label) = pair %}`, `{% set a, b = pair %}`.
        const unpack = /^\s*\(?\s*(\w+(?:\s*,\s*\w+)+)\s*\)?\s*=\s*([\s\S]*)$/.exec(args);
        if (!match && unpack) {
          const value = parseExpr(unpack[2]!)(context);
          unpack[1]!
            .split(",")
            .forEach((name, k) => context.set(name.trim(), Array.isArray(value) ? value[k] : undefined));
        }
        return "";
      }
      case "increment":
      case "decrement":
        return "";
      case "include":
      case "render":
      case "include_relative":
      case "include_cached":
        return this.include(args, context, template, name === "include_relative");
      case "import":
      case "from":
        this.importMacros(name, args, context, template);
        return "";
      default: {
        // A custom tag the product defines in code: its output is unknown, unless the manifest names a value for it.
        const known = context.lookup(name);
        return typeof known === "string" || typeof known === "number" ? String(known) : "";
      }
    }
  }

  /** A Locomotive section (BraceOptions.sections): its template under `section`, its content given or looked up. */
  private section(name: string, global: boolean, given: Value, context: Context, template: TemplateSource): string {
    const found = name ? this.options.load(name, template.path, "section") : null;
    if (!found || !this.options.sections) return "";
    const { data: definition, body } = splitFrontMatter(found.source);
    const content = (given ?? this.options.sections.content(name, global, definition) ?? {}) as Record<string, Value>;
    const section = { ...content, type: name, settings: content.settings ?? {}, blocks: content.blocks ?? [] };
    context.push({ section });
    try {
      return this.renderTemplate({ path: found.path, source: body }, context);
    } finally {
      context.pop();
    }
  }

  private include(args: string, context: Context, template: TemplateSource, relative = false): string {
    const liquid = this.options.dialect === "liquid";
    // Liquid: `include card.html title="Pro" price=page.pro`, the name unquoted; the others: a quoted expression.
    const match = /^\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S+)\s*([\s\S]*)$/.exec(args);
    if (!match) return "";
    const nameToken = match[1]!;
    const rest = match[2]!;
    const name = /^["']/.test(nameToken) || !liquid ? textOf(parseExpr(nameToken)(context)) : nameToken;
    if (!name) return "";
    const found = this.options.load(name, template.path, relative ? "include_relative" : "include");
    if (!found) return "";
    const values: Record<string, Value> = {};
    if (liquid) {
      const params: Record<string, Value> = {};
      for (const param of rest.matchAll(/([\w-]+)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,]+)/g)) {
        // A whole number written with a decimal point (`base_cost=40.00`) is a Ruby Float, printed with its point
        // wherever arithmetic carries it (see RubyFloat). Only an include's parameter is read so: Ruby makes every
        // such literal a Float, but modelling that everywhere would reprint other pages' values (SignPath's
        // `assign factor = 1.00` data attributes as '216.0'), which are kept as they were rendered.
        const literal = param[2]!;
        params[param[1]!] =
          /^-?\d+\.\d+$/.test(literal) && Number.isInteger(Number(literal))
            ? new RubyFloat(Number(literal))
            : parseExpr(literal)(context);
      }
      values.include = params;
      Object.assign(values, params); // `render` passes them as plain variables
    } else {
      const withArgs = /\bwith\s+([\s\S]*?)(?:\s+only)?\s*$/.exec(rest);
      if (withArgs) {
        for (const param of withArgs[1]!.matchAll(/([\w]+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s]+)/g)) {
          values[param[1]!] = parseExpr(param[2]!)(context);
        }
      }
    }
    context.push(values);
    try {
      return this.renderTemplate(found, context);
    } finally {
      context.pop();
    }
  }

  private importMacros(tag: string, args: string, context: Context, template: TemplateSource): void {
    // `import "m.html" as m` or `from "m.html" import card, price`.
    const match = /^\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*(?:as\s+(\w+)|import\s+([\s\S]+))?/.exec(args);
    if (!match) return;
    const found = this.options.load(textOf(parseExpr(match[1]!)(context)), template.path, "import");
    if (!found) return;
    const macros = collectMacros(parse(found.source));
    if (tag === "import" && match[2]) {
      const namespace: Record<string, Value> = {};
      for (const [name, macro] of macros)
        namespace[name] = keywordFunction((a, kwargs) => this.callMacro(macro, a, kwargs, context));
      context.set(match[2], namespace);
    } else if (match[3]) {
      for (const item of match[3].split(",")) {
        const [name, alias] = item.trim().split(/\s+as\s+/);
        const macro = macros.get(name!.trim());
        if (macro) context.macros.set((alias ?? name!).trim(), macro);
      }
    }
  }

  private renderBlock(node: Extract<Node, { t: "block" }>, context: Context, template: TemplateSource): string {
    const { name, args } = node;
    if (SILENT_BLOCKS.has(name)) return "";
    switch (name) {
      case "if":
      case "unless": {
        const first = name === "unless" ? !context.holds(args) : context.holds(args);
        if (first) return this.renderNodes(node.body, context, template);
        for (const branch of node.branches) {
          if (
            (branch.name === "elif" || branch.name === "elsif" || branch.name === "elseif") &&
            context.holds(branch.args)
          ) {
            return this.renderNodes(branch.body, context, template);
          }
          if (branch.name === "else") return this.renderNodes(branch.body, context, template);
        }
        return "";
      }
      case "ifequal":
      case "ifnotequal": {
        const [a = "", b = ""] = args.split(/\s+/);
        const equal = textOf(parseExpr(a)(context)) === textOf(parseExpr(b)(context));
        const body =
          equal === (name === "ifequal") ? node.body : (node.branches.find((br) => br.name === "else")?.body ?? []);
        return this.renderNodes(body, context, template);
      }
      case "case": {
        const value = textOf(parseExpr(args)(context));
        for (const branch of node.branches) {
          if (
            branch.name === "when" &&
            branch.args.split(/\s*(?:,|\bor\b)\s*/).some((option) => textOf(parseExpr(option)(context)) === value)
          ) {
            return this.renderNodes(branch.body, context, template);
          }
          if (branch.name === "else") return this.renderNodes(branch.body, context, template);
        }
        return "";
      }
      case "for":
      case "tablerow":
        return this.renderFor(node, context, template);
      case "block": {
        const blockName = blockNameOf(args);
        // The innermost override wins; `{{ block.super }}` shows the parent's content.
        const levels = [...context.blocks.map((map) => map.get(blockName)).filter((b): b is Node[] => !!b), node.body];
        return this.renderBlockLevel(levels, 0, context, template);
      }
      case "with": {
        const values: Record<string, Value> = {};
        const aliased = /^\s*([\s\S]+?)\s+as\s+(\w+)\s*$/.exec(args);
        if (aliased) values[aliased[2]!] = parseExpr(aliased[1]!)(context);
        else
          for (const param of args.matchAll(/(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,]+)/g))
            values[param[1]!] = parseExpr(param[2]!)(context);
        context.push(values);
        try {
          return this.renderNodes(node.body, context, template);
        } finally {
          context.pop();
        }
      }
      case "capture":
      case "set": {
        const target = args.trim().split(/\s+/)[0] ?? "";
        const captured = this.renderNodes(node.body, context, template);
        if (this.options.dialect === "liquid" && name === "capture") context.setOuter(target, captured);
        else context.set(target, captured);
        return "";
      }
      case "macro": {
        const macro = parseMacro(args, node.body);
        if (macro) context.macros.set(macro.name, macro.macro);
        return "";
      }
      case "call": {
        // `{% call card("Pro", price=9) %}…{% endcall %}`, `{% call(item) ns.table(rows) %}`: the macro's call, with
        // the body as `caller()`.
        const match = /^\s*(?:\([^)]*\)\s*)?([\w.]+\s*\([\s\S]*\))\s*$/.exec(args);
        if (!match) return "";
        const body = this.renderNodes(node.body, context, template);
        context.push({ caller: () => body });
        try {
          return textOf(parseExpr(match[1]!)(context));
        } finally {
          context.pop();
        }
      }
      case "blocktrans":
      case "blocktranslate":
      case "trans": {
        const values: Record<string, Value> = {};
        for (const param of args.matchAll(/(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,]+)/g))
          values[param[1]!] = parseExpr(param[2]!)(context);
        for (const param of args.matchAll(/([^\s]+)\s+as\s+(\w+)/g)) values[param[2]!] = parseExpr(param[1]!)(context);
        const count = /\bcount\s+(\w+)\s*=\s*(\S+)/.exec(args);
        if (count) values[count[1]!] = parseExpr(count[2]!)(context);
        context.push(values);
        try {
          return this.renderNodes(node.body, context, template);
        } finally {
          context.pop();
        }
      }
      default:
        // spaceless, autoescape, filter, localize, cache, language, highlight, embed, apply, form, paginate, custom
        // block tags: their body is the page's content.
        return this.renderNodes(node.body, context, template);
    }
  }

  private renderBlockLevel(levels: Node[][], level: number, context: Context, template: TemplateSource): string {
    const body = levels[level];
    if (!body) return "";
    context.push({ block: { super: () => this.renderBlockLevel(levels, level + 1, context, template) } });
    try {
      // `{{ block.super }}` is an output of a function value: resolve it by hand.
      let out = "";
      for (const node of body) {
        if (node.t === "out" && /^\s*block\.super\s*$/.test(node.expr))
          out += this.renderBlockLevel(levels, level + 1, context, template);
        else if (node.t === "out" && /^\s*super\(\)\s*$/.test(node.expr))
          out += this.renderBlockLevel(levels, level + 1, context, template);
        else out += this.renderNode(node, context, template);
      }
      return out;
    } finally {
      context.pop();
    }
  }

  private renderFor(node: Extract<Node, { t: "block" }>, context: Context, template: TemplateSource): string {
    const match = /^\s*([\w\s,()]+?)\s+in\s+([\s\S]+?)(?:\s+if\s+([\s\S]+))?\s*$/.exec(node.args);
    const otherwise = node.branches.find((b) => b.name === "empty" || b.name === "else")?.body ?? [];
    if (!match) return this.renderNodes(otherwise, context, template);
    const names = match[1]!
      .replace(/[()]/g, "")
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    // Liquid parameters after the collection: `limit:3 offset:1 reversed`.
    let source = match[2]!;
    let limit = Infinity;
    let offset = 0;
    let reversed = false;
    if (this.options.dialect === "liquid") {
      source = source.replace(/\s+(limit|offset)\s*:\s*(\d+)/g, (_, key: string, n: string) => {
        if (key === "limit") limit = Number(n);
        else offset = Number(n);
        return "";
      });
      source = source.replace(/\s+reversed\b/, () => {
        reversed = true;
        return "";
      });
    }
    const rangeMatch = /^\(\s*(\S+)\s*\.\.\s*(\S+)\s*\)$/.exec(source.trim());
    let items: Value[] | null;
    if (rangeMatch) {
      const from = Number(parseExpr(rangeMatch[1]!)(context));
      const to = Number(parseExpr(rangeMatch[2]!)(context));
      items =
        Number.isFinite(from) && Number.isFinite(to) && to - from < 1000
          ? Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => from + k)
          : [];
    } else {
      const value = parseExpr(source)(context);
      items = iterable(typeof value === "function" ? (value as () => Value)() : value);
    }
    if (!items || items.length === 0) return this.renderNodes(otherwise, context, template);
    if (reversed) items = [...items].reverse();
    items = items.slice(offset, Number.isFinite(limit) ? offset + limit : undefined);
    const condition = match[3];
    let out = "";
    for (const [k, item] of items.entries()) {
      const values: Record<string, Value> = {};
      if (names.length > 1 && Array.isArray(item)) names.forEach((name, n) => (values[name] = item[n]));
      else values[names[0]!] = item;
      const loop = {
        index: k + 1,
        index0: k,
        first: k === 0,
        last: k === items!.length - 1,
        length: items!.length,
        counter: k + 1,
        counter0: k,
        revindex: items!.length - k,
      };
      values.forloop = loop;
      values.loop = loop;
      context.push(values);
      try {
        if (condition === undefined || context.holds(condition)) out += this.renderNodes(node.body, context, template);
      } catch (signal) {
        if (!(signal instanceof LoopControl)) throw signal;
        out += signal.output;
        if (signal.kind === "break") break;
      } finally {
        context.pop();
      }
    }
    return out;
  }
}

/** Liquid's and Jinja's loop controls, thrown from the tag to the loop that holds it. */
class LoopControl {
  output = "";
  constructor(readonly kind: "break" | "continue") {}
}

/** A block's name: its first word, unquoted (Locomotive's Liquid writes `{% block 'main' %}`). */
function blockNameOf(args: string): string {
  return (args.trim().split(/\s+/)[0] ?? "").replace(/^(["'])(.*)\1$/, "$2");
}

function collectBlocks(nodes: Node[], into = new Map<string, Node[]>()): Map<string, Node[]> {
  for (const node of nodes) {
    if (node.t !== "block") continue;
    if (node.name === "block") {
      const name = blockNameOf(node.args);
      if (!into.has(name)) into.set(name, node.body);
    }
    collectBlocks(node.body, into);
    for (const branch of node.branches) collectBlocks(branch.body, into);
  }
  return into;
}

function parseMacro(args: string, body: Node[]): { name: string; macro: Macro } | null {
  const match = /^\s*(\w+)\s*\(([\s\S]*)\)\s*$/.exec(args);
  if (!match) return null;
  const params = match[2]!
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [name, fallback] = part.split(/\s*=\s*/, 2);
      return { name: name!, fallback: fallback === undefined ? null : parseExpr(fallback) };
    });
  return { name: match[1]!, macro: { params, body } };
}

function collectMacros(nodes: Node[]): Map<string, Macro> {
  const macros = new Map<string, Macro>();
  for (const node of nodes) {
    if (node.t === "block" && node.name === "macro") {
      const macro = parseMacro(node.args, node.body);
      if (macro) macros.set(macro.name, { ...macro.macro, siblings: macros });
    }
  }
  return macros;
}

export function renderBrace(template: TemplateSource, options: BraceOptions): string {
  return new Renderer(options).render(template);
}
