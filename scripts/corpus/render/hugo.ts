/**
 * Hugo sites, read from the repository at one commit and executed with the Go-template interpreter of go.ts:
 *
 * - the site: its configuration (`hugo.*`/`config.*`, or `config/_default/*` merged), themes (their layouts, data and
 *   translations behind the site's own), `.Site.Params`, `.Site.Data` from `data/`, `.Site.Menus`, i18n;
 * - a content page (Markdown or HTML under `content/`): front matter as `.Params`, shortcodes (`{{< name … >}}…`,
 *   `{{% … %}}`) run from `layouts/shortcodes/` with `.Get`, `.Inner`, `.Parent`, `.Ordinal`, `.Scratch`, `.Page` and
 *   `.Site` (a shortcode whose template is not in the repository shows its inner content), then Markdown. A page its
 *   own layout draws (one named for its type or its `layout`, the way a landing page keeps its plans in the layout)
 *   is rendered through that layout and the `baseof.html` whose blocks it fills; a page only the `_default` layout
 *   would draw is read as its article, as a docs page is (the default layout is the site's chrome around it);
 * - a layout file as the page (`layouts/pricing/single.html`), with the manifest's values as the page's params;
 * - Hugo's template functions (collections, math, strings, partials and `return`, URLs, translations, `Scratch`).
 *
 * Nothing of the product's code runs, and what only Hugo's build could know (resources, remote data, images, other
 * pages) is empty.
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import type { TemplateSource } from "./brace.js";
import {
  goBuiltin,
  goField,
  GoTemplates,
  goTruthy,
  num,
  onlyDefines,
  plain,
  resolveFields,
  SafeHtml,
  same,
  show,
  str,
  type GoFunction,
} from "./go.js";
import {
  dataTree,
  escapeHtml,
  isPlainObject,
  markdownToHtml,
  member,
  mergeMaps,
  parseStructured,
  splitFrontMatter,
  textOf,
  type Value,
} from "./values.js";

interface HugoSite {
  repo: RepoAtCommit;
  /** Layout directories, the site's first, then its themes'. */
  layoutDirs: string[];
  site: Record<string, Value>;
  i18n: Record<string, Value>;
  templates: GoTemplates;
}

// ---------------------------------------------------------------------------------------------------------------
// The site

/**
 * The site configuration: `hugo.*` or `config.*` at the root, else the files of `config/_default/` merged. A site that
 * keeps both (a root `config.toml` added beside `config/_default/` for one setting, as LocalStack's did for `title` and
 * `timeout`) is read as Hugo reads it: the root file, then the configuration directory merged over it (its keys win).
 */
function hugoConfig(repo: RepoAtCommit, environment?: string): Record<string, Value> {
  const dir = configDirectory(repo, environment);
  for (const name of [
    "hugo.toml",
    "hugo.yaml",
    "hugo.yml",
    "hugo.json",
    "config.toml",
    "config.yaml",
    "config.yml",
    "config.json",
  ]) {
    const text = repo.read(name);
    if (text === null) continue;
    const root = parseStructured(text, formatOf(name));
    return dir === null ? root : { ...root, ...dir };
  }
  return dir ?? {};
}

/**
 * The files of `config/_default/` merged, or null when there are none; with an environment (RenderOptions'
 * `hugoEnvironment`), those of `config/<environment>/` merged over them as Hugo merges them (maps key by key): a
 * site may keep some params only there (Cryptomator sets its sales' price ids in `config/production/params.yaml`).
 */
