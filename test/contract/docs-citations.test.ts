/**
 * The repository explains itself: comments cite docs/ (docs/architecture.md#comments-cite-the-docs), never a document
 * a clone does not hold nor an issue number, and every `docs/<file>.md#<anchor>` citation names a file and a heading
 * that exist. Anchors are computed from the markdown headings as GitHub computes them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCANNED_DIRS = ["src", "test", "bench", "scripts", "migrations", "spec", "docs", ".ci"];
/** The top-level files that hold rules or comments (configuration, the README). */
const SCANNED_FILES = ["README.md", "eslint.config.js", "vitest.config.ts", "knexfile.ts", "tspconfig.yaml"];
const SELF = path.relative(ROOT, import.meta.filename);

/** Documents outside the repository, and issue numbers. Case matters where a lowercase form is a docs/ file name. */
const OUTSIDE_CITATIONS: { what: string; pattern: RegExp }[] = [
  { what: "the design document", pattern: /\bDESIGN\b/ },
  { what: "the stack notes", pattern: /STACK-NOTES/ },
  { what: "the style guide", pattern: /\bSTYLE\.md\b/ },
  { what: "the real-pages notes", pattern: /REAL-PAGES/ },
  { what: "the interface spec", pattern: /\binterface[- ]spec(?:\.md)?\b/i },
  { what: "an issue number", pattern: /\b(?:issues?|PR|pull request)\s*#?\d+\b/i },
  // `#7`, `(#12)`, `see #3.` — but not colours (`#1f2328`, `#313131`), entities (`&#39;`) or "visitor #4821".
  { what: "an issue number", pattern: /(?<![\w&#/])#\d{1,3}(?=$|[\s),;:]|\.(?:\s|$))/m },
];

/** `docs/<file>.md` or `docs/<file>.md#anchor`, not preceded by a path (so `src/docs/…` is not one). */
const DOCS_CITATION = /(?<![\w./-])docs\/([\w./-]+?\.md)(?:#([\w-]+))?/g;
/** Relative links inside docs/: `[text](file.md#anchor)` or `[text](#anchor)`. */
const MARKDOWN_LINK = /\]\((?!https?:|mailto:)([\w./-]*?\.md)?(?:#([\w-]+))?\)/g;

/**
 * Data about other repositories, not this one's text: the pricing-history manifests name the products' own files
 * (the pricing page of a documentation site) and their commits ("pull request #41").
 */
const DATA_ABOUT_OTHER_REPOSITORIES = [path.join("test", "fixtures", "pricing-histories")];

function filesUnder(dir: string): string[] {
  if (DATA_ABOUT_OTHER_REPOSITORIES.includes(dir)) return [];
  const absolute = path.join(ROOT, dir);
  let entries: string[];
  try {
    entries = readdirSync(absolute);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry === "node_modules" || entry.startsWith(".")) return [];
    const relative = path.join(dir, entry);
    return statSync(path.join(ROOT, relative)).isDirectory() ? filesUnder(relative) : [relative];
  });
}

/** The file's text, or null for a binary file. */
function textOf(relative: string): string | null {
  const buffer = readFileSync(path.join(ROOT, relative));
  return buffer.includes(0) ? null : buffer.toString("utf8");
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** GitHub's heading anchor: rendered text, lowercased, punctuation dropped, each space a hyphen, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === null) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .trim();
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string> | null>();

/** The anchors of a docs file (path relative to the repository root), or null when it does not exist. */
function anchorsOf(relative: string): Set<string> | null {
  if (!anchorCache.has(relative)) {
    let anchors: Set<string> | null = null;
    try {
      anchors = headingAnchors(readFileSync(path.join(ROOT, relative), "utf8"));
    } catch {
      anchors = null;
    }
    anchorCache.set(relative, anchors);
  }
  return anchorCache.get(relative)!;
}

function checkTarget(target: string, anchor: string | undefined, where: string): string | null {
  const anchors = anchorsOf(target);
  if (anchors === null) return `${where}: ${target} does not exist`;
  if (anchor !== undefined && !anchors.has(anchor)) return `${where}: ${target} has no heading #${anchor}`;
  return null;
}

const scanned = [...SCANNED_DIRS.flatMap(filesUnder), ...SCANNED_FILES]
  .map((file) => ({ file, text: textOf(file) }))
  .filter((entry): entry is { file: string; text: string } => entry.text !== null);

describe("docs citations", () => {
  it("computes GitHub's anchors", () => {
    const anchors = headingAnchors(
      "# Title\n## Errors and auth\n### PATCH semantics\n## `pg-boss` quirks (v10)\n```\n## not a heading\n```\n## Errors and auth\n",
    );
    expect([...anchors]).toEqual([
      "title",
      "errors-and-auth",
      "patch-semantics",
      "pg-boss-quirks-v10",
      "errors-and-auth-1",
    ]);
  });

  it("scans the source folders", () => {
    expect(scanned.map((entry) => entry.file)).toContain(path.join("src", "config.ts"));
  });

  it("cites no document outside the repository and no issue number", () => {
    const found: string[] = [];
    for (const { file, text } of scanned) {
      if (file === SELF) continue;
      for (const { what, pattern } of OUTSIDE_CITATIONS) {
        const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
        for (const match of text.matchAll(global)) {
          found.push(`${file}:${lineOf(text, match.index)}: ${what} ("${match[0]}"); cite docs/ or the code instead`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("cites only docs files and headings that exist", () => {
    const broken: string[] = [];
    const sources = [...scanned];
    const readme = textOf("README.md");
    if (readme !== null) sources.push({ file: "README.md", text: readme });
    for (const { file, text } of sources) {
      for (const match of text.matchAll(DOCS_CITATION)) {
        const problem = checkTarget(
          path.posix.join("docs", match[1]!),
          match[2],
          `${file}:${lineOf(text, match.index)}`,
        );
        if (problem) broken.push(problem);
      }
    }
    expect(broken).toEqual([]);
  });

  it("links only docs files and headings that exist, inside docs/", () => {
    const broken: string[] = [];
    for (const file of filesUnder("docs").filter((name) => name.endsWith(".md"))) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const target = match[1] ? path.posix.join(path.posix.dirname(file.split(path.sep).join("/")), match[1]) : file;
        const problem = checkTarget(target, match[2], `${file}:${lineOf(text, match.index)}`);
        if (problem) broken.push(problem);
      }
    }
    expect(broken).toEqual([]);
  });
});
