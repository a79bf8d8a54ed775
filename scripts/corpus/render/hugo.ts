/**
 * Hugo sites: a content page (Markdown or HTML under `content/`, with front matter and shortcodes) and a Go-template
 * layout, read from the repository at one commit. Shortcodes (`{{< name … >}}…{{< /name >}}`, `{{% … %}}`) run their
 * templates from `layouts/shortcodes/` (the site's or its theme's) with the Go-template interpreter of go.ts, with
 * `.Inner`, `.Get`, `.Parent`, `.Ordinal`, `.Scratch`, `.Page` and `.Site`; a shortcode whose template is not in the
 * repository shows its inner content. `.Site.Data` reads `data/`, `.Site.Params` the site configuration. A content
 * page is its article (the site's navigation and chrome are not the page's content); a layout is rendered through its
 * `baseof` when it defines blocks.
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import { GoRenderer, goField, markdownify, show, type GoTemplateSource } from "./go.js";
import { dataTree, escapeHtml, markdownToHtml, parseStructured, splitFrontMatter, textOf, type Value } from "./values.js";

/** The site configuration: `hugo.*`, `config.*`, or `config/_default/*` merged. */
export function hugoConfig(repo: RepoAtCommit): Record<string, Value> {
  for (const name of ["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.yml", "config.json"]) {
    const text = repo.read(name);
    if (text !== null) return parseStructured(text, kindOf(name));
  }
  const merged: Record<string, Value> = {};
  for (const file of repo.files().filter((f) => /^config\/_default\/[^/]+\.(toml|ya?ml|json)$/.test(f))) {
    const text = repo.read(file);
    if (text === null) continue;
    const base = path.posix.basename(file).replace(/\.\w+$/, "");
    const value = parseStructured(text, kindOf(file));
    if (base === "config" || base === "hugo") Object.assign(merged, value);
    else merged[base] = value;
  }
  return merged;
}

function kindOf(file: string): "yaml" | "toml" | "json" {
  return file.endsWith(".toml") ? "toml" : file.endsWith(".json") ? "json" : "yaml";
}

/** Hugo's Scratch: a per-page (or per-shortcode) store templates write to and read back. */
class Scratch {
  private readonly values = new Map<string, Value>();
  Set(key: string, value: Value): string {
    this.values.set(key, value);
    return "";
  }
  Get(key: string): Value {
    return this.values.get(key);
  }
  Add(key: string, value: Value): string {
    const old = this.values.get(key);
    if (Array.isArray(old)) this.values.set(key, [...old, ...(Array.isArray(value) ? value : [value])]);
    else if (typeof old === "number" && typeof value === "number") this.values.set(key, old + value);
    else if (old === undefined) this.values.set(key, value);
    else this.values.set(key, show(old) + show(value));
    return "";
  }
  SetInMap(key: string, mapKey: string, value: Value): string {
    const map = (this.values.get(key) as Record<string, Value> | undefined) ?? {};
    map[textOf(mapKey)] = value;
    this.values.set(key, map);
    return "";
  }
  DeleteInMap(key: string, mapKey: string): string {
    const map = this.values.get(key) as Record<string, Value> | undefined;
    if (map) delete map[textOf(mapKey)];
    return "";
  }
  GetSortedMapValues(key: string): Value {
    const map = this.values.get(key) as Record<string, Value> | undefined;
    return map ? Object.keys(map).sort().map((k) => map[k]) : undefined;
  }
  Delete(key: string): string {
    this.values.delete(key);
    return "";
  }
}

interface Site {
  Params: Value;
  Title: Value;
  BaseURL: Value;
  Data: Record<string, Value>;
  Language: Value;
  LanguageCode: Value;
  Menus: Value;
  Copyright: Value;
  Home: Value;
  IsServer: boolean;
}

function makeSite(repo: RepoAtCommit, config: Record<string, Value>): Site {
  const get = (key: string) => goField(config, key);
  return {
    Params: get("params") ?? {},
    Title: get("title") ?? "",
    BaseURL: get("baseURL") ?? "/",
    Data: dataTree(repo, "data"),
    Language: { Lang: get("defaultContentLanguage") ?? "en", LanguageName: "" },
    LanguageCode: get("languageCode") ?? "en",
    Menus: {},
    Copyright: get("copyright") ?? "",
    Home: { Permalink: "/", RelPermalink: "/" },
    IsServer: false,
  };
}

