/**
 * PHP pages (a site of plain `.php` pages: HTML with `<?php … ?>` blocks that include the header, navigation and
 * footer): the HTML is kept as it stands, and a small reader follows what such pages do with PHP to assemble
 * themselves, without running it: `include`/`require` (and their `_once` forms) of a file named by a literal path
 * (relative to the page's directory, as PHP's include path `.` reads it for a request, then to the including file's;
 * `__DIR__` and `dirname(__FILE__)` name the including file's directory), `echo`/`print`/`<?= ?>` of literals and of
 * variables assigned literals (`$title = 'Pricing';` in the page, read by its header), `.` concatenation and a few
 * string functions. Control structures are not followed (their HTML is kept as it stands); function calls the reader
 * does not know, and values only the server has (a database, a session, `$_GET`), print nothing. Variables the page's
 * server would set come from the render context (`{ "title": "…" }` is `$title`).
 */
import path from "node:path";
import type { RepoAtCommit } from "../repo.js";
import { escapeHtml, member, textOf, type Value } from "./values.js";

interface State {
  repo: RepoAtCommit;
  /** The directory of the page the request runs (PHP's current directory). */
  entryDir: string;
  vars: Map<string, Value>;
  included: Set<string>;
  depth: number;
}

/** The page's output: its HTML with its PHP blocks replaced by what they print. */
export function renderPhp(
  repo: RepoAtCommit,
  file: string,
  source: string,
  context: Record<string, Value> = {},
): string {
  const state: State = {
    repo,
    entryDir: path.posix.dirname(file),
    vars: new Map(Object.entries(context)),
    included: new Set([path.posix.normalize(file)]),
    depth: 0,
  };
  return run(state, file, source);
}

function run(state: State, file: string, source: string): string {
  let out = "";
  for (const part of split(source)) {
    if (part.kind === "html") out += part.text;
    else if (part.kind === "echo") out += textOf(evaluate(state, file, part.code));
    else for (const statement of statements(part.code)) out += execute(state, file, statement);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Blocks and statements

type Part = { kind: "html"; text: string } | { kind: "php" | "echo"; code: string };

/**
 * The page cut into HTML and PHP blocks: `<?php … ?>`, `<?= … ?>` and short `<? … ?>` (not `<?xml`). A block ends at
 * the first `?>` outside a string or block comment (a line comment ends there too, as in PHP), or at the end of the
 * file; a single newline right after `?>` is not output, as PHP swallows it.
 */
export function split(source: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  const open = /<\?(php\b|=|(?!xml\b))/gi;
  for (;;) {
    open.lastIndex = at;
    const m = open.exec(source);
    if (!m) break;
    if (m.index > at) parts.push({ kind: "html", text: source.slice(at, m.index) });
    const start = m.index + m[0].length;
    const end = closing(source, start);
    parts.push({ kind: m[1] === "=" ? "echo" : "php", code: source.slice(start, end) });
    at = end + 2;
    if (end >= source.length) break;
    if (source.startsWith("\r\n", at)) at += 2;
    else if (source[at] === "\n") at += 1;
  }
  if (at < source.length) parts.push({ kind: "html", text: source.slice(at) });
  return parts;
}

/** Where the block starting at `from` closes (the index of its `?>`, or the end of the source). */
function closing(source: string, from: number): number {
  let i = from;
  while (i < source.length) {
    if (source[i] === "?" && source[i + 1] === ">") return i;
    i = skipped(source, i)?.end ?? i + 1;
  }
  return source.length;
}

/**
 * The string literal or comment starting at `at`, if one does: where it ends, and whether it is a comment. A line
 * comment ends at its line's end or at `?>`, as PHP reads it.
 */
function skipped(source: string, at: number): { end: number; comment: boolean } | null {
  const c = source[at]!;
  if (c === "'" || c === '"' || c === "`") return { end: skipString(source, at), comment: false };
  if (c === "/" && source[at + 1] === "*") {
    const end = source.indexOf("*/", at + 2);
    return { end: end === -1 ? source.length : end + 2, comment: true };
  }
  if ((c === "/" && source[at + 1] === "/") || c === "#") {
    let i = at;
    while (i < source.length && source[i] !== "\n" && !(source[i] === "?" && source[i + 1] === ">")) i++;
    return { end: i, comment: true };
  }
  return null;
}

/** The index just after the string literal opening at `at`. */
function skipString(source: string, at: number): number {
  const quote = source[at]!;
  let i = at + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === "\\" ? 2 : 1;
  return i + 1;
}

/**
 * A block's statements: split at `;`, `{` and `}` outside strings, comments and parentheses; comments dropped; a
 * control structure's head (`if (…)`, `foreach (…):`, `else`, `endif`…) taken off the statement it guards.
 */
export function statements(code: string): string[] {
  const out: string[] = [];
  let current = "";
  let depth = 0;
  let i = 0;
  const push = () => {
    const statement = withoutControlHead(current.trim());
    if (statement) out.push(statement);
    current = "";
  };
  while (i < code.length) {
    const c = code[i]!;
    const skip = skipped(code, i);
    if (skip) {
      // A string is part of its statement; a comment is dropped.
      if (!skip.comment) current += code.slice(i, skip.end);
      i = skip.end;
      continue;
    }
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ";" || c === "{" || c === "}")) {
      push();
      i++;
      continue;
    }
    current += c;
    i++;
  }
  push();
  return out;
}

