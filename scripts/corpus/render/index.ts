/**
 * Renders a product's pricing page, as its repository kept it at one commit, to the static HTML a visitor would get,
 * without running any of the product's code (the corpus of test/fixtures/pricing-histories/). Each dialect is read
 * by an interpreter of its own: the brace dialects (Django, Jinja2, Liquid/Jekyll, Twig) in brace.ts, Markdown pages
 * (plain, MkDocs, MDX, Jekyll), Eleventy pages (Nunjucks or Liquid over the site's data and layouts) and Locomotive
 * (Wagon) pages (Liquid with snippets, sections and content entries) here, Go templates (a Go web service's) in go.ts,
 * Hugo sites (content pages and layouts, on go.ts) in hugo.ts, ERB (Rails, Middleman, Sitepress; DocPad's Eco and ECT)
 * in erb.ts, plain PHP pages (HTML assembled with includes) in php.ts, reStructuredText pages (Sphinx, docutils) in
 * rst.ts; Handlebars is not read yet.
 * What only the product's server could compute (a database query, a signed-in visitor's state, a custom tag) renders
 * as nothing.
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import { renderBrace, type BraceDialect, type TemplateSource } from "./brace.js";
import { renderErbPage } from "./erb.js";
import { renderGo } from "./go.js";
import { renderHugoLayout, renderHugoPage } from "./hugo.js";
import { renderPhp } from "./php.js";
import { renderRst } from "./rst.js";
import {
  dataTree,
  escapeHtml,
  kramdownToHtml,
  markdownToHtml,
  member,
  parseStructured,
  siteConfig,
  splitFrontMatter,
  textOf,
  truthy,
  type Value,
} from "./values.js";

export type Dialect =
  BraceDialect | "markdown" | "jekyll" | "eleventy" | "wagon" | "hugo" | "go" | "erb" | "php" | "rst" | "html";

export interface RenderOptions {
  /** The dialect, when the file's extension and content do not tell it. */
  dialect?: Dialect;
  /**
   * The directory the site is kept in, when it is not the repository's root (a Hugo site under `site/` beside the
   * product's code): the page's path is under it, and the site's files are read as if it were the root.
   */
  root?: string;
  /**
   * Values the page's server would supply (`site_name`, a setting; in ERB, a call into the app's code as written,
   * `Subscription.price`), also printed for custom tags of that name.
   */
  context?: Record<string, Value>;
  /** Directory names templates are looked up under, most specific first (default: `templates`, `_includes`, …). */
  templateRoots?: string[];
  /**
   * Filters the product defines in its own code (a Django `price_format`), each written as the chain of the
   * dialect's built-in filters that does the same: `{ "price_format": "intcomma|prepend:'€'" }`.
   */
  filters?: Record<string, string>;
  /**
   * Rails I18n: the locale whose `config/locales/…/*.yml` strings an ERB view's `t(".key")` prints (a Rails view's
   * copy kept in its locale file, prices included). Without it `t` prints its key, as before.
   */
  locale?: string;
  /**
   * Hugo: the environment whose `config/<environment>/` files are merged over `config/_default/`, as Hugo does (a
   * plain `hugo` build is "production"). Unset, only `_default` is read, as before: a site may keep params only there
   * (Cryptomator sets its sales' price ids in `config/production/params.yaml`, which strike its list prices).
   */
  hugoEnvironment?: string;
}

const DEFAULT_ROOTS = ["templates", "_includes", "_layouts", "layouts", "partials", "includes", "views"];

/**
 * The Jekyll site a page belongs to: the nearest directory above it holding `_config.yml` (the repository's root, or
 * a `docs/` or `src/` source directory). Null when there is none.
 */
export function jekyllRoot(repo: RepoAtCommit, file: string): string | null {
  let dir = path.posix.dirname(file);
  for (;;) {
    const base = dir === "." ? "" : dir;
    const prefix = base ? `${base}/` : "";
    if (repo.exists(`${prefix}_config.yml`) || repo.exists(`${prefix}_config.yaml`)) return base;
    if (!base) return null;
    dir = path.posix.dirname(base);
  }
}

const HUGO_CONFIGS = ["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.yml"];

/**
 * Whether the repository is a Hugo site (outside a Jekyll site): a `config.toml`/`hugo.toml`, `_default` or theme
 * layouts, or any `layouts/` beside a Hugo-style configuration file.
 */