function makePage(file: string, params: Record<string, Value>, site: Site, content = ""): Record<string, Value> {
  const lower: Record<string, Value> = {};
  for (const [k, v] of Object.entries(params)) lower[k.toLowerCase()] = v;
  const rel = file.replace(/^content\//, "").replace(/(?:_?index)?\.\w+$/, "");
  const page: Record<string, Value> = {
    Title: params.title ?? "",
    LinkTitle: params.linkTitle ?? params.title ?? "",
    Description: params.description ?? "",
    Summary: "",
    Params: { ...params, ...lower },
    Site: site,
    Date: params.date ?? null,
    Lastmod: params.lastmod ?? params.date ?? null,
    Draft: params.draft ?? false,
    Weight: params.weight ?? 0,
    Kind: "page",
    Type: params.type ?? rel.split("/")[0] ?? "",
    Section: rel.split("/")[0] ?? "",
    Layout: params.layout ?? "",
    File: { Path: file.replace(/^content\//, ""), Dir: path.posix.dirname(file.replace(/^content\//, "")) + "/" },
    RelPermalink: `/${rel}/`.replace(/\/+/g, "/"),
    Permalink: `/${rel}/`.replace(/\/+/g, "/"),
    Lang: "en",
    Language: site.Language,
    IsPage: true,
    IsHome: false,
    IsNode: false,
    IsSection: false,
    Content: content,
    TableOfContents: "",
    WordCount: 0,
    ReadingTime: 0,
    Pages: [],
    RegularPages: [],
    Translations: [],
    Resources: { Get: () => null, GetMatch: () => null, ByType: () => [], Match: () => [] },
    Scratch: new Scratch(),
    Store: new Scratch(),
    Param: (key: string) => lower[textOf(key).toLowerCase()] ?? goField(site.Params, textOf(key)),
    IsMenuCurrent: () => false,
    HasMenuCurrent: () => false,
    GetParam: (key: string) => lower[textOf(key).toLowerCase()],
  };
  return page;
}

function loaders(repo: RepoAtCommit, config: Record<string, Value>) {
  const theme = textOf(Array.isArray(config.theme) ? config.theme[0] : config.theme);
  const roots = ["layouts", ...(theme ? [`themes/${theme}/layouts`] : [])];
  const read = (file: string): GoTemplateSource | null => {
    const source = repo.read(file);
    return source === null ? null : { path: file, source };
  };
  return {
    partial(name: string): GoTemplateSource | null {
      const clean = name.replace(/^\/+/, "");
      for (const root of roots) {
        for (const candidate of [`${root}/partials/${clean}`, `${root}/_partials/${clean}`]) {
          const found = read(candidate) ?? (path.posix.extname(clean) ? null : read(`${candidate}.html`));
          if (found) return found;
        }
      }
      return null;
    },
    shortcode(name: string): GoTemplateSource | null {
      for (const root of roots) {
        for (const dir of ["shortcodes", "_shortcodes"]) {
          const found = read(`${root}/${dir}/${name}.html`) ?? read(`${root}/${dir}/${name}.html.html`);
          if (found) return found;
        }
      }
      return null;
    },
    layout(file: string): GoTemplateSource | null {
      return read(file);
    },
    roots,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Shortcodes

type Piece =
  | { t: "text"; v: string }
  | {
      t: "sc";
      name: string;
      markdown: boolean;
      positional: string[];
      named: Record<string, string>;
      isNamed: boolean;
      children: Piece[] | null;
    };

const SHORTCODE_RE = /\{\{([<%])(\/\*)?\s*(\/?)\s*([\w./-]+)([\s\S]*?)(\*\/)?\s*(\/?)\s*([>%])\}\}/g;

interface RawShortcode {
  at: number;
  end: number;
  escaped: boolean;
  closing: boolean;
  selfClosing: boolean;
  markdown: boolean;
  name: string;
  args: string;
  raw: string;
}

function scanShortcodes(body: string): RawShortcode[] {
  const out: RawShortcode[] = [];
  SHORTCODE_RE.lastIndex = 0;
  for (let m = SHORTCODE_RE.exec(body); m; m = SHORTCODE_RE.exec(body)) {
    out.push({
      at: m.index,
      end: SHORTCODE_RE.lastIndex,
      escaped: m[2] === "/*",
      closing: m[3] === "/",
      selfClosing: m[7] === "/",
      markdown: m[1] === "%",
      name: m[4]!,
      args: m[5] ?? "",
      raw: m[0],
    });
  }
  return out;
}

function parseArgs(args: string): { positional: string[]; named: Record<string, string>; isNamed: boolean } {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  const re = /([\w-]+)\s*=\s*("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+)|("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`=]+)/g;
  for (const m of args.matchAll(re)) {
    const unquote = (s: string) =>
      s.startsWith('"') ? s.slice(1, -1).replace(/\\(.)/g, "$1") : s.startsWith("`") ? s.slice(1, -1) : s;
    if (m[1] !== undefined) named[m[1]] = unquote(m[2]!);
    else positional.push(unquote(m[3]!));
  }
  return { positional, named, isNamed: Object.keys(named).length > 0 };
}

/** The body as text and shortcodes, paired ones holding their inner pieces. */
function parseShortcodes(body: string): Piece[] {
  const raws = scanShortcodes(body).filter((r) => !r.escaped || true);
  let i = 0;
  let at = 0;
  const root = readUntil(null);
  return root;

  function readUntil(closeName: string | null): Piece[] {
    const pieces: Piece[] = [];
    while (i < raws.length) {
      const raw = raws[i]!;
      if (raw.at < at) {
        i++;
        continue;
      }
      if (raw.at > at) pieces.push({ t: "text", v: body.slice(at, raw.at) });
      at = raw.end;
      i++;
      if (raw.escaped) {
        // `{{</* name */>}}` shows the shortcode call itself.
        pieces.push({ t: "text", v: raw.raw.replace("/*", "").replace(/\s*\*\/(\s*[>%]\}\})$/, "$1") });
        continue;
      }
      if (raw.closing) {
        if (raw.name === closeName) return pieces;
        continue; // a stray closer
      }
      const { positional, named, isNamed } = parseArgs(raw.args);
      const paired = !raw.selfClosing && hasCloser(raw.name, i);
      const piece: Piece = {
        t: "sc",
        name: raw.name,
        markdown: raw.markdown,
        positional,
        named,
        isNamed,
        children: paired ? readUntil(raw.name) : null,
      };
      pieces.push(piece);
    }
    if (at < body.length && closeName === null) {
      pieces.push({ t: "text", v: body.slice(at) });
      at = body.length;
    }
    return pieces;
  }

  function hasCloser(name: string, from: number): boolean {
    let depth = 0;
    for (let k = from; k < raws.length; k++) {
      const raw = raws[k]!;
      if (raw.escaped || raw.name !== name) continue;
      if (raw.closing) {
        if (depth === 0) return true;
        depth--;
      } else if (!raw.selfClosing) depth++;
    }
    return false;
  }
}

interface HugoContext {
  renderer: GoRenderer;
  loaders: ReturnType<typeof loaders>;
  page: Record<string, Value>;
  site: Site;
}

/** Renders pieces to text: text as it is, shortcodes by their templates (`parent` for `.Parent`). */
function renderPieces(pieces: Piece[], ctx: HugoContext, parent: Value, placeholders: string[] | null): string {
  let out = "";
  let ordinal = 0;
  for (const piece of pieces) {
    if (piece.t === "text") {
      out += piece.v;
      continue;
    }
    const html = renderShortcode(piece, ctx, parent, ordinal++);
    if (placeholders && !piece.markdown) {
      placeholders.push(html);
      out += `HUGOSHORTCODE${placeholders.length - 1}END`;
    } else out += html;
  }
  return out;
}

function renderShortcode(piece: Extract<Piece, { t: "sc" }>, ctx: HugoContext, parent: Value, ordinal: number): string {
  const scratch = new Scratch();
  const shortcode: Record<string, Value> = {
    Name: piece.name,
    Ordinal: ordinal,
    Parent: parent ?? null,
    Page: ctx.page,
    Site: ctx.site,
    Params: piece.isNamed ? piece.named : piece.positional,
    IsNamedParams: piece.isNamed,
    Scratch: scratch,
    Store: scratch,
    Position: "",
    Inner: "",
    InnerDeindent: "",
    Get: (key: Value) =>
      typeof key === "number" ? piece.positional[key] : (piece.named[textOf(key)] ?? undefined),
  };
  // The inner content first: nested shortcodes run now, with this one as their parent.
  const inner = piece.children ? renderPieces(piece.children, ctx, shortcode, null) : "";
  shortcode.Inner = inner;
  shortcode.InnerDeindent = inner;
  const template = ctx.loaders.shortcode(piece.name);
  if (template) return ctx.renderer.render(template, shortcode);
  return builtinShortcode(piece, inner, ctx);
}

/** Hugo's own shortcodes, and any other whose template is missing: its inner content. */
function builtinShortcode(piece: Extract<Piece, { t: "sc" }>, inner: string, ctx: HugoContext): string {
  const get = (name: string, index: number) => piece.named[name] ?? piece.positional[index] ?? "";
  switch (piece.name) {
    case "highlight":
      return `<pre><code>${escapeHtml(inner.replace(/^\n+|\n+$/g, ""))}</code></pre>`;
    case "ref":
    case "relref":
      return "#";
    case "param":
      return show(goField((ctx.page as { Params: Value }).Params, get("name", 0)));
    case "figure": {
      const caption = get("caption", -1) || get("title", -1);
      return `<figure><img src="${escapeHtml(get("src", 0))}" alt="${escapeHtml(get("alt", -1))}">${
        caption ? `<figcaption>${markdownify(caption)}</figcaption>` : ""
      }</figure>`;
    }
    case "youtube":
    case "vimeo":
    case "gist":
    case "tweet":
    case "x":
    case "instagram":
      return "";
    default:
      return piece.markdown ? inner : inner;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Pages

/** A content page: front matter, shortcodes, Markdown (or HTML) to HTML, as its article. */
export function renderHugoContent(repo: RepoAtCommit, file: string, source: string, context: Record<string, Value>): string {
  const config = hugoConfig(repo);
  const site = makeSite(repo, config);
  Object.assign(site, (context.Site as Record<string, Value> | undefined) ?? {});
  const { data, body } = splitFrontMatter(source);
  const page = makePage(file, data, site);
  const load = loaders(repo, config);
  const renderer = new GoRenderer({ loadPartial: load.partial });
  const ctx: HugoContext = { renderer, loaders: load, page, site };
  const placeholders: string[] = [];
  const withCodes = renderPieces(parseShortcodes(body), ctx, null, placeholders);
  const isMarkdown = /\.(md|markdown|mdown|mkd)$/i.test(file);
  let html = isMarkdown ? markdownToHtml(withCodes) : withCodes;
  // A shortcode alone in its paragraph replaces the paragraph (Hugo does not wrap block output in <p>).
  html = html.replace(/<p>HUGOSHORTCODE(\d+)END<\/p>/g, (_, n: string) => placeholders[Number(n)] ?? "");
  html = html.replace(/HUGOSHORTCODE(\d+)END/g, (_, n: string) => placeholders[Number(n)] ?? "");
  const title = textOf(data.title) || null;
  const heading = title && !/<h1[\s>]/i.test(html) ? `<h1>${escapeHtml(title)}</h1>` : "";
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8">${title ? `<title>${escapeHtml(title)}</title>` : ""}</head><body>\n<main><article>${heading}${html}</article></main>\n</body></html>\n`;
}

/**
 * A Go-template layout (`layouts/pricing/single.html`, `layouts/index.html`): rendered with a page whose site reads
 * the repository's configuration and `data/`; when it only defines blocks, through the `baseof.html` beside it or in
 * `_default`.
 */
export function renderGoLayout(repo: RepoAtCommit, file: string, source: string, context: Record<string, Value>): string {
  const config = hugoConfig(repo);
  const site = makeSite(repo, config);
  Object.assign(site, (context.Site as Record<string, Value> | undefined) ?? {});
  const params = (context.Page as Record<string, Value> | undefined) ?? {};
  const page = makePage(file, params, site);
  const load = loaders(repo, config);
  const renderer = new GoRenderer({ loadPartial: load.partial, funcs: goFuncsFrom(context) });
  const nodes = renderer.compile({ path: file, source });
  if (GoRenderer.onlyDefines(nodes)) {
    const dir = path.posix.dirname(file);
    const base =
      load.layout(`${dir}/baseof.html`) ??
      load.roots.map((root) => load.layout(`${root}/_default/baseof.html`)).find((b) => b !== null) ??
      null;
    if (base) return renderer.render(base, page);
    return renderer.renderDefined("main", page) ?? "";
  }
  return renderer.render({ path: file, source }, page);
}

/** Context values that are functions in the template's eyes: none by default (a manifest gives plain values). */
function goFuncsFrom(context: Record<string, Value>): Record<string, (...args: Value[]) => Value> {
  const funcs: Record<string, (...args: Value[]) => Value> = {};
  for (const [name, value] of Object.entries(context)) {
    if (name === "Site" || name === "Page") continue;
    funcs[name] = () => value;
  }
  return funcs;
}
