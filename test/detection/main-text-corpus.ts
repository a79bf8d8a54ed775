/**
 * The main-text accuracy of an extractor over real article pages: scrapinghub/article-extraction-benchmark's pages and
 * ground-truth article bodies (test/fixtures/real-pages/articles/README.md), scored with the benchmark's own metric
 * (its evaluate.py, reproduced below): per page, the 4-token shingles of the prediction and of the truth are matched
 * with their counts, tp/fp/fn are normalised by their sum so that long pages weigh no more than short ones, and
 * precision and recall are the means over pages (a page with no predicted shingles counts for recall only); F1 is
 * taken from the two means.
 *
 * The engine's text is masked (src/detection/parse/mask.ts: dates, times, counters become placeholders), so with
 * `maskTruth` the truth is masked the same way, line by line, before scoring: a date in both then matches as the same
 * placeholder, where scoring masked text against raw truth would count every masked date twice (a false positive and
 * a miss) and blame the masking on the main-text choice. Extractors that do not mask are scored on raw truth, as the
 * benchmark scores them.
 *
 * Used by test/detection/main-text.test.ts and by `npm run bench` (measureEngineMainText); it prints nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { extract } from "../../src/detection/read/index.js";
import { maskVolatile } from "../../src/detection/parse/mask.js";

export const ARTICLES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/real-pages/articles",
);

export interface ArticlePage {
  /** The benchmark's item id (the sha256 the HTML file is named by). */
  id: string;
  url: string;
  html: string;
  /** The ground-truth article body. */
  truth: string;
}

/** Text of a page as an extractor sees it: the HTML and the URL it was fetched from. */
export type TextExtractor = (html: string, url: string) => string;

export interface PageScore {
  id: string;
  url: string;
  /** Shares of the page's matched/extra/missing shingles (they sum to 1, or are all 0 when both texts are empty). */
  tp: number;
  fp: number;
  fn: number;
  ms: number;
}

export interface MainTextScore {
  pages: number;
  precision: number;
  recall: number;
  f1: number;
  /** Share of pages whose tokens equal the truth's exactly (the benchmark's "accuracy"). */
  accuracy: number;
  /** Mean wall time of one extractor call. */
  msPerPage: number;
  perPage: PageScore[];
}

interface GroundTruth {
  [id: string]: { articleBody?: string; url?: string };
}

let cached: ArticlePage[] | null = null;

/** Every saved page with its truth, in id order. Read once per process. */
export function loadArticleCorpus(): ArticlePage[] {
  if (cached) return cached;
  const truth = JSON.parse(gunzipSync(readFileSync(path.join(ARTICLES_DIR, "ground-truth.json.gz"))).toString("utf8"));
  const pages: ArticlePage[] = [];
  for (const file of readdirSync(path.join(ARTICLES_DIR, "html")).sort()) {
    const id = file.replace(/\.html\.gz$/, "");
    const entry = (truth as GroundTruth)[id];
    if (!entry) throw new Error(`no ground truth for ${file}`);
    // The benchmark's pages are gzipped UTF-8 (its README).
    const html = gunzipSync(readFileSync(path.join(ARTICLES_DIR, "html", file))).toString("utf8");
    pages.push({ id, url: entry.url ?? "", html, truth: entry.articleBody ?? "" });
  }
  cached = pages;
  return pages;
}

/**
 * evaluate.py's `\w+` (Python 3, str patterns): letters (L*), numbers (N*) and the underscore. Python's tokens are case
 * sensitive (its IGNORECASE flag changes nothing for \w).
 */
const TOKEN = /[\p{L}\p{N}_]+/gu;

export function tokenize(text: string): string[] {
  return text ? (text.match(TOKEN) ?? []) : [];
}

/** Shingles of `n` consecutive tokens with their counts; a text of fewer tokens is one shingle of them all. */
function shingles(text: string, n: number): Map<string, number> {
  const tokens = tokenize(text);
  const out = new Map<string, number>();
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i += 1) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    // Tokens never hold a space, so a space-joined key is unambiguous.
    const key = shingle.join(" ");
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** evaluate.py's string_shingle_matching: normalised [tp, fp, fn] for one page. */
export function shingleMatching(truth: string, prediction: string, n = 4): [number, number, number] {
  const expected = shingles(truth, n);
  const predicted = shingles(prediction, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...expected.keys(), ...predicted.keys()])) {
    const t = expected.get(key) ?? 0;
    const p = predicted.get(key) ?? 0;
    tp += Math.min(t, p);
    fp += Math.max(0, p - t);
    fn += Math.max(0, t - p);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [tp, fp, fn];
}

function precisionScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recallScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** evaluate.py's metrics_from_tp_fp_fns. */
export function metricsOf(counts: [number, number, number][]): { precision: number; recall: number; f1: number } {
  const precision = mean(counts.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => precisionScore(tp, fp, fn)));
  const recall = mean(counts.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => recallScore(tp, fp, fn)));
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

/** A text masked line by line, as the engine masks its lines (src/detection/read/index.ts). */
export function maskLines(text: string): string {
  return text
    .split("\n")
    .map((line) => maskVolatile(line))
    .join("\n");
}

export interface MeasureOptions {
  /** Pages to score (default: the whole saved corpus). */
  pages?: ArticlePage[];
  /** Mask the truth as the engine masks its text (see the module comment). */
  maskTruth?: boolean;
}

/** Runs `extractor` over the corpus and scores it with the benchmark's metric. */
export function measureMainText(extractor: TextExtractor, options: MeasureOptions = {}): MainTextScore {
  const pages = options.pages ?? loadArticleCorpus();
  const perPage: PageScore[] = [];
  let exact = 0;
  for (const page of pages) {
    const started = performance.now();
    const predicted = extractor(page.html, page.url);
    const ms = performance.now() - started;
    const truth = options.maskTruth ? maskLines(page.truth) : page.truth;
    const [tp, fp, fn] = shingleMatching(truth, predicted);
    perPage.push({ id: page.id, url: page.url, tp, fp, fn, ms });
    if (tokenize(truth).join(" ") === tokenize(predicted).join(" ")) exact += 1;
  }
  const metrics = metricsOf(perPage.map(({ tp, fp, fn }) => [tp, fp, fn]));
  return {
    pages: pages.length,
    ...metrics,
    accuracy: exact / pages.length,
    msPerPage: mean(perPage.map((page) => page.ms)),
    perPage,
  };
}

/** The benchmark's published Readability.js output (0.6.0 on jsdom), to check this metric against its numbers. */
export function publishedReadabilityOutput(): Map<string, string> {
  const data = JSON.parse(
    gunzipSync(readFileSync(path.join(ARTICLES_DIR, "readability-js-published.json.gz"))).toString("utf8"),
  ) as { version: string; output: Record<string, { articleBody?: string }> };
  return new Map(Object.entries(data.output).map(([id, entry]) => [id, entry.articleBody ?? ""]));
}

/** The engine's main text of a page: `Extraction.text`, as a source fetched over HTTP gets it. */
export function engineMainText(html: string, url: string): string {
  return extract(html, { url, contentType: "text/html", fetchMethod: "http" }).text;
}

/** The engine's main-text accuracy over the corpus, its text being masked (so the truth is masked too). */
export function measureEngineMainText(): MainTextScore {
  return measureMainText(engineMainText, { maskTruth: true });
}
