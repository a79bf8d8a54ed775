/**
 * The structured-data corpus (test/fixtures/real-pages/structured-data/): saved real shop pages from scrapinghub's
 * product-extraction-benchmark and extruct's test samples, and schema.org's own markup examples, each with the plans
 * (and job postings) its JSON-LD, microdata or product meta tags state, written out by reading the markup
 * (expected.json; origins and licences in the directory's README.md). Scores the engine on them through extract(),
 * the real entry point, per class of page: right, wrong (a plan with another amount, currency or period, or a plan
 * the markup does not state: the failure that becomes a false price change), missed.
 */
import { realPagesCorpus } from "./real-pages-corpus.js";
import { collapse, loadHtml } from "../../src/detection/parse/html.js";
import { extract } from "../../src/detection/read/index.js";
import { pricingFromMeta, readProductMeta } from "../../src/detection/read/pricing/offers.js";
import type { JobPosting, PricingPlan } from "../../src/detection/types.js";

export interface ExpectedPlan {
  name: string;
  amount: number | null;
  currency: string | null;
  period: PricingPlan["period"];
}

export interface ExpectedJob {
  title: string;
  location: string | null;
  department: string | null;
  url: string | null;
}

export interface StructuredDataPage {
  /** Relative to the corpus directory: a gzipped HTML file. */
  file: string;
  /** Where the page comes from: repository@commit and path. */
  origin: string;
  /** What carries the page's prices: "jsonld", "microdata", "mixed" (both), "none" (neither). */
  class: "jsonld" | "microdata" | "mixed" | "none";
  url: string;
  /** The structured-data plans extract() must give (origin "jsonld"), in page order. */
  plans: ExpectedPlan[];
  /** The plan the product price meta tags alone give (class "opengraph"), when the page has them. */
  meta?: ExpectedPlan[];
  /** The structured-data job postings (class "jobs"). */
  jobs?: ExpectedJob[];
  note: string;
}

const corpus = realPagesCorpus<StructuredDataPage>("structured-data");
export const STRUCTURED_DATA_PAGES: StructuredDataPage[] = corpus.pages;
export const pageBody = corpus.body;

export const planFields = (plan: PricingPlan): ExpectedPlan => ({
  name: plan.name,
  amount: plan.amount,
  currency: plan.currency,
  period: plan.period,
});

export const jobFields = (job: JobPosting): ExpectedJob => ({
  title: job.title,
  location: job.location,
  department: job.department,
  url: job.url,
});

/** What the engine gives for a page: structured plans and jobs through extract(), and the meta tags' plan alone. */
export function readPage(page: StructuredDataPage): {
  plans: ExpectedPlan[];
  meta: ExpectedPlan[];
  jobs: ExpectedJob[];
} {
  const body = pageBody(page);
  const extraction = extract(body, { url: page.url, contentType: "text/html; charset=utf-8", fetchMethod: "http" });
  return {
    plans: extraction.pricing.filter((plan) => plan.origin === "jsonld").map(planFields),
    meta: page.meta ? pricingFromMeta(readProductMeta(loadHtml(body))).map(planFields) : [],
    jobs: extraction.jobs.filter((job) => job.origin === "jsonld").map(jobFields),
  };
}

export interface ClassScore {
  /** jsonld, microdata, mixed, none (pages by what carries their prices), opengraph (meta tags alone), jobs. */
  class: string;
  pages: number;
  expected: number;
  right: number;
  /** Found with another amount, currency or period (or title, location…), or found but not stated by the page. */
  wrong: number;
  missed: number;
  /** "file: what" for each wrong or missed record. */
  failures: string[];
}

/**
 * Adds one page's records to `score`: each expected record right (found, equal), wrong (found, different) or missed;
 * each record found that the page does not state is wrong too.
 */
export function compare<T extends object>(
  score: ClassScore,
  file: string,
  expected: T[],
  found: T[],
  keyOf: (record: T) => string,
): void {
  score.pages += 1;
  score.expected += expected.length;
  const byKey = new Map(found.map((record) => [keyOf(record), record]));
  const expectedKeys = new Set(expected.map(keyOf));
  for (const record of expected) {
    const got = byKey.get(keyOf(record));
    if (!got) {
      score.missed += 1;
      score.failures.push(`${file}: missed ${JSON.stringify(record)}`);
    } else if (JSON.stringify(got) === JSON.stringify(record)) score.right += 1;
    else {
      score.wrong += 1;
      score.failures.push(`${file}: ${JSON.stringify(got)} instead of ${JSON.stringify(record)}`);
    }
  }
  for (const record of found) {
    if (expectedKeys.has(keyOf(record))) continue;
    score.wrong += 1;
    score.failures.push(`${file}: not stated by the page: ${JSON.stringify(record)}`);
  }
}

const planKey = (plan: ExpectedPlan): string => collapse(plan.name).toLowerCase();
const jobKey = (job: ExpectedJob): string => `${job.title}|${job.location ?? ""}`.toLowerCase();

/** Scores the engine on every page of the corpus, per class. */
export function scoreStructuredData(pages: StructuredDataPage[] = STRUCTURED_DATA_PAGES): ClassScore[] {
  const scores = new ClassScores();
  const scoreOf = (name: string) => scores.of(name);
  for (const page of pages) {
    const found = readPage(page);
    compare(scoreOf(page.class), page.file, page.plans, found.plans, planKey);
    if (page.meta) compare(scoreOf("opengraph"), page.file, page.meta, found.meta, planKey);
    if (page.jobs) compare(scoreOf("jobs"), page.file, page.jobs, found.jobs, jobKey);
  }
  return scores.all();
}

/** One score per class, started at zero when its class is first met. */
export class ClassScores {
  private readonly byClass = new Map<string, ClassScore>();

  of(name: string): ClassScore {
    let score = this.byClass.get(name);
    if (!score) {
      score = { class: name, pages: 0, expected: 0, right: 0, wrong: 0, missed: 0, failures: [] };
      this.byClass.set(name, score);
    }
    return score;
  }

  all(): ClassScore[] {
    return [...this.byClass.values()];
  }
}
