/**
 * Scenario 7: the extraction's accuracy on real pages nobody here wrote (docs/real-pages.md), over the corpora the
 * tests keep in test/fixtures/real-pages/:
 *
 * - price strings: 1,169 strings from real shop pages (scrapinghub/price-parser's corpus): right, no price, wrong;
 * - structured data: 55 saved pages (real shop pages, extruct's samples, schema.org examples): plans and job postings
 *   right, wrong, missed, per kind of markup;
 * - pricing pages: saved real SaaS pricing pages (GitHub's and Postman's as the Wayback Machine captured them in 2023,
 *   Cirrus CI's prose page): plans, add-ons, usage meters and promotions right, wrong, missed, per layout;
 * - main text: 181 real article pages (scrapinghub/article-extraction-benchmark) scored with the benchmark's own
 *   metric: precision, recall, F1, and the time per page.
 *
 * Wrong is the figure that matters: a wrong number is a false event, a missed one only a missed event. It needs no
 * database: `npm run bench -- accuracy` starts none.
 */
import { parsePrice } from "../src/detection/read/pricing/money.js";
import { measureEngineMainText, type MainTextScore } from "../test/detection/main-text-corpus.js";
import { scorePriceStrings } from "../test/detection/price-strings-corpus.js";
import { scorePricingPages } from "../test/detection/pricing-pages-corpus.js";
import { scoreStructuredData, type ClassScore } from "../test/detection/structured-data-corpus.js";
import { fixed, type SummaryRow } from "./report.js";
import { progress } from "./util.js";

export interface AccuracyResult {
  prices: { total: number; right: number; none: number; wrong: number };
  structured: ClassScore[];
  pricingPages: ClassScore[];
  mainText: Omit<MainTextScore, "perPage">;
}

export function measureAccuracy(): AccuracyResult {
  const priceScore = scorePriceStrings((text) => parsePrice(text, { bareNumber: true })?.amount ?? null);
  const prices = {
    total: priceScore.total,
    right: priceScore.right,
    none: priceScore.none,
    wrong: priceScore.wrong.length,
  };
  progress(`accuracy: price strings ${prices.right} right, ${prices.none} no price, ${prices.wrong} wrong`);
  const structured = scoreStructuredData();
  for (const row of structured) {
    progress(
      `accuracy: structured data, ${row.class}: ${row.pages} pages, ${row.right}/${row.expected} right, ${row.wrong} wrong, ${row.missed} missed`,
    );
  }
  const pricingPages = scorePricingPages();
  for (const row of pricingPages) {
    progress(
      `accuracy: pricing pages, ${row.class}: ${row.pages} pages, ${row.right}/${row.expected} right, ${row.wrong} wrong, ${row.missed} missed`,
    );
  }
  const { perPage: _perPage, ...mainText } = measureEngineMainText();
  progress(
    `accuracy: main text of ${mainText.pages} articles: precision ${fixed(mainText.precision, 3)}, recall ${fixed(mainText.recall, 3)}, F1 ${fixed(mainText.f1, 3)}, ${fixed(mainText.msPerPage)} ms per page`,
  );
  return { prices, structured, pricingPages, mainText };
}

export function accuracyRows({ prices, structured, pricingPages, mainText }: AccuracyResult): SummaryRow[] {
  const records = total(structured);
  const pricingRecords = total(pricingPages);
  return [
    {
      measurement: `real price strings (${prices.total}): wrong amounts`,
      value: `${prices.wrong} wrong, ${prices.right} right, ${prices.none} no price`,
      target: "≤ 1 wrong (see docs/real-pages.md)",
      met: prices.wrong <= 1,
    },
    {
      measurement: `structured data on real pages: wrong plans and jobs`,
      value: `${records.wrong} wrong, ${records.right}/${records.expected} right, ${records.missed} missed`,
      target: "0 wrong",
      met: records.wrong === 0,
    },
    {
      measurement: `real SaaS pricing pages (${pricingRecords.pages}): wrong plans, add-ons and promotions`,
      value: `${pricingRecords.wrong} wrong, ${pricingRecords.right}/${pricingRecords.expected} right, ${pricingRecords.missed} missed`,
      target: "0 wrong",
      met: pricingRecords.wrong === 0,
    },
    {
      measurement: `main text of ${mainText.pages} real articles: precision / recall / F1`,
      value: `${fixed(mainText.precision, 3)} / ${fixed(mainText.recall, 3)} / ${fixed(mainText.f1, 3)}`,
      target: "precision ≥ Readability's 0.914",
      met: mainText.precision >= 0.914,
    },
    {
      measurement: "  main text, time per page (in this process)",
      value: `${fixed(mainText.msPerPage)} ms`,
      target: "",
      met: null,
    },
  ];
}

/** The scores of all classes of a corpus, added up. */
function total(scores: ClassScore[]): Omit<ClassScore, "class" | "failures"> {
  return scores.reduce(
    (sum, row) => ({
      expected: sum.expected + row.expected,
      right: sum.right + row.right,
      wrong: sum.wrong + row.wrong,
      missed: sum.missed + row.missed,
      pages: sum.pages + row.pages,
    }),
    { expected: 0, right: 0, wrong: 0, missed: 0, pages: 0 },
  );
}