function configDirectory(repo: RepoAtCommit, environment?: string): Record<string, Value> | null {
  // `config/_default/hugo.toml` holds the root keys; `params.toml`, `menus.toml`… hold the key they are named for.
  const files = repo.files();
  const dirFiles = (dir: string) =>
    files.filter((f) => new RegExp(`^config/${dir}/[^/]+\\.(toml|ya?ml|json)$`).test(f));
  const defaults = dirFiles("_default");
  if (defaults.length === 0) return null;
  const merged: Record<string, Value> = {};
  for (const [dir, overlay] of [
    [defaults, false],
    [environment ? dirFiles(environment) : [], true],
  ] as const)
    for (const file of dir) {
      const text = repo.read(file);
      if (text === null) continue;
      const base = path.posix.basename(file).replace(/\.\w+$/, "");
      const value = parseStructured(text, formatOf(file));
      if (base === "config" || base === "hugo") {
        if (overlay && isPlainObject(value)) mergeMaps(merged, value);
        else Object.assign(merged, value);
      } else if (overlay && isPlainObject(merged[base]) && isPlainObject(value)) mergeMaps(merged[base], value);
      else merged[base] = value;
    }
  return merged;
}

function formatOf(file: string): "yaml" | "toml" | "json" {
  return file.endsWith(".toml") ? "toml" : file.endsWith(".json") ? "json" : "yaml";
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

/**
 * The site of a page: configuration, themes, data, translations, and the templates its layouts, partials and
 * shortcodes share. The manifest's `context.Site` is merged over `.Site`; its other values (but `Page`) are
 * functions the templates may call that only the product's build defines, returning those values.
 */
function openSite(repo: RepoAtCommit, context: Record<string, Value>, environment?: string): HugoSite {
  const config = hugoConfig(repo, environment);
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
      const entries = parseStructured(text, formatOf(`.${ext}`));
      if (Array.isArray(entries))
        for (const e of entries as Record<string, Value>[]) i18n[textOf(e.id)] = e.translation;
      else Object.assign(i18n, entries);
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
    Param: (key: Value) => goField(params, str(key)),
    Copyright: config.copyright ?? "",
    Author: config.author ?? {},
    IsServer: false,
    IsMultiLingual: false,
    Hugo: { Generator: new SafeHtml(""), Environment: "production" },
    ...((context.Site as Record<string, Value> | undefined) ?? {}),
  };
  const own = Object.fromEntries(Object.entries(context).filter(([name]) => name !== "Site" && name !== "Page"));
  const hugo: HugoSite = {
    repo,
    layoutDirs,
    site,
    i18n,
    templates: new GoTemplates({
      functions: (name) => (name in own ? () => own[name] : hugoFunction(hugo, name)),
      load: (name) => (name.startsWith("_internal/") ? null : (layout(hugo, name) ?? layout(hugo, `partials/${name}`))),
    }),
  };
  return hugo;
}

function read(repo: RepoAtCommit, file: string): TemplateSource | null {
  const source = repo.read(file);
  return source === null ? null : { path: file, source };
}

/** A layout by its path under `layouts/` (the site's, else a theme's). */
function layout(hugo: HugoSite, name: string): TemplateSource | null {
  for (const dir of hugo.layoutDirs) {
    const found = read(hugo.repo, `${dir}/${name}`);
    if (found) return found;
  }
  return null;
}

function partialTemplate(hugo: HugoSite, name: string): TemplateSource | null {
  const clean = name.replace(/^\/+/, "");
  for (const dir of ["partials", "_partials"]) {
    const found =
      layout(hugo, `${dir}/${clean}`) ?? (path.posix.extname(clean) ? null : layout(hugo, `${dir}/${clean}.html`));
    if (found) return found;
  }
  return null;
}

