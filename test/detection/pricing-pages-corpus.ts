/**
 * The pricing-page corpus (test/fixtures/real-pages/pricing/): saved real SaaS pricing pages, each with the records
 * its plan cards, add-on sections and prose state (expected.json, written from the page and cross-checked against
 * the research dataset's own model of it in truth/; origins in the directory's README.md). Scores the engine on them
 * through extract(), per layout: right, wrong (another kind, amount, promotion, currency or period, or a record the
 * page does not state: the failure that becomes a false price change), missed.
 */
import { extract } from "../../src/detection/read/index.js";
import { planKey, priceOptions } from "../../src/detection/read/pricing/plan.js";
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
  /** The record's other prices, in page order ("$14 per user/month, billed annually" beside "$19"). */
  also: { amount: number | null; currency: string | null; period: PricingPlan["period"] }[];
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
  also: priceOptions(plan)
    .slice(1)
    .map(({ amount, currency, period }) => ({ amount, currency, period })),
});

/**
 * What the engine reads on a page: its named records (plans, add-ons, usage meters from structured data, records and
 * grids), and the prices it could only name by their context (origin "context": never plans, but still watched).
 */
export function readPricingPage(page: PricingPage): { named: ExpectedRecord[]; context: ExpectedRecord[] } {
  const extraction = extract(pricingPageBody(page), {
    url: page.url,
    contentType: "text/html; charset=utf-8",
    fetchMethod: "http",
  });
  return {
    named: extraction.pricing.filter((plan) => plan.origin !== "context").map(recordFields),
    context: extraction.pricing.filter((plan) => plan.origin === "context").map(recordFields),
  };
}

/**
 * Scores the engine on every page of the corpus, per layout. An expected record is right when a record of its name
 * (named, or named by its context) has its kind and prices; a named record the page does not state is wrong; prices
 * read by context beyond the expected records are counted apart (`unnamed`), as they are not claims about a plan.
 */
export function scorePricingPages(pages: PricingPage[] = PRICING_PAGES): (ClassScore & { unnamed: number })[] {
  const scores = new ClassScores();
  const unnamed = new Map<string, number>();
  for (const page of pages) {
    const score = scores.of(page.layout);
    const read = readPricingPage(page);
    const key = (record: ExpectedRecord) => planKey(record.name);
    const expectedKeys = new Set(page.records.map(key));
    const byName = [...read.named, ...read.context.filter((record) => expectedKeys.has(key(record)))];
    compare(score, page.file, page.records, byName, key);
    unnamed.set(
      page.layout,
      (unnamed.get(page.layout) ?? 0) + read.context.filter((r) => !expectedKeys.has(key(r))).length,
    );
    score.expected += page.not_read.length;
    score.missed += page.not_read.length;
  }
  return scores.all().map((score) => ({ ...score, unnamed: unnamed.get(score.class) ?? 0 }));
}
