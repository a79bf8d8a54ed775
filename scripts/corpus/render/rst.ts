/**
 * reStructuredText pages (Sphinx and docutils documentation): a small reader of the markup such pages are written in,
 * to the HTML of the page's article (the documentation theme around it is not the page). It reads section titles
 * (underlined, or over- and underlined; levels in the order their styles first appear), paragraphs, bullet and
 * enumerated lists, definition and field lists, literal blocks (`::`), block quotes, line blocks, transitions, grid
 * and simple tables, footnotes, comments and hyperlink targets, and the common directives: admonitions (`note`,
 * `warning`…), images and figures, code blocks, `raw` HTML, `include`/`literalinclude` (read from the repository),
 * `list-table` and `csv-table`; any other directive shows its content, under its argument when that is a title (a
 * tab, a card, a topic), and nothing when it has none (`toctree`, `index`). Inline: strong, emphasis, literals,
 * hyperlink references (embedded URLs, named and anonymous targets), standalone URLs, substitutions (`replace::`, else
 * the render context's value of that name), footnote references and the common roles (Sphinx's `:doc:` shows the
 * other page's title). Field lists before the document's first block are Sphinx metadata (`:orphan:`): not shown.
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import { escapeHtml, textOf, type Value } from "./values.js";

interface Doc {
  repo: RepoAtCommit;
  /** The Sphinx source directory (where `conf.py` is), which `/`-rooted paths are relative to. */
  sourceDir: string;
  context: Record<string, Value>;
  targets: Map<string, string>;
  anonymous: string[];
  anonymousUsed: number;
  substitutions: Map<string, string>;
  /** Auto-numbered footnotes (`[#]`, `[#name]`) in the order they are defined; references take them in turn. */
  footnotes: { labels: string[]; referenced: number; defined: number };
  /** Section title styles in the order they first appear: a style's index is its level. */
  styles: string[];
  title: string | null;
  depth: number;
}

/** The page's article and its title (the first section title). */
export function renderRst(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value> = {},
): { html: string; title: string | null } {
  let sourceDir = path.posix.dirname(file);
  while (sourceDir !== "." && !repo.exists(`${sourceDir}/conf.py`)) sourceDir = path.posix.dirname(sourceDir);
  const doc: Doc = {
    repo,
    sourceDir: sourceDir === "." ? "" : sourceDir,
    context,
    targets: new Map(),
    anonymous: [],
    anonymousUsed: 0,
    substitutions: new Map(),
    footnotes: { labels: [], referenced: 0, defined: 0 },
    styles: [],
    title: null,
    depth: 0,
  };
  const lines = toLines(source);
  collectDefinitions(doc, lines);
  // Sphinx's file-wide metadata: a field list before anything else.
  let start = 0;
  while (start < lines.length && (lines[start] === "" || FIELD.test(lines[start]!))) start++;
  const html = blocks(doc, lines.slice(start), file);
  return { html: `<main><article>${html}</article></main>`, title: doc.title };
}

function toLines(source: string): string[] {
  return source
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => expandTabs(line).replace(/\s+$/, ""));
}

function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const ch of line) out += ch === "\t" ? " ".repeat(8 - (out.length % 8)) : ch;
  return out;
}

const normalName = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * Hyperlink targets (`.. _name: URL`, `.. __: URL`, `__ URL`), substitutions (`.. |name| replace:: text`) and
 * auto-numbered footnotes, anywhere.
 */