export function isHugoSite(repo: RepoAtCommit, file: string): boolean {
  if (jekyllRoot(repo, file) !== null) return false;
  if (repo.exists("config.toml") || repo.exists("hugo.toml")) return true;
  const configured = HUGO_CONFIGS.some((f) => repo.exists(f));
  return repo
    .files()
    .some(
      (f) =>
        f.startsWith("layouts/_default/") ||
        /^themes\/[^/]+\/layouts\//.test(f) ||
        (configured && f.startsWith("layouts/")),
    );
}

/**
 * The directory of a Hugo site kept below the repository's root that a content page belongs to (`site` for
 * `site/content/pricing.md` when `site/` holds a Hugo configuration file and layouts or themes), when the root is
 * neither a Hugo nor a Jekyll site itself; null otherwise.
 */
function nestedHugoRoot(repo: RepoAtCommit, file: string): string | null {
  const match = /^(.+?)\/content\/.+\.(?:md|markdown|mkd|html|htm)$/i.exec(file);
  if (!match) return null;
  const dir = match[1]!;
  if (jekyllRoot(repo, file) !== null || isHugoSite(repo, file)) return null;
  if (!HUGO_CONFIGS.some((f) => repo.exists(`${dir}/${f}`))) return null;
  return repo.files().some((f) => f.startsWith(`${dir}/layouts/`) || f.startsWith(`${dir}/themes/`)) ? dir : null;
}

/** Whether the file is one of a Hugo site's layouts (its own or a theme's). */
function isHugoLayout(repo: RepoAtCommit, file: string): boolean {
  return /^(?:themes\/[^/]+\/)?layouts\//.test(file) && isHugoSite(repo, file);
}