function withoutControlHead(statement: string): string {
  let s = statement;
  for (;;) {
    const keyword = /^(?:if|elseif|else\s*if|while|foreach|for|switch)\s*\(/i.exec(s);
    if (keyword) {
      const end = balanced(s, keyword[0].length - 1);
      s = s
        .slice(end)
        .replace(/^\s*:?\s*/, "")
        .trim();
      continue;
    }
    const bare = /^(?:else|endif|endforeach|endwhile|endfor|endswitch|default|do)\b\s*:?\s*/i.exec(s);
    if (bare) {
      s = s.slice(bare[0].length).trim();
      continue;
    }
    return s;
  }
}

/** The index just after the bracket that closes the one at `open`. */
function balanced(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'" || c === '"') {
      i = skipString(s, i) - 1;
      continue;
    }
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return s.length;
}

function execute(state: State, file: string, statement: string): string {
  const include = /^(include|require)(_once)?\b\s*([\s\S]*)$/i.exec(statement);
  if (include) return includeFile(state, file, evaluate(state, file, include[3]!), include[2] !== undefined);
  const echo = /^(?:echo|print)\b\s*([\s\S]*)$/i.exec(statement);
  if (echo)
    return topLevel(echo[1]!, ",")
      .map((e) => textOf(evaluate(state, file, e)))
      .join("");
  const assign = /^\$(\w+)\s*(\.?=)(?!=)\s*([\s\S]*)$/.exec(statement);
  if (assign) {
    const value = evaluate(state, file, assign[3]!);
    const name = assign[1]!;
    state.vars.set(name, assign[2] === ".=" ? textOf(state.vars.get(name)) + textOf(value) : value);
  }
  return "";
}

function includeFile(state: State, file: string, target: Value, once: boolean): string {
  const name = textOf(target);
  if (!name || state.depth > 20) return "";
  const found = resolveInclude(state, file, name);
  if (found === null) return "";
  if (once && state.included.has(found)) return "";
  const source = state.repo.read(found);
  if (source === null) return "";
  state.included.add(found);
  state.depth++;
  try {
    return run(state, found, source);
  } finally {
    state.depth--;
  }
}

/**
 * The file an include names: a path from the repository's root as is (leading `/` dropped); `./` and `../` paths
 * from the page's directory; other relative paths from the page's directory, then from the including file's.
 */