function collectDefinitions(doc: Doc, lines: string[]): void {
  for (let i = 0; i < lines.length; i++) {
    const footnote = /^\s*\.\. \[(#[^\]]*)\]/.exec(lines[i]!);
    if (footnote) doc.footnotes.labels.push(footnote[1]!);
    const short = /^\s*__ (\S+)$/.exec(lines[i]!);
    if (short) doc.anonymous.push(short[1]!);
    const target = /^\s*\.\. (?:_`([^`]+)`|_([^:`][^:]*)|(__)):(?:\s+(.*))?$/.exec(lines[i]!);
    if (target) {
      let url = target[4] ?? "";
      for (let k = i + 1; k < lines.length && /^\s+\S/.test(lines[k]!) && !/^\s*\.\./.test(lines[k]!); k++)
        url += lines[k]!.trim();
      url = url.replace(/\s+/g, "");
      if (target[3]) doc.anonymous.push(url);
      else if (url) doc.targets.set(normalName(target[1] ?? target[2]!), url);
      continue;
    }
    const sub = /^\s*\.\. \|([^|]+)\|\s+replace::\s*(.*)$/.exec(lines[i]!);
    if (sub) doc.substitutions.set(sub[1]!.trim(), sub[2]!);
  }
  // A target that names another target (`.. _a: b_`) is that target's URL.
  for (const [name, url] of doc.targets) {
    const alias = /^`?([^`]+?)`?_$/.exec(url);
    if (alias) doc.targets.set(name, doc.targets.get(normalName(alias[1]!)) ?? "");
  }
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const ADORNMENT = /^([!-/:-@[-`{-~])\1+$/;

/** Lines from `from` that are blank or indented by at least `min`, without trailing blank lines. */
function indentedBlock(lines: string[], from: number, min = 1): string[] {
  let end = from;
  while (end < lines.length && (lines[end] === "" || indentOf(lines[end]!) >= min)) end++;
  while (end > from && lines[end - 1] === "") end--;
  return lines.slice(from, end);
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line !== "").map(indentOf);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(cut));
}

/**
 * A list's items (their markers and bodies): each from its marker to the next line indented less than its text (a
 * field's body: indented at all).
 */
function listItems(
  lines: string[],
  from: number,
  marker: RegExp,
  field = false,
): { items: string[][]; markers: string[]; end: number } {
  const items: string[][] = [];
  const markers: string[] = [];
  let i = from;
  while (i < lines.length) {
    const match = marker.exec(lines[i]!);
    if (!match) break;
    const column = match[0].length;
    const bare = lines[i]!.length === column;
    const rest = indentedBlock(lines, i + 1, field || bare ? 1 : column);
    const body = field || bare ? dedent(rest) : rest.map((line) => line.slice(Math.min(column, indentOf(line))));
    items.push([lines[i]!.slice(column), ...body]);
    markers.push(match[0].trim());
    i += 1 + rest.length;
    while (i < lines.length && lines[i] === "") i++;
  }
  while (i > from && lines[i - 1] === "") i--;
  return { items, markers, end: i };
}

const BULLET = /^[-*+\u2022\u2023\u2043] +|^[-*+\u2022\u2023\u2043]$/;
const FIELD = /^:[^:\s][^:]*:(?: +|$)/;
const ENUMERATOR = /^(?:\(?(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)\)|(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)\.)(?: +|$)/;

