/**
 * The real price strings corpus (test/fixtures/real-pages/price-strings/): 1,170 strings that scrapinghub's
 * price-parser collected from a random sample of shop pages, with the amount a person read in each. Scores a price
 * parser on them: right, none (no price given: allowed, counted), wrong (a number that is not the one on the page:
 * the failure that becomes a false price change).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface PriceExample {
  /** The list of price-parser's test file it comes from (EXAMPLES, EXAMPLES_2, …, XFAIL…). */
  list: string;
  /** A currency hint from beside the price on the page (unused here: the engine reads one element's text). */
  hint: string | null;
  text: string | null;
  /** The currency as written, and the amount as an exact decimal, or null when the string states no price. */
  currency: string | null;
  amount: string | null;
  line: number;
}

export const PRICE_EXAMPLES: PriceExample[] = JSON.parse(
  readFileSync(
    fileURLToPath(new URL("../fixtures/real-pages/price-strings/price-parser-examples.json", import.meta.url)),
    "utf8",
  ),
);

export interface PriceScore {
  total: number;
  right: number;
  none: number;
  wrong: PriceExample[];
}

/** Scores `parse` (an amount or null per string) on every example with a string. */
export function scorePriceStrings(parse: (text: string) => number | null): PriceScore {
  const score: PriceScore = { total: 0, right: 0, none: 0, wrong: [] };
  for (const example of PRICE_EXAMPLES) {
    if (example.text === null) continue;
    score.total += 1;
    const amount = parse(example.text);
    // The corpus counts "¢" as a currency of its own ("1 ¢" is 1); every amount here is in major units (0.01).
    const expected =
      example.amount === null ? null : example.currency === "¢" ? Number(example.amount) / 100 : Number(example.amount);
    if (amount === null) {
      if (expected === null) score.right += 1;
      else score.none += 1;
    } else if (amount === expected) score.right += 1;
    else score.wrong.push(example);
  }
  return score;
}
