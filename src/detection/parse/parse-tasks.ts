/**
 * Everything done to a fetched body that costs time in proportion to it (parsing and reading it), as tasks the parse
 * pool runs off the event loop (src/detection/parse/parse-pool.ts). Each task takes and returns plain data, since it
 * crosses a thread boundary; results are made storable (no NUL, no lone surrogate) where they are made.
 */
import { extract, type ExtractOptions } from "../read/index.js";
import { detectShell, type ShellVerdict } from "../fetch/js-shell.js";
import { storable } from "../fetch/page-text.js";
import type { Extraction } from "../types.js";
import { readHomepage, type Homepage } from "../../discovery/homepage.js";
import { summarizePage, type PageSummary } from "../../discovery/page-summary.js";
import { parseSitemap, type Sitemap } from "../../discovery/sitemap.js";

export interface ParseTasks {
  /** A tracked page or feed → its Extraction (src/detection/read/). */
  extract: { input: { body: string; options: ExtractOptions }; output: Extraction };
  /** A competitor's homepage → what discovery and profile read from it. */
  homepage: { input: { body: string; url: string }; output: Homepage };
  /** sitemap.xml → its URLs (at most `limit`), or null when it is not a sitemap. */
  sitemap: { input: { body: string; limit: number }; output: Sitemap | null };
  /** A candidate page → its title, and its text when asked. */
  summary: { input: { body: string; contentType: string | null; withText: boolean }; output: PageSummary };
  /** An HTML page → whether it is an empty JavaScript app shell (src/detection/fetch/js-shell.ts). */
  shell: { input: { body: string }; output: ShellVerdict };
}

export type ParseKind = keyof ParseTasks;

const RUNNERS: { [K in ParseKind]: (input: ParseTasks[K]["input"]) => ParseTasks[K]["output"] } = {
  extract: ({ body, options }) => extract(body, options),
  homepage: ({ body, url }) => readHomepage(body, url),
  sitemap: ({ body, limit }) => parseSitemap(body, limit),
  summary: ({ body, contentType, withText }) => summarizePage(body, contentType, withText),
  shell: ({ body }) => detectShell(body),
};

/** Runs one task in the calling thread. */
export function runParseTask<K extends ParseKind>(kind: K, input: ParseTasks[K]["input"]): ParseTasks[K]["output"] {
  const runner = RUNNERS[kind] as (input: ParseTasks[K]["input"]) => ParseTasks[K]["output"];
  if (!runner) throw new Error(`unknown parse task ${String(kind)}`);
  return storable(runner(input));
}