/** Block-level markup to HTML. */
function blocks(doc: Doc, lines: string[], file: string): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? "";
    if (line === "") {
      i++;
      continue;
    }
    if (indentOf(line) > 0) {
      const quote = indentedBlock(lines, i);
      out.push(`<blockquote>${blocks(doc, dedent(quote), file)}</blockquote>`);
      i += quote.length;
      continue;
    }
    // A section title, over- and underlined or underlined.
    const over = ADORNMENT.exec(line);
    if (over && next.trim() && ADORNMENT.test(lines[i + 2] ?? "") && lines[i + 2]![0] === over[1]) {
      out.push(heading(doc, `over${over[1]}`, next.trim(), file));
      i += 3;
      continue;
    }
    const under = ADORNMENT.exec(next);
    if (under && !over && next.length >= Math.min(line.trim().length, 4)) {
      out.push(heading(doc, under[1]!, line.trim(), file));
      i += 2;
      continue;
    }
    if (over && line.length >= 4 && next === "") {
      out.push("<hr>");
      i++;
      continue;
    }
    if (/^__ \S/.test(line)) {
      i += 1 + indentedBlock(lines, i + 1).length;
      continue;
    }
    if (/^\.\.(?: |$)/.test(line)) {
      // An empty comment followed by a blank line ends there (it separates what follows).
      const block = line === ".." && next === "" ? [] : indentedBlock(lines, i + 1);
      out.push(explicit(doc, line.slice(2).trim(), block, file));
      i += 1 + block.length;
      continue;
    }
    if (/^\+[-=+]+\+$/.test(line)) {
      let end = i;
      while (end < lines.length && /^[+|]/.test(lines[end]!)) end++;
      out.push(gridTable(doc, lines.slice(i, end), file));
      i = end;
      continue;
    }
    if (/^=+(?: +=+)+$/.test(line)) {
      const end = simpleTableEnd(lines, i);
      out.push(simpleTable(doc, lines.slice(i, end), file));
      i = end;
      continue;
    }
    const list = BULLET.test(line) ? BULLET : ENUMERATOR.test(line) ? ENUMERATOR : null;
    if (list) {
      const { items, end } = listItems(lines, i, list);
      const tag = list === BULLET ? "ul" : "ol";
      out.push(`<${tag}>${items.map((item) => `<li>${blocks(doc, item, file)}</li>`).join("")}</${tag}>`);
      i = end;
      continue;
    }
    if (FIELD.test(line)) {
      const { items, markers, end } = listItems(lines, i, FIELD, true);
      const fields = items.map(
        (item, k) => `<dt>${inline(doc, markers[k]!.slice(1, -1), file)}</dt><dd>${blocks(doc, item, file)}</dd>`,
      );
      out.push(`<dl class="field-list">${fields.join("")}</dl>`);
      i = end;
      continue;
    }
    if (/^\|(?: |$)/.test(line)) {
      let end = i;
      while (end < lines.length && (/^\|(?: |$)/.test(lines[end]!) || /^ +\S/.test(lines[end]!))) end++;
      const rows = lines.slice(i, end).map((l) => (l.startsWith("|") ? l.slice(2) : ` ${l.trim()}`));
      out.push(`<div class="line-block">${inline(doc, rows.join("\n"), file).replace(/\n(?! )/g, "<br>")}</div>`);
      i = end;
      continue;
    }
    if (line.startsWith(">>>")) {
      let end = i;
      while (end < lines.length && lines[end] !== "") end++;
      out.push(`<pre>${escapeHtml(lines.slice(i, end).join("\n"))}</pre>`);
      i = end;
      continue;
    }
    // A term line directly over an indented definition.
    if (next !== "" && indentOf(next) > 0) {
      const items: string[] = [];
      while (i < lines.length && lines[i] !== "" && indentOf(lines[i]!) === 0 && indentOf(lines[i + 1] ?? "") > 0) {
        const definition = indentedBlock(lines, i + 1);
        const term = lines[i]!.split(/ : /)[0]!;
        items.push(`<dt>${inline(doc, term, file)}</dt><dd>${blocks(doc, dedent(definition), file)}</dd>`);
        i += 1 + definition.length;
        while (i < lines.length && lines[i] === "") i++;
      }
      out.push(`<dl>${items.join("")}</dl>`);
      continue;
    }
    // A paragraph; `::` at its end introduces a literal block.
    let end = i;
    while (end < lines.length && lines[end] !== "" && indentOf(lines[end]!) === 0) end++;
    let text = lines.slice(i, end).join("\n");
    i = end;
    if (/::$/.test(text)) {
      text = text === "::" ? "" : text.replace(/(\s?)::$/, (_, space: string) => (space ? "" : ":"));
      if (text) out.push(`<p>${inline(doc, text, file)}</p>`);
      while (i < lines.length && lines[i] === "") i++;
      const literal = indentOf(lines[i] ?? "") > 0 ? indentedBlock(lines, i) : quotedBlock(lines, i);
      if (literal.length) out.push(`<pre>${escapeHtml(dedent(literal).join("\n"))}</pre>`);
      i += literal.length;
      continue;
    }
    out.push(`<p>${inline(doc, text, file)}</p>`);
  }
  return out.filter(Boolean).join("\n");
}

