/**
 * The pricing-page corpus (test/fixtures/real-pages/pricing/): saved real SaaS pricing pages, each with the records
 * its plan cards, add-on sections and prose state (expected.json, written from the page and cross-checked against
 * the research dataset's own model of it in truth/; origins in the directory's README.md). Scores the engine on them
 * through extract(), per layout: right, wrong (another kind, amount, promotion, currency or period, or a record the
 * page does not state: the failure that becomes a false price change), missed.
 */
import { extract } from "../../src/detection/read/index.js";
import type { PricingPlan } from "../../src/detection/types.js";
import { realPagesCorpus } from "./real-pages-corpus.js";
import { ClassScores, compare, type ClassScore } from "./structured-data-corpus.js";

export interface ExpectedRecord {
  name: string;
  kind: "plan" | "addon" | "usage";
  amount: number | null;
  promo_amount: number | null;
  currency: string | null;
  period: PricingPlan["period"];
}

export interface PricingPage {
  /** Relative to the corpus directory: HTML, gzipped when it ends in .gz. */
  file: string;
  /** Where the page comes from: repository@commit and path, and the capture it is. */
  origin: string;
  url: string;
  /** How the page states its prices: "cards" (a plan grid and add-on sections) or "prose". */
  layout: "cards" | "prose";
  /** What extract() must give, in page order. */
  records: ExpectedRecord[];
  /** Prices the page states that the engine is known not to read, each with the reason: counted as missed. */
  not_read: { name: string; amount: number; reason: string }[];
  note: string;
}

const corpus = realPagesCorpus<PricingPage>("pricing");
export const PRICING_PAGES: PricingPage[] = corpus.pages;
export const pricingPageBody = corpus.body;

/** The fields a record is judged on; `kind` and `promo_amount` are written only when they say something. */
export const recordFields = (plan: PricingPlan): ExpectedRecord => ({
  name: plan.name,
  kind: plan.kind ?? "plan",
  amount: plan.amount,
  promo_amount: plan.promo_amount ?? null,
  currency: plan.currency,
  period: plan.period,
});

export function readPricingPage(page: PricingPage): ExpectedRecord[] {
  const extraction = extract(pricingPageBody(page), {
    url: page.url,
    contentType: "text/html; charset=utf-8",
    fetchMethod: "http",
  });
  return extraction.pricing.map(recordFields);
}

/** Scores the engine on every page of the corpus, per layout. */
export function scorePricingPages(pages: PricingPage[] = PRICING_PAGES): ClassScore[] {
  const scores = new ClassScores();
  for (const page of pages) {
    const score = scores.of(page.layout);
    compare(score, page.file, page.records, readPricingPage(page), (record) => record.name.toLowerCase());
    score.expected += page.not_read.length;
    score.missed += page.not_read.length;
  }
  return scores.all();
}