function resolveInclude(state: State, file: string, name: string): string | null {
  const candidates: string[] = [];
  const from = (dir: string) => path.posix.normalize(path.posix.join(dir, name));
  if (name.startsWith("/")) candidates.push(path.posix.normalize(name).replace(/^\/+/, ""));
  else if (/^\.\.?\//.test(name)) candidates.push(from(state.entryDir));
  else candidates.push(from(state.entryDir), from(path.posix.dirname(file)));
  for (const candidate of candidates) {
    if (!candidate.startsWith("../") && state.repo.exists(candidate)) return candidate;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Expressions

/** The parts of an expression separated by `sep` at its top level (outside strings and brackets). */
function topLevel(code: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === "'" || c === '"') {
      i = skipString(code, i) - 1;
      continue;
    }
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (depth === 0 && c === sep) {
      // A `.` in a number (1.5) is not concatenation.
      if (sep === "." && /\d/.test(code[i - 1] ?? "") && /\d/.test(code[i + 1] ?? "")) continue;
      out.push(code.slice(start, i));
      start = i + 1;
    }
  }
  out.push(code.slice(start));
  return out;
}

const STRING_FUNCTIONS: Record<string, (s: string) => string> = {
  htmlspecialchars: escapeHtml,
  htmlentities: escapeHtml,
  strtoupper: (s) => s.toUpperCase(),
  strtolower: (s) => s.toLowerCase(),
  ucfirst: (s) => s.charAt(0).toUpperCase() + s.slice(1),
  trim: (s) => s.trim(),
  nl2br: (s) => s.replace(/\r?\n/g, "<br />\n"),
  basename: (s) => path.posix.basename(s),
  dirname: (s) => path.posix.dirname(s),
};

/** A value an expression can have from what the page knows; null for anything else. */
export function evaluate(state: State, file: string, code: string): Value {
  const expr = code
    .trim()
    .replace(/^\(([\s\S]*)\)$/, (all, inner: string) => (balanced(all, 0) === all.length ? inner : all));
  if (!expr) return null;
  const pieces = topLevel(expr, ".");
  if (pieces.length > 1) return pieces.map((piece) => textOf(evaluate(state, file, piece))).join("");
  const single = /^'((?:[^'\\]|\\.)*)'$/s.exec(expr);
  if (single) return single[1]!.replace(/\\(['\\])/g, "$1");
  const double = /^"((?:[^"\\]|\\.)*)"$/s.exec(expr);
  if (double) return interpolate(state, double[1]!);
  if (/^-?\d+(?:\.\d+)?$/.test(expr)) return Number(expr);
  if (/^true$/i.test(expr)) return true;
  if (/^(?:false|null)$/i.test(expr)) return null;
  if (expr === "__DIR__") return path.posix.join("/", path.posix.dirname(file));
  if (expr === "__FILE__") return path.posix.join("/", file);
  const variable = /^\$(\w+)((?:\s*\[\s*(?:'[^']*'|"[^"]*"|\d+)\s*\]|->\w+)*)$/.exec(expr);
  if (variable) {
    let value: Value = state.vars.get(variable[1]!) ?? null;
    for (const key of variable[2]!.matchAll(/\[\s*(?:'([^']*)'|"([^"]*)"|(\d+))\s*\]|->(\w+)/g)) {
      value = member(value, key[1] ?? key[2] ?? (key[3] !== undefined ? Number(key[3]) : key[4]!));
    }
    return value;
  }
  const call = /^(\w+)\s*\(/.exec(expr);
  if (call && balanced(expr, call[0].length - 1) === expr.length) {
    const fn = STRING_FUNCTIONS[call[1]!.toLowerCase()];
    const args = topLevel(expr.slice(call[0].length, -1), ",");
    if (fn && args[0]!.trim()) {
      const value = evaluate(state, file, args[0]!);
      return value === null ? null : fn(textOf(value));
    }
  }
  return null;
}

/** A double-quoted string's text: its escapes, and the variables it names (`$name`, `{$name}`). */
function interpolate(state: State, body: string): string {
  const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\", $: "$", v: "\v", f: "\f" };
  return body.replace(/\\(.)|\{\$(\w+)\}|\$(\w+)/g, (all, escaped: string, braced: string, bare: string) => {
    if (escaped !== undefined) return escapes[escaped] ?? all;
    return textOf(state.vars.get(braced ?? bare) ?? null);
  });
}