/** A shortcode's template: `name.html`, or `name.html.html` (for the HTML output format). */
function shortcodeTemplate(hugo: HugoSite, name: string): TemplateSource | null {
  for (const dir of ["shortcodes", "_shortcodes"]) {
    const found = layout(hugo, `${dir}/${name}.html`) ?? layout(hugo, `${dir}/${name}.html.html`);
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Pages

/** Hugo's Scratch (`.Scratch`, `.Store`, `newScratch`): a store templates write to and read back. */
function scratch(): Record<string, Value> {
  const store: Record<string, Value> = {};
  const map = (key: Value) => (store[str(key)] ??= {}) as Record<string, Value>;
  return {
    Set: (key: Value, value: Value) => {
      store[str(key)] = value;
      return "";
    },
    Get: (key: Value) => store[str(key)],
    Add: (key: Value, value: Value) => {
      const current = store[str(key)];
      store[str(key)] = Array.isArray(current)
        ? [...current, ...(Array.isArray(value) ? value : [value])]
        : current === undefined
          ? value
          : typeof current === "number"
            ? current + num(value)
            : str(current) + str(value);
      return "";
    },
    SetInMap: (key: Value, mapKey: Value, value: Value) => {
      map(key)[str(mapKey)] = value;
      return "";
    },
    DeleteInMap: (key: Value, mapKey: Value) => {
      delete map(key)[str(mapKey)];
      return "";
    },
    GetSortedMapValues: (key: Value) => {
      const values = store[str(key)] as Record<string, Value> | undefined;
      return values
        ? Object.keys(values)
            .sort()
            .map((k) => values[k])
        : [];
    },
    Delete: (key: Value) => {
      delete store[str(key)];
      return "";
    },
    Values: () => store,
  };
}

/** A page: `file` is its content file (or the layout that is the page), `frontMatter` its params. */
function makePage(hugo: HugoSite, file: string, frontMatter: Record<string, Value>, body: string) {
  const site = hugo.site;
  const params = site.Params as Record<string, Value>;
  const fm = lowerKeys(frontMatter) as Record<string, Value>;
  const relative = file.replace(/^content\//, "");
  const section = relative.includes("/") ? relative.split("/")[0]! : "";
  const type = textOf(fm.type) || section || "page";
  const layoutName = textOf(fm.layout);
  const slug = relative.replace(/(?:\/?_?index)?\.(md|markdown|html|htm)$/, "");
  const relPermalink = textOf(fm.url) || `/${slug}${slug ? "/" : ""}`;
  const baseURL = textOf(site.BaseURL);
  const page: Record<string, Value> = {
    Title: fm.title ?? "",
    LinkTitle: fm.linktitle ?? fm.title ?? "",
    Description: fm.description ?? "",
    Summary: "",
    Params: fm,
    Type: type,
    Layout: layoutName,
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
    Lang: (site.Language as Record<string, Value>).Lang,
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
    Param: (key: Value) => goField(fm, str(key)) ?? goField(params, str(key)),
    GetParam: (key: Value) => goField(fm, str(key)),
    HasShortcode: (name: Value) => new RegExp(`\\{\\{[<%]\\s*${str(name)}\\b`).test(body),
    IsMenuCurrent: () => false,
    HasMenuCurrent: () => false,
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
  return { page, type, layoutName };
}

/**
 * The page's HTML through a layout; a layout that only defines blocks fills the `baseof.html` of the page's type
 * (else `_default`), or without one is its `main` block.
 */
function renderLayout(hugo: HugoSite, template: TemplateSource, type: string, page: Value): string {
  const nodes = hugo.templates.parse(template, true);
  if (!onlyDefines(nodes)) return hugo.templates.render(template, page);
  const base = layout(hugo, `${type}/baseof.html`) ?? layout(hugo, "_default/baseof.html");
  if (base) return hugo.templates.render(base, page);
  return hugo.templates.renderDefined("main", page) ?? "";
}

/**
 * A content page: its own layout's rendering when it has one (see the module comment), else its article under its
 * title. `title` is the article's, for the document around it.
 */
export function renderHugoPage(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  environment?: string,
): { html: string; title: string | null } {
  const hugo = openSite(repo, context, environment);
  const { data, body } = splitFrontMatter(source);
  const { page, type, layoutName } = makePage(hugo, file, data, body);
  // Shortcodes, then Markdown (raw HTML kept, as sites whose pages hold HTML configure Goldmark); the output of a
  // `{{< >}}` shortcode is kept aside from Markdown, and replaces the paragraph it stands alone in.
  const kept: string[] = [];
  const expanded = renderPieces(parseShortcodes(body), { hugo, page }, null, kept);
  let content = /\.(md|markdown|mdown|mkd)$/i.test(file) ? markdownToHtml(expanded) : expanded;
  content = content
    .replace(/<p>HUGOSHORTCODE(\d+)END<\/p>/g, (_, n: string) => kept[Number(n)] ?? "")
    .replace(/HUGOSHORTCODE(\d+)END/g, (_, n: string) => kept[Number(n)] ?? "");
  page.Content = new SafeHtml(content);
  page.Summary = new SafeHtml(
    content
      .split(/<!--more-->/)[0]!
      .replace(/<[^>]*>/g, "")
      .slice(0, 300),
  );
  page.Plain = content.replace(/<[^>]*>/g, "");

  // A section's `_index` file is a list page: Hugo draws it with its type's `list.html` (or `section/<name>.html`),
  // not `single.html`, and a site may keep the two apart (one commenting out a menu the other draws, or a list
  // layout that does not show `.Content` at all). Sites whose section has no list layout keep their `single.html`.
  const section = textOf(page.Section);
  const isSectionIndex = section !== "" && /\/_index\.[^/]+$/.test(file);
  const listLayouts = isSectionIndex ? [`${type}/list.html`, `section/${section}.html`] : [];
  const own = [...(layoutName ? [`${type}/${layoutName}.html`] : []), ...listLayouts, `${type}/single.html`];
  if (layoutName) own.push(`_default/${layoutName}.html`);
  const template = own.map((name) => layout(hugo, name)).find((found) => found !== null);
  if (template) return { html: renderLayout(hugo, template, type, page), title: null };
  const title = textOf(data.title) || null;
  const heading = title && !/<h1[\s>]/i.test(content) ? `<h1>${escapeHtml(title)}</h1>` : "";
  return { html: `<main><article>${heading}${content}</article></main>`, title };
}

/** A layout file as the page: the manifest's `context.Page` gives the page's params. */
export function renderHugoLayout(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  environment?: string,
): string {
  const hugo = openSite(repo, context, environment);
  const { page } = makePage(hugo, file, (context.Page as Record<string, Value> | undefined) ?? {}, "");
  const type = path.posix.dirname(file.replace(/^(?:themes\/[^/]+\/)?layouts\//, ""));
  return renderLayout(hugo, { path: file, source }, type, page);
}

// ---------------------------------------------------------------------------------------------------------------
// Shortcodes

type Piece =
  | { t: "text"; v: string }
  | {
      t: "shortcode";
      name: string;
      markdown: boolean;
      positional: string[];
      named: Record<string, string>;
      children: Piece[] | null;
    };

const SHORTCODE_RE = /\{\{([<%])(\/\*)?\s*(\/?)\s*([\w./-]+)([\s\S]*?)(\*\/)?\s*(\/?)\s*([>%])\}\}/g;

interface RawShortcode {
  at: number;
  end: number;
  /** An escaped call (a comment inside the delimiters): the call itself, shown as text. */
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

function parseArgs(args: string): { positional: string[]; named: Record<string, string> } {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  const re = /([\w-]+)\s*=\s*("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+)|("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`=]+)/g;
  const unquote = (s: string) =>
    s.startsWith('"') ? s.slice(1, -1).replace(/\\(.)/g, "$1") : s.startsWith("`") ? s.slice(1, -1) : s;
  for (const m of args.matchAll(re)) {
    if (m[1] !== undefined) named[m[1]] = unquote(m[2]!);
    else positional.push(unquote(m[3]!));
  }
  return { positional, named };
}

/** The body as text and shortcodes, a paired shortcode holding the pieces up to its closing tag. */
function parseShortcodes(body: string): Piece[] {
  const raws = scanShortcodes(body);
  let i = 0;
  let at = 0;
  const hasCloser = (name: string, from: number): boolean => {
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
  };
  const readUntil = (closeName: string | null): Piece[] => {
    const pieces: Piece[] = [];
    while (i < raws.length) {
      const raw = raws[i++]!;
      if (raw.at > at) pieces.push({ t: "text", v: body.slice(at, raw.at) });
      at = raw.end;
      if (raw.escaped) {
        pieces.push({ t: "text", v: raw.raw.replace("/*", "").replace(/\s*\*\/(\s*[>%]\}\})$/, "$1") });
        continue;
      }
      if (raw.closing) {
        if (raw.name === closeName) return pieces;
        continue; // a stray closing tag
      }
      const { positional, named } = parseArgs(raw.args);
      const paired = !raw.selfClosing && hasCloser(raw.name, i);
      pieces.push({
        t: "shortcode",
        name: raw.name,
        markdown: raw.markdown,
        positional,
        named,
        children: paired ? readUntil(raw.name) : null,
      });
    }
    if (at < body.length && closeName === null) {
      pieces.push({ t: "text", v: body.slice(at) });
      at = body.length;
    }
    return pieces;
  };
  return readUntil(null);
}

interface PageContext {
  hugo: HugoSite;
  page: Record<string, Value>;
}

/**
 * Pieces to text: shortcodes by their templates, `parent` being the shortcode they are inside (`.Parent`). With
 * `kept`, the output of a `{{< >}}` shortcode is kept there and a placeholder stands for it.
 */
function renderPieces(pieces: Piece[], ctx: PageContext, parent: Value, kept: string[] | null): string {
  let out = "";
  let ordinal = 0;
  for (const piece of pieces) {
    if (piece.t === "text") {
      out += piece.v;
      continue;
    }
    const html = renderShortcode(piece, ctx, parent, ordinal++);
    if (kept && !piece.markdown) {
      kept.push(html);
      out += `HUGOSHORTCODE${kept.length - 1}END`;
    } else out += html;
  }
  return out;
}

function renderShortcode(
  piece: Extract<Piece, { t: "shortcode" }>,
  ctx: PageContext,
  parent: Value,
  ordinal: number,
): string {
  const isNamed = Object.keys(piece.named).length > 0;
  const store = scratch();
  const shortcode: Record<string, Value> = {
    Name: piece.name,
    Ordinal: ordinal,
    Parent: parent,
    Page: ctx.page,
    Site: ctx.hugo.site,
    Params: isNamed ? piece.named : piece.positional,
    IsNamedParams: isNamed,
    Scratch: store,
    Store: store,
    Position: "",
    Get: (key: Value) =>
      typeof key === "number"
        ? piece.positional[key]
        : (piece.named[str(key)] ?? (/^\d+$/.test(str(key)) ? piece.positional[Number(key)] : undefined)),
  };
  // The inner content first: the shortcodes inside run now, with this one as their parent.
  const inner = piece.children ? renderPieces(piece.children, ctx, shortcode, null) : "";
  shortcode.Inner = new SafeHtml(inner);
  shortcode.InnerDeindent = new SafeHtml(inner);
  const template = shortcodeTemplate(ctx.hugo, piece.name);
  if (template) return ctx.hugo.templates.render(template, shortcode);
  return builtinShortcode(piece, inner, ctx);
}

/** Hugo's own shortcodes, and any other whose template is not in the repository: its inner content. */
function builtinShortcode(piece: Extract<Piece, { t: "shortcode" }>, inner: string, ctx: PageContext): string {
  const get = (name: string, index: number) => piece.named[name] ?? piece.positional[index] ?? "";
  switch (piece.name) {
    case "highlight":
      return `<pre><code>${escapeHtml(inner.replace(/^\n+|\n+$/g, ""))}</code></pre>`;
    case "ref":
    case "relref":
      return "#";
    case "param":
      return show(goField(ctx.page.Params, get("name", 0)));
    case "figure": {
      const caption = get("caption", -1) || get("title", -1);
      const figcaption = caption ? `<figcaption>${markdownify(caption).html}</figcaption>` : "";
      return `<figure><img src="${escapeHtml(get("src", 0))}" alt="${escapeHtml(get("alt", -1))}">${figcaption}</figure>`;
    }
    case "youtube":
    case "vimeo":
    case "gist":
    case "tweet":
    case "x":
    case "instagram":
      return "";
    default:
      return inner;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Functions

const list = (v: Value): Value[] =>
  Array.isArray(v) ? v : v && typeof v === "object" && !(v instanceof SafeHtml) ? Object.values(v) : [];

/** Hugo's markdownify: Markdown to HTML, without the paragraph around a single paragraph. */
function markdownify(text: string): SafeHtml {
  const html = markdownToHtml(text).trim();
  const single = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return new SafeHtml(single && !single[1]!.includes("<p>") ? single[1]! : html);
}

/** Hugo's `default`: the given value when it is set (not nil, zero, or empty; false is set), else the default. */
function isSet(value: Value): boolean {
  const v = plain(value);
  if (v === null || v === undefined) return false;
  if (typeof v === "boolean") return true;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string" || Array.isArray(v)) return v.length > 0;
  if (v instanceof Date) return !Number.isNaN(v.getTime());
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

function regex(source: Value, flags = "g"): RegExp | null {
  try {
    return new RegExp(str(source), flags);
  } catch {
    return null;
  }
}

/** Go's `strings.Trim*` cutsets as a character class. */
const cutset = (chars: Value) => `[${str(chars).replace(/[\]\\^-]/g, "\\$&")}]`;

/** Hugo's function of that name or namespaced name (`strings.Contains`), or null when Hugo defines none. */
function hugoFunction(hugo: HugoSite, name: string): GoFunction | null {
  const site = hugo.site;
  const go = (builtin: string) => goBuiltin(builtin, false);
  switch (name) {
    case "compare.Eq":
      return go("eq");
    case "compare.Ne":
      return go("ne");
    case "compare.Lt":
      return go("lt");
    case "compare.Le":
      return go("le");
    case "compare.Gt":
      return go("gt");
    case "compare.Ge":
      return go("ge");
    case "collections.Index":
      return go("index");
    case "fmt.Print":
      return go("print");
    case "fmt.Println":
      return go("println");
    case "fmt.Printf":
      return go("printf");
    // Templates
    case "partial":
    case "partialCached":
    case "partials.Include":
    case "partials.IncludeCached":
      return (partial, context) => {
        const found = partialTemplate(hugo, str(partial));
        return found ? hugo.templates.partial(found, context) : new SafeHtml("");
      };
    case "templates.Exists":
      return (template) => layout(hugo, str(template)) !== null || partialTemplate(hugo, str(template)) !== null;
    // Collections
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
      return (fallback, value) => (isSet(value) ? value : fallback);
    case "cond":
    case "compare.Conditional":
      return (c, a, b) => (goTruthy(c) ? a : b);
    case "isset":
      return (v, k) => {
        const x = plain(v);
        if (Array.isArray(x)) return num(k) < x.length;
        return x !== null && typeof x === "object" && goField(x, str(k)) !== undefined;
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
            case "intersect":
              return list(v).some((x) => list(wanted).some((w) => same(w, x)));
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
      // The last map's keys win.
      return (...maps) => Object.assign({}, ...maps.map((m) => (m && typeof m === "object" ? m : {})));
    case "uniq":
    case "collections.Uniq":
      return (coll) => [...new Set(list(coll))];
    case "reverse":
    case "collections.Reverse":
      return (coll) => [...list(coll)].reverse();
    case "shuffle":
    case "collections.Shuffle":
      return (coll) => list(coll);
    case "union":
    case "collections.Union":
      return (a, b) => [...new Set([...list(a), ...list(b)])];
    case "intersect":
    case "collections.Intersect":
      return (a, b) => list(a).filter((x) => list(b).some((y) => same(x, y)));
    case "complement":
    case "collections.Complement":
      return (...a) => {
        const coll = list(a[a.length - 1]);
        const others = a.slice(0, -1).flatMap(list);
        return coll.filter((x) => !others.some((y) => same(x, y)));
      };
    case "group":
    case "collections.Group":
      return (_key, pages) => pages;
    case "querify":
    case "collections.Querify":
      // url.Values.Encode: keys in order, keys and values escaped
      return (...a) => {
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < a.length; i += 2) pairs.push([str(a[i]), str(a[i + 1])]);
        const escape = (text: string) => encodeURIComponent(text).replace(/%20/g, "+");
        return pairs
          .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
          .map(([k, v]) => `${escape(k)}=${escape(v)}`)
          .join("&");
      };
    case "apply":
    case "collections.Apply":
      return () => [];
    case "reflect.IsMap":
      return (v) => !!v && typeof v === "object" && !Array.isArray(v) && !(v instanceof SafeHtml);
    case "reflect.IsSlice":
      return (v) => Array.isArray(v);
    // Math
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
    case "lang.FormatNumber":
    case "lang.FormatNumberCustom":
      return (precision, n) => {
        const [int, frac] = num(n).toFixed(num(precision)).split(".");
        return int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac ? `.${frac}` : "");
      };
    // Strings
    case "lower":
    case "strings.ToLower":
      return (a) => str(a).toLowerCase();
    case "upper":
    case "strings.ToUpper":
      return (a) => str(a).toUpperCase();
    case "title":
    case "strings.Title":
      return (a) => str(a).replace(/(^|[\s-])(\w)/g, (_, p: string, c: string) => p + c.toUpperCase());
    case "strings.FirstUpper":
      return (a) => str(a).charAt(0).toUpperCase() + str(a).slice(1);
    case "humanize":
    case "inflect.Humanize":
      return (a) => {
        const s = str(a).replace(/[-_]+/g, " ").trim();
        return s.charAt(0).toUpperCase() + s.slice(1);
      };
    case "singularize":
    case "pluralize":
    case "emojify":
      return (a) => a;
    case "chomp":
    case "strings.Chomp":
      return (a) => str(a).replace(/[\r\n]+$/, "");
    case "anchorize":
    case "urls.Anchorize":
      return (a) =>
        str(a)
          .trim()
          .toLowerCase()
          .replace(/<[^>]*>/g, "")
          .replace(/[^\p{L}\p{N}_\- ]+/gu, "")
          .replace(/ /g, "-");
    case "urlize":
    case "urls.URLize":
      return (a) => str(a).trim().toLowerCase().replace(/\s+/g, "-");
    case "replace":
    case "strings.Replace":
      return (s, a, b) => str(s).split(str(a)).join(str(b));
    case "replaceRE":
    case "strings.ReplaceRE":
      return (re, replacement, s) =>
        str(s).replace(regex(re) ?? /$^/, str(replacement).replace(/\$\{?(\d+)\}?/g, "$$$1"));
    case "findRE":
    case "strings.FindRE":
      return (re, s) => {
        const pattern = regex(re);
        return pattern ? (str(s).match(pattern) ?? []) : [];
      };
    case "split":
    case "strings.Split":
      return (s, separator) => str(s).split(str(separator));
    case "delimit":
    case "collections.Delimit":
      return (coll, separator, lastSeparator) => {
        const items = list(coll).map(str);
        if (lastSeparator !== undefined && items.length > 1)
          return items.slice(0, -1).join(str(separator)) + str(lastSeparator) + items[items.length - 1];
        return items.join(str(separator));
      };
    case "trim":
    case "strings.Trim":
      return (s, chars) => str(s).replace(new RegExp(`^${cutset(chars)}+|${cutset(chars)}+$`, "g"), "");
    case "strings.TrimLeft":
      return (chars, s) => str(s).replace(new RegExp(`^${cutset(chars)}+`), "");
    case "strings.TrimRight":
      return (chars, s) => str(s).replace(new RegExp(`${cutset(chars)}+$`), "");
    case "strings.TrimSpace":
      return (s) => str(s).trim();
    case "strings.TrimPrefix":
      return (p, s) => (str(s).startsWith(str(p)) ? str(s).slice(str(p).length) : str(s));
    case "strings.TrimSuffix":
      return (p, s) => (str(p) && str(s).endsWith(str(p)) ? str(s).slice(0, -str(p).length) : str(s));
    case "strings.Contains":
      return (s, sub) => str(s).includes(str(sub));
    case "strings.ContainsAny":
      return (s, chars) => [...str(chars)].some((c) => str(s).includes(c));
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
    case "htmlEscape":
    case "transform.HTMLEscape":
      return (a) => escapeHtml(str(a));
    case "htmlUnescape":
    case "transform.HTMLUnescape":
      return (a) =>
        str(a)
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;|&#34;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, "&");
    case "markdownify":
    case "transform.Markdownify":
      return (a) => markdownify(str(a));
    case "highlight":
    case "transform.Highlight":
      return (code) => new SafeHtml(`<pre><code>${escapeHtml(str(code))}</code></pre>`);
    case "plainify":
    case "transform.Plainify":
      return (a) => str(a).replace(/<[^>]*>/g, "");
    case "jsonify":
    case "encoding.Jsonify":
      return (...a) => {
        try {
          return JSON.stringify(plain(a[a.length - 1]));
        } catch {
          return "";
        }
      };
    case "unmarshal":
    case "transform.Unmarshal":
      // A string of JSON, TOML or YAML (the last argument; a resource's content is not read).
      return (...a) => {
        const text = str(a[a.length - 1]).trim();
        try {
          if (/^[[{]/.test(text)) return JSON.parse(text) as Value;
          return parseStructured(
            text,
            /^\s*(?:\[[^\]]+\]|[\w.-]+\s*=)/m.test(text) && !/^\s*[\w.-]+\s*:/m.test(text) ? "toml" : "yaml",
          );
        } catch {
          return null;
        }
      };
    case "base64Encode":
    case "encoding.Base64Encode":
      return (a) => Buffer.from(str(a)).toString("base64");
    case "md5":
    case "sha1":
    case "sha256":
    case "crypto.MD5":
    case "crypto.SHA1":
    case "crypto.SHA256":
      return () => "";
    // URLs and translations
    case "absURL":
    case "absLangURL":
    case "urls.AbsURL":
    case "urls.AbsLangURL":
      return (a) => {
        const u = str(a);
        if (/^[a-z]+:/i.test(u)) return u;
        return `${textOf(site.BaseURL).replace(/\/+$/, "")}/${u.replace(/^\/+/, "")}`;
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
        const entry = hugo.i18n[str(key)];
        if (entry && typeof entry === "object") return textOf(goField(entry, "other") ?? goField(entry, "one"));
        return entry === undefined ? "" : textOf(entry);
      };
    // Time, files, the environment
    case "now":
    case "time.Now":
      return () => timeValue(new Date(0));
    case "time":
    case "time.AsTime":
      return (a) => timeValue(new Date(str(a)));
    case "dateFormat":
    case "time.Format":
      return (layoutText, d) => formatDate(str(layoutText), d instanceof Date ? d : new Date(str(d)));
    case "readFile":
    case "os.ReadFile":
      return (p) => hugo.repo.read(str(p)) ?? "";
    case "fileExists":
    case "os.FileExists":
      return (p) => hugo.repo.exists(str(p));
    case "getenv":
    case "os.Getenv":
      return () => "";
    case "site":
      return () => site;
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
    case "fmt.Erroridf":
      return () => "";
    case "newScratch":
    case "collections.NewScratch":
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

function timeValue(d: Date): Record<string, Value> {
  const valid = !Number.isNaN(d.getTime());
  return {
    Unix: () => (valid ? Math.floor(d.getTime() / 1000) : 0),
    Year: () => (valid ? d.getUTCFullYear() : 0),
    Month: () => (valid ? d.getUTCMonth() + 1 : 0),
    Day: () => (valid ? d.getUTCDate() : 0),
    Format: (layoutText: Value) => (valid ? formatDate(str(layoutText), d) : ""),
    IsZero: () => !valid,
  };
}

const MONTHS = [
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
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Go's time.Format with its reference-time layout (`2006-01-02`, `Jan 2, 2006`). */
function formatDate(layoutText: string, d: Date): string {
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return layoutText.replace(/2006|January|Jan|Monday|Mon|01|02|15|03|04|05|_2|1|2|06/g, (t) => {
    switch (t) {
      case "2006":
        return String(d.getUTCFullYear());
      case "06":
        return String(d.getUTCFullYear()).slice(2);
      case "January":
        return MONTHS[d.getUTCMonth()]!;
      case "Jan":
        return MONTHS[d.getUTCMonth()]!.slice(0, 3);
      case "Monday":
        return DAYS[d.getUTCDay()]!;
      case "Mon":
        return DAYS[d.getUTCDay()]!.slice(0, 3);
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