/** An unindented literal block: lines that all start with the same punctuation character (`>` quoting). */
function quotedBlock(lines: string[], from: number): string[] {
  const first = /^[!-/:-@[-`{-~]/.exec(lines[from] ?? "")?.[0];
  if (!first) return [];
  let end = from;
  while (end < lines.length && lines[end]!.startsWith(first)) end++;
  return lines.slice(from, end);
}

function heading(doc: Doc, style: string, text: string, file: string): string {
  if (!doc.styles.includes(style)) doc.styles.push(style);
  doc.title ??= text;
  const level = Math.min(doc.styles.indexOf(style) + 1, 6);
  return `<h${level}>${inline(doc, text, file)}</h${level}>`;
}

const ADMONITIONS: Record<string, string> = {
  attention: "Attention",
  caution: "Caution",
  danger: "Danger",
  error: "Error",
  hint: "Hint",
  important: "Important",
  note: "Note",
  tip: "Tip",
  warning: "Warning",
  seealso: "See also",
  versionadded: "New in version",
  versionchanged: "Changed in version",
  deprecated: "Deprecated since version",
};
/** Directives whose argument is a title shown over their content. */
const TITLED = new Set([
  "admonition",
  "topic",
  "sidebar",
  "tab",
  "group-tab",
  "code-tab",
  "tab-item",
  "card",
  "grid-item-card",
  "dropdown",
]);
const SILENT = new Set([
  "toctree",
  "index",
  "highlight",
  "meta",
  "contents",
  "sectnum",
  "todo",
  "todolist",
  "tabularcolumns",
  "default-role",
  "role",
  "currentmodule",
  "module",
  "target-notes",
]);

/** Explicit markup (`.. `): a directive, a footnote, or a target, substitution or comment (not shown). */
function explicit(doc: Doc, head: string, block: string[], file: string): string {
  const footnote = /^\[([^\]]+)\](?:\s+(.*))?$/.exec(head);
  if (footnote) {
    const body = blocks(doc, [footnote[2] ?? "", ...dedent(block)], file);
    return `<div class="footnote"><span class="label">[${footnoteLabel(doc, footnote[1]!, false)}]</span>${body}</div>`;
  }
  const directive = /^([\w:+-]+)::(?:\s+(.*))?$/.exec(head);
  if (!directive) return "";
  const name = directive[1]!.replace(/^(?:rst|std|sphinx):/, "").toLowerCase();
  // The argument may go on over the next lines; options (`:alt: …`) follow it, then a blank line and the content.
  const body = dedent(block);
  let k = 0;
  let argument = directive[2] ?? "";
  while (k < body.length && body[k] !== "" && !/^:[\w-]+:/.test(body[k]!)) argument += ` ${body[k++]!.trim()}`;
  const options: Record<string, string> = {};
  for (; k < body.length && /^:[\w-]+:/.test(body[k]!); k++) {
    const option = /^:([\w-]+):\s*(.*)$/.exec(body[k]!)!;
    options[option[1]!] = option[2]!;
  }
  const content = body.slice(k);
  while (content[0] === "") content.shift();
  const text = argument.trim();
  if (SILENT.has(name)) return "";
  if (name in ADMONITIONS) {
    // The argument is the admonition's first paragraph; a version directive's is the version, in its title.
    const version = /^version|^deprecated/.test(name);
    const title = version ? `${ADMONITIONS[name]} ${text}:` : ADMONITIONS[name]!;
    const inner = !version && text ? [text, "", ...content] : content;
    return (
      `<div class="admonition ${name}"><p class="admonition-title">${inline(doc, title, file)}</p>` +
      `${blocks(doc, inner, file)}</div>`
    );
  }
  if (name === "image" || name === "figure") {
    const img = `<img src="${escapeHtml(text)}" alt="${escapeHtml(options.alt ?? "")}">`;
    return name === "image" ? img : `<figure>${img}<figcaption>${blocks(doc, content, file)}</figcaption></figure>`;
  }
  const code = content.join("\n");
  if (["code-block", "code", "sourcecode", "parsed-literal"].includes(name))
    return `<pre>${name === "parsed-literal" ? inline(doc, code, file) : escapeHtml(code)}</pre>`;
  if (name === "raw") return /\bhtml\b/.test(text) ? content.join("\n") : "";
  if (name === "include" || name === "literalinclude") {
    const target = text.startsWith("/")
      ? path.posix.join(doc.sourceDir, text)
      : path.posix.join(path.posix.dirname(file), text);
    const included = doc.depth < 8 ? doc.repo.read(target) : null;
    if (included === null) return "";
    if (name === "literalinclude" || "literal" in options || "code" in options)
      return `<pre>${escapeHtml(included.replace(/\s+$/, ""))}</pre>`;
    const lines = toLines(included);
    collectDefinitions(doc, lines);
    doc.depth++;
    const html = blocks(doc, lines, target);
    doc.depth--;
    return html;
  }
  if (name === "list-table") {
    const rows = listItems(content, 0, BULLET).items.map(
      (row) =>
        listItems(
          row.filter((line, k) => k > 0 || line !== ""),
          0,
          BULLET,
        ).items,
    );
    return table(doc, rows, Number(options["header-rows"] ?? 0), file);
  }
  if (name === "csv-table") {
    const header = options.header ? [csvRow(options.header)] : [];
    const rows = [...header, ...content.filter((line) => line.trim()).map(csvRow)].map((row) =>
      row.map((cell) => [cell]),
    );
    return table(doc, rows, header.length || Number(options["header-rows"] ?? 0), file);
  }
  if (name === "rubric") return `<p class="rubric">${inline(doc, text, file)}</p>`;
  // Any other directive shows its content (`only`, `container`, `tabs`), under its argument when that is a title.
  if (content.length === 0) return "";
  const title = TITLED.has(name) && text ? `<p><strong>${inline(doc, text, file)}</strong></p>` : "";
  return `<div class="${escapeHtml(name)}">${title}${blocks(doc, content, file)}</div>`;
}

function csvRow(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let k = 0; k < line.length; k++) {
    const ch = line[k]!;
    if (quoted) {
      if (ch === '"' && line[k + 1] === '"') cell += line[++k];
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      cells.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/** Rows of cells (each cell's lines) to a table, the first `headerRows` rows as its head. */
function table(doc: Doc, rows: string[][][], headerRows: number, file: string, spans?: number[][]): string {
  const cell = (lines: string[], tag: string, span = 1) => {
    // A cell of one paragraph is its text.
    const html = blocks(doc, dedent(lines.map((line) => line.trimEnd())), file).replace(
      /^<p>([\s\S]*)<\/p>$/,
      (all, inner: string) => (inner.includes("<p>") ? all : inner),
    );
    return `<${tag}${span > 1 ? ` colspan="${span}"` : ""}>${html}</${tag}>`;
  };
  const row = (cells: string[][], r: number, tag: string) =>
    `<tr>${cells.map((lines, c) => cell(lines, tag, spans?.[r]?.[c])).join("")}</tr>`;
  const head = rows.slice(0, headerRows).map((cells, r) => row(cells, r, "th"));
  const body = rows.slice(headerRows).map((cells, r) => row(cells, r + headerRows, "td"));
  return `<table>${head.length ? `<thead>${head.join("")}</thead>` : ""}<tbody>${body.join("")}</tbody></table>`;
}

/** A grid table: its columns from the top border's `+`s; a cell spans the columns whose `|` its lines lack. */
function gridTable(doc: Doc, lines: string[], file: string): string {
  const bounds = [...lines[0]!].flatMap((ch, k) => (ch === "+" ? [k] : []));
  const rows: string[][][] = [];
  const spans: number[][] = [];
  let headerRows = 0;
  let current: string[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const open = bounds.filter((b, k) => k === 0 || k === bounds.length - 1 || current.every((l) => l[b] === "|"));
    rows.push(open.slice(0, -1).map((b, k) => current.map((l) => l.slice(b + 1, open[k + 1]).trimEnd())));
    spans.push(open.slice(0, -1).map((b, k) => bounds.indexOf(open[k + 1]!) - bounds.indexOf(b)));
    current = [];
  };
  for (const line of lines.slice(1)) {
    if (/^\+[-=+]+\+$/.test(line)) {
      flush();
      if (line.includes("=")) headerRows = rows.length;
    } else current.push(line);
  }
  flush();
  return table(doc, rows, headerRows, file, spans);
}

/** The line after a simple table: its last border line (a border followed by a blank line or the end). */
function simpleTableEnd(lines: string[], from: number): number {
  for (let k = from + 1; k < lines.length; k++)
    if (/^=+(?: +=+)+$/.test(lines[k]!) && (lines[k + 1] ?? "") === "") return k + 1;
  return lines.length;
}

/** A simple table: columns from its top border's runs of `=`; a line whose first column is empty goes on above. */
function simpleTable(doc: Doc, lines: string[], file: string): string {
  const columns = [...lines[0]!.matchAll(/=+/g)].map((m) => m.index);
  const borders = lines.flatMap((line, k) => (/^=+(?: +=+)+$/.test(line) ? [k] : []));
  const rows: string[][][] = [];
  let headerRows = 0;
  lines.forEach((line, k) => {
    if (k === 0 || line === "" || /^[-= ]+$/.test(line)) {
      if (borders.length > 2 && k === borders[1]) headerRows = rows.length;
      return;
    }
    const cells = columns.map((start, c) => line.slice(start, c + 1 < columns.length ? columns[c + 1] : undefined));
    if (cells[0]!.trim() === "" && rows.length > 0) rows.at(-1)!.forEach((cell, c) => cell.push(cells[c]!));
    else rows.push(cells.map((cell) => [cell]));
  });
  return table(doc, rows, headerRows, file);
}

const BEFORE = String.raw`(?<=^|[\s'"([{<\-/:\u2018\u201c\u2019\u00ab])`;
const AFTER = String.raw`(?=$|[\s'")\]}>\-/:.,;!?\\\u2019\u201d\u00bb])`;

/** Inline markup to HTML. */
function inline(doc: Doc, source: string, file: string): string {
  const tokens: string[] = [];
  const keep = (html: string) => `\uE000${tokens.push(html) - 1}\uE001`;
  const link = (text: string, href: string) => keep(`<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`);
  const reference = (text: string, name: string, anonymous: boolean) => {
    const href = anonymous ? doc.anonymous[doc.anonymousUsed++] : doc.targets.get(normalName(name));
    return href ? link(text, href) : keep(escapeHtml(text));
  };
  const markup = (pattern: string, replace: (...groups: string[]) => string) => (text: string) =>
    text.replace(new RegExp(`${BEFORE}${pattern}${AFTER}`, "g"), (_, ...groups: string[]) => replace(...groups));
  const steps: ((text: string) => string)[] = [
    (text) => text.replace(/\\(.)/gs, (_, ch: string) => (/\s/.test(ch) ? "" : keep(escapeHtml(ch)))),
    markup("``(\\S(?:[\\s\\S]*?\\S)?)``", (code) => keep(`<code>${escapeHtml(code!.replace(/\s+/g, " "))}</code>`)),
    markup("(?::([\\w:+.-]+):)?`(\\S(?:[^`]*?\\S)?)`(?::([\\w:+.-]+):|(__?))?", (before, body, after, underscore) => {
      const name = (before ?? after ?? "").replace(/^(?:std|py|js|c|cpp):/, "");
      if (!underscore) return keep(role(doc, name, body!, file));
      const embedded = /^([\s\S]*?)\s*<([^<>]+)>$/.exec(body!);
      if (!embedded) return reference(body!, body!, underscore === "__");
      const target = embedded[2]!.replace(/\s+/g, "");
      const label = embedded[1] || target;
      return target.endsWith("_") ? reference(label, target.slice(0, -1), false) : link(label, target);
    }),
    (text) =>
      text.replace(/\|([^|\s](?:[^|]*?[^|\s])?)\|(__?)?/g, (all, name: string, underscore?: string) => {
        const value = doc.substitutions.get(name) ?? (name in doc.context ? textOf(doc.context[name]) : null);
        if (value === null) return all;
        return underscore ? reference(value, name, underscore === "__") : keep(inline(doc, value, file));
      }),
    (text) =>
      text.replace(/\[(#?[\w-]*|\*)\]_/g, (_, label: string) =>
        keep(`<sup>[${footnoteLabel(doc, label, true)}]</sup>`),
      ),
    markup("\\*\\*(\\S(?:[\\s\\S]*?\\S)?)\\*\\*", (inner) => keep(`<strong>${escapeHtml(inner!)}</strong>`)),
    markup("\\*(\\S(?:[\\s\\S]*?\\S)?)\\*", (inner) => keep(`<em>${escapeHtml(inner!)}</em>`)),
    (text) => text.replace(/\bhttps?:\/\/[^\s<>"]*[^\s<>".,;:!?)']/g, (url) => link(url, url)),
    markup("([A-Za-z0-9](?:[\\w.+-]*[A-Za-z0-9])?)(__?)", (name, underscore) =>
      reference(name!, name!, underscore === "__"),
    ),
  ];
  let text = escapeHtml(steps.reduce((text, step) => step(text), source));
  while (text.includes("\uE000")) text = text.replace(/\uE000(\d+)\uE001/g, (_, n: string) => tokens[Number(n)]!);
  return text;
}

/** A footnote's label as shown: an auto-numbered one's number (a reference to `[#]` takes the next one in turn). */
function footnoteLabel(doc: Doc, label: string, reference: boolean): string {
  if (!label.startsWith("#")) return escapeHtml(label);
  const { labels } = doc.footnotes;
  const numbered = (k: number) => (k < 0 ? escapeHtml(label) : String(k + 1));
  if (label !== "#") return numbered(labels.indexOf(label));
  const anonymous = labels.flatMap((l, k) => (l === "#" ? [k] : []));
  const turn = reference ? doc.footnotes.referenced++ : doc.footnotes.defined++;
  return numbered(anonymous[turn] ?? -1);
}

/** An interpreted text role's HTML (Sphinx's cross-references show their text, `:doc:` the page's title). */
function role(doc: Doc, name: string, body: string, file: string): string {
  const titled = /^([\s\S]*?)\s*<([^<>]+)>$/.exec(body);
  const label = titled ? titled[1]! : body.replace(/^[~!]/, "");
  switch (name) {
    case "":
    case "emphasis":
    case "dfn":
    case "term":
      return `<em>${escapeHtml(label)}</em>`;
    case "strong":
      return `<strong>${escapeHtml(label)}</strong>`;
    case "code":
    case "literal":
    case "file":
    case "samp":
    case "command":
    case "program":
    case "envvar":
    case "option":
    case "kbd":
      return `<code>${escapeHtml(body)}</code>`;
    case "sub":
    case "subscript":
      return `<sub>${escapeHtml(body)}</sub>`;
    case "sup":
    case "superscript":
      return `<sup>${escapeHtml(body)}</sup>`;
    case "abbr":
      return escapeHtml(body.replace(/\s*\([^)]*\)$/, ""));
    case "guilabel":
    case "menuselection":
      return escapeHtml(body.replace(/&(?=\w)/g, "").replace(/\s*-->\s*/g, " \u2023 "));
    case "doc": {
      if (titled) return escapeHtml(label);
      const target = body.startsWith("/")
        ? path.posix.join(doc.sourceDir, body)
        : path.posix.join(path.posix.dirname(file), body);
      const other = doc.repo.read(`${target}.rst`);
      return escapeHtml((other === null ? null : firstTitle(other)) ?? body);
    }
    default:
      return escapeHtml(label);
  }
}

/** The first section title of a reStructuredText document. */
function firstTitle(source: string): string | null {
  const lines = toLines(source);
  for (let i = 0; i + 1 < lines.length; i++) {
    const text = lines[i]!.trim();
    if (!text || ADORNMENT.test(lines[i]!)) continue;
    if (ADORNMENT.test(lines[i + 1]!) && lines[i + 1]!.length >= Math.min(text.length, 4)) return text;
  }
  return null;
}
