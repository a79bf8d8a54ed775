/**
 * The pricing-history corpus (test/fixtures/pricing-histories/): per product, the repository that keeps its pricing
 * page, the commits that changed the page, and for each commit the records a visitor reads on the rendered page. The
 * pages themselves are rendered from the repository (scripts/corpus/build.ts) into a directory outside git: they
 * are the products' content, not ours; the manifests (origin, commits, licence, labels) are ours.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RenderOptions } from "./render/index.js";
import type { Value } from "./render/values.js";

export type Period = "month" | "year" | "one_time";

/** One price a record shows: per billing option when the markup holds several (monthly and yearly). */
export interface ExpectedPrice {
  /** Major units as shown (49 for $49, 0.0004 for $0.0004); null for "Contact us" / "Custom". */
  amount: number | null;
  /** ISO 4217; null when the page does not say. */
  currency: string | null;
  /** The billing period the amount is per; null when none is stated (a one-off, a usage price without a period). */
  period: Period | null;
  /** What the amount is per besides time, when it says ("user", "GB", "1,000 requests"): informative only. */
  unit?: string;
}

export interface ExpectedRecord {
  /** The name as the page shows it (without badges such as "Most popular"). */
  name: string;
  /** `plan` (default), `addon` (sold beside the plans), or `usage` (priced per unit of use). */
  kind?: "plan" | "addon" | "usage";
  prices: ExpectedPrice[];
}

export interface HistoryVersion {
  /** The commit (40 hex digits). */
  commit: string;
  /** Its committer date, YYYY-MM-DD. */
  date: string;
  /** The page's file at that commit (it may move). */
  path: string;
  /** Every record a visitor reads on the rendered page, in page order. */
  records: ExpectedRecord[];
  /**
   * For a version whose records differ from the previous version's: what changed, and what in the commit confirms it
   * (its message, paraphrased). Absent when the records are the same.
   */
  change?: string;
  /** Anything a reader of the labels should know (a price only in a script, a section left out and why). */
  note?: string;
  /**
   * Values the page's server would compute differently at this version, merged over `render.context` (a clock a
   * condition compares with: the commit's time, when the page was live).
   */
  context?: Record<string, Value>;
}

/** The held-out sets, oldest first: the last is the newest, the one the targets are judged on. */
export const HELD_OUT_SETS = [
  "holdout",
  "holdout-2",
  "holdout-3",
  "holdout-4",
  "holdout-5",
  "holdout-6",
  "holdout-7",
  "holdout-8",
  "holdout-9",
  "holdout-10",
  "holdout-11",
  "holdout-12",
  "holdout-13",
  "holdout-14",
  "holdout-15",
  "holdout-16",
  "holdout-17",
  "holdout-18",
  "holdout-19",
  "holdout-20",
  "holdout-21",
  "holdout-22",
  "holdout-23",
  "holdout-24",
] as const;
export type HeldOutSet = (typeof HELD_OUT_SETS)[number];

/**
 * The held-out sets read only as at their first reading: nothing was studied or tuned on them yet. A new set is added
 * here with its manifests and leaves once its failures are studied (the accuracy bench labels each set so).
 */
export const UNSTUDIED_SETS: ReadonlySet<HeldOutSet> = new Set<HeldOutSet>([]);
export type CorpusSet = "develop" | HeldOutSet;

export interface HistoryManifest {
  /** Kebab-case id, also the page directory's name. */
  product: string;
  name: string;
  /** owner/name on GitHub. */
  repo: string;
  /** The repository's licence (SPDX id, or what its licence file says). */
  licence: string;
  /** The live page this history is of. */
  url: string;
  /**
   * `develop`: used while building the engine. `holdout`: set aside and read once at the end of a piece of work; its
   * failures were then studied and fixed, so it no longer measures pages nobody tuned on
   * (docs/real-pages.md#how-detection-is-measured). `holdout-2`: set aside after that, labelled by someone who never
   * ran the engine on it. `holdout-3` and after (HELD_OUT_SETS): each set aside after the one before in the same way,
   * labelled from the rendered pages and template sources without running the engine on them, read once (its first
   * reading is kept in the docs) and studied after that.
   */
  set: CorpusSet;
  /** How the page states its prices (cards, a comparison table, prose, Markdown table, a monthly/yearly pair…). */
  layout: string;
  render?: RenderOptions;
  versions: HistoryVersion[];
}

export const MANIFEST_DIR = path.resolve(import.meta.dirname, "../../test/fixtures/pricing-histories");

/** Where rendered pages go: PRICING_HISTORIES_DIR, else `corpus/pricing-histories` beside the checkout. */
export function pagesDir(): string {
  return process.env.PRICING_HISTORIES_DIR ?? path.resolve(import.meta.dirname, "../../../corpus/pricing-histories");
}

/** The rendered page's file name of a version. */
export function pageFile(index: number, version: Pick<HistoryVersion, "commit">): string {
  return `${String(index).padStart(3, "0")}-${version.commit.slice(0, 10)}.html`;
}

/** Every manifest, or those of one set. */
export function loadManifests(set?: HistoryManifest["set"]): HistoryManifest[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name.endsWith(".json")) files.push(path.join(dir, entry.name));
    }
  };
  walk(MANIFEST_DIR);
  return files
    .map((file) => JSON.parse(readFileSync(file, "utf8")) as HistoryManifest)
    .filter((manifest) => set === undefined || manifest.set === set)
    .sort((a, b) => (a.product < b.product ? -1 : 1));
}
