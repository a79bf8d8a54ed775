/**
 * Renders a product's pricing page, as its repository kept it at one commit, to the static HTML a visitor would get,
 * without running any of the product's code (the corpus of bench/pricing-histories/). Each dialect is read by a small
 * interpreter of its own: the brace dialects (Django, Jinja2, Liquid/Jekyll, Twig), Markdown pages (plain, Jekyll,
 * Hugo content), and the ones in go.ts, erb.ts and php.ts. What only the product's server could compute (a database
 * query, a signed-in visitor's state, a custom tag) renders as nothing.
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import { renderBrace, type BraceDialect, type TemplateSource } from "./brace.js";
import { renderErbPage } from "./erb.js";
import { renderGoLayout, renderHugoContent } from "./hugo.js";
import { dataTree, escapeHtml, markdownToHtml, siteConfig, splitFrontMatter, textOf, type Value } from "./values.js";

export type Dialect = BraceDialect | "markdown" | "jekyll" | "hugo" | "go" | "erb" | "php" | "html";

export interface RenderOptions {
  /** The dialect, when the file's extension and content do not tell it. */
  dialect?: Dialect;
  /** Values the page's server would supply (`site_name`, a setting), also printed for custom tags of that name. */
  context?: Record<string, Value>;
  /** Directory names templates are looked up under, most specific first (default: `templates`, `_includes`, …). */
  templateRoots?: string[];
  /**
   * Filters the product defines in its own code (a Django `price_format`), each written as the chain of the
   * dialect's built-in filters that does the same: `{ "price_format": "intcomma|prepend:'€'" }`.
   */
  filters?: Record<string, string>;
}

const DEFAULT_ROOTS = ["templates", "_includes", "_layouts", "layouts", "partials", "includes", "views"];

/** The dialect of a page from its extension and markers. */
export function detectDialect(repo: RepoAtCommit, file: string, source: string): Dialect {
  const ext = path.posix.extname(file).toLowerCase();
  const jekyll = repo.exists("_config.yml") || repo.exists("_config.yaml");
  const hugo =
    !jekyll &&
    (repo.exists("config.toml") ||
      repo.exists("hugo.toml") ||
      repo.files().some((f) => f.startsWith("layouts/_default/") || /^themes\/[^/]+\/layouts\//.test(f)));
  if (hugo && file.startsWith("content/") && [".md", ".markdown", ".mkd", ".html", ".htm"].includes(ext)) return "hugo";
  if ([".md", ".markdown", ".mdx", ".mkd"].includes(ext))
    return jekyll ? "jekyll" : hugo && file.startsWith("content/") ? "hugo" : "markdown";
  if (ext === ".erb" || ext === ".markerb" || ext === ".eex" || ext === ".heex" || ext === ".leex") return "erb";
  if (ext === ".php") return "php";
  if (jekyll && /^\uFEFF?---\s*\n/.test(source)) return "jekyll";
  if (/\{\{-?\s*(?:define|range|with|partial|template|\.)\b/.test(source) && !/\{%/.test(source)) return "go";
  if (/\{%\s*(?:load|trans|blocktrans|url)\b/.test(source)) return "django";
  if (/\{%/.test(source) || /\{\{/.test(source)) return jekyll ? "liquid" : "jinja";
  return "html";
}

/** The page's HTML. Throws for a dialect this renderer does not read (the manifest then needs another page). */
export function renderPage(repo: RepoAtCommit, file: string, options: RenderOptions = {}): string {
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
    case "hugo":
      return renderHugoContent(repo, file, source, context);
    case "go":
      return wrap(renderGoLayout(repo, file, source, context), null);
    case "erb":
      return renderErbPage(repo, file, source, context);
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
  const withoutMdx = body
    .replace(/^(?:import|export)\s[^\n]*(?:\n(?![ \t]*\n)[^\n]*)*$/gm, "")
    // MkDocs' and Docusaurus' admonitions (`!!! note`, `:::tip`) keep their text.
    .replace(/^:::\w*.*$/gm, "")
    .replace(/^!!!\s+\w+.*$/gm, "");
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
  const config = siteConfig(repo);
  const site: Record<string, Value> = { ...config, data: dataTree(repo, "_data") };
  const roots = ["_includes", "_layouts"];
  const { data: page, body } = splitFrontMatter(source);
  const globals = { ...context, site, page: { ...page, url: `/${file.replace(/\.(md|markdown|html)$/, "")}` } };
  const options = { dialect: "liquid" as const, load: loader(repo, roots), globals, serverRendered: false, filters };
  let content = renderBrace({ path: file, source: body }, options);
  if (/\.(md|markdown|mkd)$/i.test(file)) content = markdownToHtml(content);
  let layoutName = textOf(page.layout);
  for (let depth = 0; layoutName && layoutName !== "none" && layoutName !== "null" && depth < 10; depth++) {
    const found = repo.resolve(`${layoutName}.html`, ["_layouts"]) ?? repo.resolve(layoutName, ["_layouts"]);
    const layoutSource = found ? repo.read(found) : null;
    if (!found || layoutSource === null) break;
    const { data: layout, body: layoutBody } = splitFrontMatter(layoutSource);
    content = renderBrace(
      { path: found, source: layoutBody },
      { ...options, globals: { ...globals, content, layout } },
    );
    layoutName = textOf(layout.layout);
  }
  return wrap(content, textOf(page.title) || null);
}

/** A fragment becomes a document (a title when the page has one); a whole document is left as it is. */
export function wrap(html: string, title: string | null): string {
  if (/<html[\s>]/i.test(html)) return html;
  const head = `<meta charset="utf-8">${title ? `<title>${escapeHtml(title)}</title>` : ""}`;
  return `<!DOCTYPE html>\n<html><head>${head}</head><body>\n${html}\n</body></html>\n`;
}