/** The dialect of a page from its extension and markers. */
export function detectDialect(repo: RepoAtCommit, file: string, source: string): Dialect {
  const ext = path.posix.extname(file).toLowerCase();
  const jekyll = jekyllRoot(repo, file) !== null;
  if (isWagonPage(repo, file)) return "wagon";
  if (!jekyll && eleventyConfig(repo) !== null && [".md", ".markdown", ".html", ".njk", ".liquid"].includes(ext))
    return "eleventy";
  if (
    file.startsWith("content/") &&
    [".md", ".markdown", ".mkd", ".html", ".htm"].includes(ext) &&
    isHugoSite(repo, file)
  )
    return "hugo";
  if ([".md", ".markdown", ".mdx", ".mkd"].includes(ext)) return jekyll ? "jekyll" : "markdown";
  if ([".rst", ".rest"].includes(ext)) return "rst";
  if ([".erb", ".markerb", ".eex", ".heex", ".leex", ".eco", ".ect"].includes(ext)) return "erb";
  if (ext === ".php") return "php";
  if (jekyll && /^\uFEFF?---\s*\n/.test(source)) return "jekyll";
  if (/\{\{-?\s*(?:define|range|with|partial|template|\.)\b/.test(source) && !/\{%/.test(source)) return "go";
  if (/\{%\s*(?:load|trans|blocktrans|url)\b/.test(source)) return "django";
  if (/\{%/.test(source) || /\{\{/.test(source)) return jekyll ? "liquid" : "jinja";
  return "html";
}

/** The page's HTML. Throws for a dialect this renderer does not read (the manifest then needs another page). */
export function renderPage(repo: RepoAtCommit, file: string, options: RenderOptions = {}): string {
  if (options.root) {
    const prefix = `${options.root.replace(/^\/+|\/+$/g, "")}/`;
    if (!file.startsWith(prefix)) throw new Error(`${file} is not under the site's root ${prefix}`);
    return renderPage(repo.under(prefix), file.slice(prefix.length), { ...options, root: undefined });
  }
  // A Hugo site moved into a directory of the repository partway through its history (`site/content/pricing.md`
  // beside `site/config.toml`, where earlier commits kept `content/pricing.md` at the root): the manifest's `root` is
  // one for every version, so the site's directory is found from the page's path.
  const nested = options.dialect === undefined ? nestedHugoRoot(repo, file) : null;
  if (nested !== null) return renderPage(repo, file, { ...options, root: nested });
  const source = repo.read(file);
  if (source === null) throw new Error(`${file} is not in ${repo.commit}`);
  const dialect = options.dialect ?? detectDialect(repo, file, source);
  const roots = options.templateRoots ?? DEFAULT_ROOTS;
  const context = options.context ?? {};
  switch (dialect) {
    case "html":
      return wrap(source, null);
    case "django":
    case "jinja":
    case "liquid":
      return wrap(renderServerTemplate(repo, file, source, dialect, roots, context, options.filters), null);
    case "markdown":
      return renderMarkdownPage(source, context);
    case "jekyll":
      return renderJekyll(repo, file, source, context, options.filters);
    case "eleventy":
      return renderEleventy(repo, file, source, context, options.filters);
    case "wagon":
      return renderWagon(repo, file, source, context, options.filters);
    case "hugo": {
      const page = renderHugoPage(repo, file, source, context, options.hugoEnvironment);
      return wrap(page.html, page.title);
    }
    case "go":
      return isHugoLayout(repo, file)
        ? wrap(renderHugoLayout(repo, file, source, context, options.hugoEnvironment), null)
        : wrap(renderGo({ path: file, source }, { load: loader(repo, roots), data: { ...context } }), null);
    case "erb":
      return renderErbPage(repo, file, source, context, options.locale);
    case "php":
      return wrap(renderPhp(repo, file, source, context), null);
    case "rst": {
      const page = renderRst(repo, file, source, context);
      return wrap(page.html, page.title);
    }
    default:
      throw new Error(`${file}: the ${dialect} dialect is not read yet (scripts/corpus/render/${dialect}.ts)`);
  }
}

function loader(repo: RepoAtCommit, roots: string[]) {
  return (name: string, from: string): TemplateSource | null => {
    const found = repo.resolve(name, roots, from);
    if (found === null) return null;
    const source = repo.read(found);
    return source === null ? null : { path: found, source };
  };
}

function renderServerTemplate(
  repo: RepoAtCommit,
  file: string,
  source: string,
  dialect: BraceDialect,
  roots: string[],
  context: Record<string, Value>,
  filters?: Record<string, string>,
): string {
  return renderBrace(
    { path: file, source },
    { dialect, load: loader(repo, roots), globals: { ...context }, serverRendered: dialect !== "liquid", filters },
  );
}

/**
 * A Markdown page of a documentation site (MkDocs, Docusaurus, Read the Docs…): front matter out, MDX imports and
 * exports out, Markdown to HTML; the site's theme is not the page, so the article stands alone under its title.
 */
function renderMarkdownPage(source: string, context: Record<string, Value>): string {
  const { data, body } = splitFrontMatter(source);
  const withoutMdx = mkdocsBlocks(withoutMdxComments(body))
    .replace(/^(?:import|export)\s[^\n]*(?:\n(?![ \t]*\n)[^\n]*)*$/gm, "")
    // Docusaurus' admonitions (`:::tip`) keep their text.
    .replace(/^:::\w*.*$/gm, "")
    // An MDX component's children are Markdown (`<Collapse title="…">` then a list): a tag alone on its line is set
    // apart by blank lines, so that Markdown does not take the lines after it for raw HTML.
    .replace(/^[ \t]*<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>[ \t]*$/gm, "\n$&\n");
  const html = markdownToHtml(withoutMdx);
  const title = textOf(data.title ?? context.title) || null;
  return wrap(
    `<main><article>${title && !/<h1[\s>]/i.test(html) ? `<h1>${escapeHtml(title)}</h1>` : ""}${html}</article></main>`,
    title,
  );
}

/**
 * A Jekyll page: Liquid over the page (with `page`, `site` and `site.data`), Markdown when it is a Markdown file, then
 * its layout chain (`layout:` in front matter, `{{ content }}` where the layout places it).
 */
function renderJekyll(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  filters?: Record<string, string>,
): string {
  const configRoot = jekyllRoot(repo, file) ?? "";
  const config = siteConfig(repo, configRoot);
  // `source:` in the configuration moves the site's files (pages, _data, _layouts, _includes) to that directory.
  const sourceDir = textOf(config.source).replace(/^\.?\/+|\/+$/g, "");
  const sourceRoot = sourceDir && sourceDir !== "." ? path.posix.join(configRoot, sourceDir) : configRoot;
  const root = file.startsWith(`${sourceRoot}/`) ? sourceRoot : configRoot;
  const prefix = root ? `${root}/` : "";
  const site: Record<string, Value> = { ...config, data: dataTree(repo, `${prefix}_data`) };
  const roots = [`${prefix}_includes`, `${prefix}_layouts`, "_includes", "_layouts"];
  // Jekyll's `{% include x %}` reads `_includes/x` only, whatever stands beside the page (a page `pricing.html` that
  // includes `pricing.html` includes `_includes/pricing.html`, not itself); `include_relative` reads beside the page.
  const anywhere = loader(repo, roots);
  const load = (name: string, from: string, kind: string): TemplateSource | null => {
    if (kind === "include") {
      for (const dir of [`${prefix}_includes`, "_includes"]) {
        const file = path.posix.join(dir, name);
        const source = repo.read(file);
        if (source !== null) return { path: file, source };
      }
    }
    return anywhere(name, from);
  };
  const { data: page, body } = splitFrontMatter(source);
  const url = `/${file.slice(prefix.length).replace(/\.(md|markdown|html)$/, "")}`;
  const globals = { ...context, site, page: { ...page, url } };
  const options = { dialect: "liquid" as const, load, globals, serverRendered: false, filters };
  let content = renderBrace({ path: file, source: body }, options);
  if (/\.(md|markdown|mkd)$/i.test(file)) {
    content = kramdownToHtml(content, truthy(member(member(config, "kramdown"), "parse_block_html")));
  }
  content = applyLayouts(
    repo,
    content,
    textOf(page.layout),
    (name) =>
      name === "none" || name === "null"
        ? null
        : (repo.resolve(`${prefix}_layouts/${name}.html`) ??
          repo.resolve(`${name}.html`, ["_layouts"]) ??
          repo.resolve(name, ["_layouts"])),
    (layout, inner) =>
      renderBrace(
        { path: layout.path, source: layout.body },
        { ...options, globals: { ...globals, content: inner, layout: layout.data } },
      ),
  );
  return wrap(content, textOf(page.title) || null);
}

/**
 * A page's layout chain, as Jekyll and Eleventy apply it: the layout its front matter names wraps its content (the
 * layout's `{{ content }}`), then the layout that layout names, at most ten deep. `find` gives a layout's file from its
 * name (null for none: "none", "false"), `render` renders a layout around the content so far.
 */
function applyLayouts(
  repo: RepoAtCommit,
  content: string,
  first: string,
  find: (name: string) => string | null,
  render: (layout: { path: string; body: string; data: Record<string, Value> }, content: string) => string,
): string {
  let out = content;
  let name = first;
  for (let depth = 0; name && depth < 10; depth++) {
    const found = find(name);
    const source = found ? repo.read(found) : null;
    if (!found || source === null) break;
    const { data, body } = splitFrontMatter(source);
    out = render({ path: found, body, data }, out);
    name = textOf(data.layout);
  }
  return out;
}

/** Whether a page is a Locomotive (Wagon) site's: a Liquid page under `app/views/pages/` beside `config/site.yml`. */
export function isWagonPage(repo: RepoAtCommit, file: string): boolean {
  return /^app\/views\/pages\/.+\.liquid$/.test(file) && repo.exists("config/site.yml");
}

/**
 * A Locomotive CMS site kept for Wagon: Liquid pages under `app/views/pages/` (a layout is a page there, named by
 * `{% extends %}`), snippets under `app/views/snippets/` (`{% include %}`), sections under `app/views/sections/`
 * (their content from the page's `sections_content` / `sections_dropzone_content`, the site's `sections_content`,
 * else their definition's default), content entries from `data/<type>.yml` as `contents.<type>` (each entry its
 * fields), the site from `config/site.yml`. Editable elements show the text the template holds.
 */
function renderWagon(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  filters?: Record<string, string>,
): string {
  const json = (value: Value): Value => (typeof value === "string" ? parseJson(value) : value);
  const site = parseStructured(repo.read("config/site.yml") ?? "", "yaml");
  const { data: page, body } = splitFrontMatter(source);
  const entries = dataTree(repo, "data");
  const contents: Record<string, Value> = {};
  for (const type of Object.keys(entries))
    Object.defineProperty(contents, type, {
      enumerable: true,
      // `- "Label": { fields }` → the fields, the label also as `_label` and as the content type's label field
      // (`label_field_name` in app/content_types/<type>.yml); an entry without a label as it is.
      get: () => {
        const definition = parseStructured(repo.read(`app/content_types/${type}.yml`) ?? "", "yaml");
        const labelField = textOf(definition.label_field_name);
        return (iterableOf(entries[type]) ?? []).map((entry) => {
          const pairs = entry && typeof entry === "object" && !Array.isArray(entry) ? Object.entries(entry) : [];
          const only = pairs.length === 1 ? pairs[0]! : null;
          if (!only) return entry;
          const fields = only[1] && typeof only[1] === "object" && !Array.isArray(only[1]) ? only[1] : {};
          return { _label: only[0], ...(labelField ? { [labelField]: only[0] } : {}), ...(fields as object) };
        });
      },
    });
  const locales = site.locales;
  const globals: Record<string, Value> = {
    ...context,
    site,
    page,
    contents,
    locale: Array.isArray(locales) ? locales[0] : undefined,
  };
  const dirs = { extends: "app/views/pages", section: "app/views/sections" } as Record<string, string>;
  const load = (name: string, _from: string, kind: string): TemplateSource | null => {
    const clean = name.replace(/^\/+/, "").replace(/\.liquid$/, "");
    const found = `${dirs[kind] ?? "app/views/snippets"}/${clean}.liquid`;
    const text = repo.read(found);
    if (text === null) return null;
    // A layout is a page: its front matter is not its content.
    return { path: found, source: kind === "extends" ? splitFrontMatter(text).body : text };
  };
  const objectOf = (value: Value): Record<string, Value> =>
    value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, Value>) : {};
  const pageSections = objectOf(json(page.sections_content));
  const siteSections = objectOf(json(site.sections_content));
  const sections = {
    content: (name: string, global: boolean, definition: Record<string, Value>): Value =>
      global
        ? (siteSections[name] ?? definition.global_content ?? definition.default)
        : (pageSections[name] ?? definition.default),
    dropzone: (): Value[] => iterableOf(json(page.sections_dropzone_content)) ?? [],
  };
  const options = { dialect: "liquid" as const, load, globals, serverRendered: false, filters, sections };
  return wrap(renderBrace({ path: file, source: body }, options), textOf(page.title) || null);
}

function iterableOf(value: Value): Value[] | null {
  return Array.isArray(value) ? value : null;
}

/** A JSON text's value (Wagon keeps section content as JSON in YAML strings); undefined when it is not JSON. */
function parseJson(text: string): Value {
  try {
    return JSON.parse(text) as Value;
  } catch {
    return undefined;
  }
}

const ELEVENTY_CONFIGS = [
  "eleventy.config.js",
  "eleventy.config.mjs",
  "eleventy.config.cjs",
  "eleventy.config.ts",
  ".eleventy.js",
  ".eleventy.cjs",
];

/** The text of an Eleventy site's configuration file at the repository's root; null when there is none. */
export function eleventyConfig(repo: RepoAtCommit): string | null {
  for (const name of ELEVENTY_CONFIGS) {
    const text = repo.read(name);
    if (text !== null) return text;
  }
  return null;
}

/**
 * An Eleventy (11ty) site's page: its configuration's `dir` (input, includes, layouts, data: read from the returned
 * object's literal strings), global data from the data directory's JSON/YAML files (JavaScript data files are not
 * run), the page's front matter, the template engine the configuration names for HTML and Markdown files (`njk`:
 * Nunjucks, read as Jinja; otherwise Liquid), Markdown to HTML for a Markdown page, then its layout chain
 * (`layout:` in front matter, looked up under the layouts or includes directory, `{{ content }}` where it goes).
 */
function renderEleventy(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value>,
  filters?: Record<string, string>,
): string {
  const config = eleventyConfig(repo) ?? "";
  const setting = (key: string) =>
    new RegExp(`\\b${key}\\s*:\\s*["'\`]([^"'\`]*)["'\`]`).exec(config)?.[1]?.trim() ?? null;
  const norm = (dir: string) =>
    path.posix
      .normalize(dir)
      .replace(/^\.\/?|\/+$/g, "")
      .replace(/^\.$/, "");
  const input = norm(setting("input") ?? ".");
  const under = (dir: string) => norm(path.posix.join(input || ".", dir));
  const includes = under(setting("includes") ?? "_includes");
  const layouts = setting("layouts") !== null ? under(setting("layouts")!) : includes;
  const data = under(setting("data") ?? "_data");
  const markdown = /\.(md|markdown)$/i.test(file);
  const engine = setting(markdown ? "markdownTemplateEngine" : "htmlTemplateEngine") ?? "liquid";
  const dialect: BraceDialect = /\.njk$/i.test(file) || engine === "njk" ? "jinja" : "liquid";
  const roots = [includes, layouts, "_includes"].filter((dir, i, all) => dir && all.indexOf(dir) === i);
  const { data: page, body } = splitFrontMatter(source);
  const url = `/${file.slice(input ? input.length + 1 : 0).replace(/(?:index)?\.(md|markdown|html|njk|liquid)$/, "")}`;
  const globals: Record<string, Value> = { ...dataTree(repo, data), ...context, ...page, page: { ...page, url } };
  // Eleventy looks an include up in the includes directory only, never beside the page (`plans.html` there is not
  // the page itself).
  const load = (name: string): TemplateSource | null => {
    const clean = name.replace(/^\.?\/+/, "");
    const found = roots.map((root) => `${root}/${clean}`).find((candidate) => repo.exists(candidate)) ?? null;
    const text = found === null ? null : repo.read(found);
    return found === null || text === null ? null : { path: found, source: text };
  };
  const options = { dialect, load, globals, serverRendered: false, filters };
  let content = renderBrace({ path: file, source: body }, options);
  if (markdown) content = markdownToHtml(content);
  content = applyLayouts(
    repo,
    content,
    textOf(page.layout),
    (name) =>
      name === "false"
        ? null
        : (repo.resolve(name, [layouts, includes]) ??
          [".njk", ".html", ".liquid", ".md"]
            .map((ext) => repo.resolve(`${name}${ext}`, [layouts, includes]))
            .find(Boolean) ??
          null),
    (layout, inner) =>
      renderBrace(
        { path: layout.path, source: layout.body },
        {
          ...options,
          dialect: /\.njk$/i.test(layout.path) ? "jinja" : dialect,
          globals: { ...layout.data, ...globals, content: inner, layout: layout.data },
        },
      ),
  );
  return wrap(content, textOf(page.title) || null);
}

/**
 * MDX comments (a JavaScript block comment in braces, on one line or over several) are not shown: they go, except
 * inside fenced code blocks, where they are the sample's text.
 */
export function withoutMdxComments(source: string): string {
  return source
    .split(/^((?:```|~~~)[^\n]*\n[\s\S]*?^(?:```|~~~)[ \t]*$)/m)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/\{\/\*[\s\S]*?\*\/\}/g, "")))
    .join("");
}

/**
 * MkDocs' (Python-Markdown) indented blocks: an admonition (`!!! tip "Title"`, collapsible `??? note`) or a content
 * tab (`=== "Tab"`) shows its title, then its body, which is indented by four spaces under it (not a code block).
 */
export function mkdocsBlocks(source: string): string {
  const lines = source.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^(?:!!!|\?\?\?\+?|===)[ \t]*(?:([\w-]+)[ \t]*)?(?:"([^"]*)")?[ \t]*$/.exec(lines[i]!);
    if (!head || (!head[1] && head[2] === undefined)) {
      out.push(lines[i]!);
      continue;
    }
    const title = head[2] ?? head[1]!.charAt(0).toUpperCase() + head[1]!.slice(1);
    const body: string[] = [];
    while (i + 1 < lines.length && (/^(?: {4}|\t)/.test(lines[i + 1]!) || /^\s*$/.test(lines[i + 1]!))) {
      if (/^\s*$/.test(lines[i + 1]!) && !(i + 2 < lines.length && /^(?: {4}|\t)/.test(lines[i + 2]!))) break;
      body.push(lines[++i]!.replace(/^(?: {4}|\t)/, ""));
    }
    out.push(
      "",
      ...(title ? [`<p><strong>${escapeHtml(title)}</strong></p>`, ""] : []),
      mkdocsBlocks(body.join("\n")),
      "",
    );
  }
  return out.join("\n");
}

/** A fragment becomes a document (a title when the page has one); a whole document is left as it is. */
export function wrap(html: string, title: string | null): string {
  if (/<html[\s>]/i.test(html)) return html;
  const head = `<meta charset="utf-8">${title ? `<title>${escapeHtml(title)}</title>` : ""}`;
  return `<!DOCTYPE html>\n<html><head>${head}</head><body>\n${html}\n</body></html>\n`;
}
