/**
 * The pricing-history corpus (test/fixtures/pricing-histories/, scripts/corpus/): real products' pricing pages at every
 * commit that changed them, with the records a visitor reads on each version. Scores detection end to end on them,
 * the way a customer meets it: extract each version, diff consecutive versions, classify the diff as a pricing page.
 *
 * Per product: records read / expected per version; real price and plan changes caught (a pricing event on a pair of
 * versions whose records differ in price or in which priced records exist); false price events on pairs whose records
 * did not change, counted apart where records were read on both sides (a pass where nothing was read proves nothing);
 * pricing events on pure renames; narrative events per unchanged pair.
 *
 * The rendered pages live outside git (scripts/corpus/manifest.ts, pagesDir()); a product whose pages are not built is
 * reported as such.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  loadManifests,
  pageFile,
  pagesDir,
  type ExpectedPrice,
  type ExpectedRecord,
  type HistoryManifest,
} from "../../scripts/corpus/manifest.js";
import { classify } from "../../src/detection/classify/classify.js";
import { diffExtractions } from "../../src/detection/diff/diff.js";
import { extract } from "../../src/detection/read/index.js";
import { planKey, priceOptions } from "../../src/detection/read/pricing/plan.js";
import type { EventDraft, Extraction, PricingPlan } from "../../src/detection/types.js";

export interface HistoryScore {
  product: string;
  set: HistoryManifest["set"];
  /** Versions whose page is built (missing ones are skipped). */
  versions: number;
  expected: number;
  read: number;
  /**
   * Of those read, the ones read under the name the page gives them; the others are read by their price under another
   * name (a context price named by its section heading, a usage price by its row).
   */
  named: number;
  /** A record of that name (or that price) read with another amount: the failure that becomes a false price change. */
  wrong: number;
  missed: number;
  /** Named records the page does not state (a heading, an allowance read as a plan). */
  extra: number;
  /** Pairs of versions whose records changed in price or in which priced records exist. */
  changes: number;
  caught: number;
  /** Pairs whose records did not change, and those of them where records were read on both sides. */
  unchanged: number;
  unchangedRead: number;
  /** Pricing events on unchanged pairs, all of them and those where records were read on both sides. */
  falsePrice: number;
  falsePriceRead: number;
  /** Pairs that only renamed records at the same prices, and the pricing events above low they raised. */
  renames: number;
  renameEvents: number;
  /** Narrative events on unchanged pairs. */
  narrative: number;
  /** Milliseconds per page for extract(). */
  msPerPage: number;
  /** "version: what" for each missed, wrong or extra record and each missed or false change (capped). */
  failures: string[];
}

const normal = (name: string): string => planKey(name.replace(/[^\p{L}\p{N}$€£¥+.,\s–-]/gu, " "));

/** The same price: equal amount and currency; a period on both sides must agree. */
function samePrice(
  expected: ExpectedPrice,
  read: { amount: number | null; currency: string | null; period: string | null },
): boolean {
  if (expected.amount === null) return read.amount === null;
  if (read.amount === null || Math.abs(read.amount - expected.amount) > 1e-9) return false;
  if (expected.currency !== null && read.currency !== null && expected.currency !== read.currency.toUpperCase())
    return false;
  return expected.period === null || read.period === null || expected.period === read.period;
}

/** The record's first price is among what was read: one of its prices, or its promotional price beside a list price. */
const reads = (record: ExpectedRecord, plan: PricingPlan): boolean =>
  record.prices.length === 0 ||
  priceOptions(plan).some((option) => samePrice(record.prices[0]!, option)) ||
  (plan.promo_amount != null && samePrice(record.prices[0]!, { ...plan, amount: plan.promo_amount }));

/** The words of a name, in any order: "Person, private repository" and "Private Repository – Person" are one name. */
const words = (name: string): string =>
  normal(name)
    .split(/[\s,–-]+/)
    .filter(Boolean)
    .sort()
    .join(" ");

interface VersionScore {
  expected: number;
  read: number;
  named: number;
  wrong: number;
  missed: number;
  extra: number;
  failures: string[];
}

/** Pairs expected records with read ones: by name, then by price for the rest. */
export function scoreVersion(expected: ExpectedRecord[], pricing: PricingPlan[]): VersionScore {
  const score: VersionScore = {
    expected: expected.length,
    read: 0,
    named: 0,
    wrong: 0,
    missed: 0,
    extra: 0,
    failures: [],
  };
  const left = new Set(pricing);
  const unpaired: ExpectedRecord[] = [];
  for (const record of expected) {
    // A record read as a plan or an add-on answers for its name before a context price named the same (a section
    // heading "Enterprise" over other prices).
    const candidates = [...left].sort((a, b) => Number(a.origin === "context") - Number(b.origin === "context"));
    const found =
      candidates.find((plan) => normal(plan.name) === normal(record.name)) ??
      candidates.find((plan) => words(plan.name) === words(record.name));
    if (!found) {
      unpaired.push(record);
      continue;
    }
    left.delete(found);
    if (reads(record, found)) {
      score.read++;
      score.named++;
    } else {
      score.wrong++;
      score.failures.push(
        `${record.name}: read ${found.amount} ${found.currency ?? ""}/${found.period ?? "-"} instead of ${JSON.stringify(record.prices[0])}`,
      );
    }
  }
  // A record read under another name (a context price named by its section) counts by its price; a record that bears
  // another expected record's name (a second copy of "CPU") does not stand in for this one.
  const expectedNames = new Set(expected.flatMap((record) => [normal(record.name), words(record.name)]));
  const otherName = (plan: PricingPlan) =>
    !expectedNames.has(normal(plan.name)) && !expectedNames.has(words(plan.name));
  for (const record of unpaired) {
    const found =
      record.prices.length > 0 ? [...left].find((plan) => otherName(plan) && reads(record, plan)) : undefined;
    if (found) {
      left.delete(found);
      score.read++;
      continue;
    }
    score.missed++;
    score.failures.push(`missed ${record.name} ${JSON.stringify(record.prices[0] ?? null)}`);
  }
  for (const plan of left) {
    if (plan.origin === "context") continue;
    score.extra++;
    score.failures.push(`not stated: ${plan.name} ${plan.amount} ${plan.currency ?? ""}`);
  }
  return score;
}

/** What a version's records say, for telling a change from none: names with their prices, and the prices alone. */
function recordState(records: ExpectedRecord[]): { named: string; prices: string } {
  const price = (p: ExpectedPrice) => `${p.amount}|${p.currency}|${p.period}`;
  const named = records.map((r) => `${normal(r.name)}=${r.prices.map(price).sort().join(",")}`).sort();
  const prices = records.map((r) => r.prices.map(price).sort().join(",")).sort();
  return { named: named.join(";"), prices: prices.join(";") };
}

/** Events about prices: every pricing event but those that only tell a plan's feature list changed. */
function pricingEvents(events: EventDraft[]): EventDraft[] {
  return events.filter((event) => event.event_type === "pricing_change" && !event.tags.includes("features"));
}

export function scoreProduct(manifest: HistoryManifest): HistoryScore {
  const dir = path.join(pagesDir(), manifest.product);
  const score: HistoryScore = {
    product: manifest.product,
    set: manifest.set,
    versions: 0,
    expected: 0,
    read: 0,
    named: 0,
    wrong: 0,
    missed: 0,
    extra: 0,
    changes: 0,
    caught: 0,
    unchanged: 0,
    unchangedRead: 0,
    falsePrice: 0,
    falsePriceRead: 0,
    renames: 0,
    renameEvents: 0,
    narrative: 0,
    msPerPage: 0,
    failures: [],
  };
  const note = (text: string) => {
    if (score.failures.length < 400) score.failures.push(text);
  };
  let previous: { version: (typeof manifest.versions)[number]; extraction: Extraction; readAny: boolean } | null = null;
  let ms = 0;
  manifest.versions.forEach((version, k) => {
    const file = path.join(dir, pageFile(k, version));
    if (!existsSync(file)) return;
    const html = readFileSync(file, "utf8");
    const started = performance.now();
    const extraction = extract(html, {
      url: manifest.url,
      contentType: "text/html; charset=utf-8",
      fetchMethod: "http",
    });
    ms += performance.now() - started;
    score.versions++;
    const versionScore = scoreVersion(version.records, extraction.pricing);
    score.expected += versionScore.expected;
    score.read += versionScore.read;
    score.named += versionScore.named;
    score.wrong += versionScore.wrong;
    score.missed += versionScore.missed;
    score.extra += versionScore.extra;
    for (const failure of versionScore.failures)
      note(`${String(k).padStart(3, "0")} ${version.commit.slice(0, 10)}: ${failure}`);
    const readAny = versionScore.read > 0;
    if (previous) {
      const diff = diffExtractions(previous.extraction, extraction);
      const events = classify(diff, { competitorName: manifest.name, sourceType: "pricing", sourceUrl: manifest.url });
      const priced = pricingEvents(events);
      const before = recordState(previous.version.records);
      const after = recordState(version.records);
      const pair = `${String(k - 1).padStart(3, "0")}→${String(k).padStart(3, "0")} ${version.commit.slice(0, 10)}`;
      if (before.named === after.named) {
        score.unchanged++;
        score.narrative += events.filter((event) => event.event_type === "narrative_change").length;
        const bothRead = previous.readAny && readAny;
        if (bothRead) score.unchangedRead++;
        if (priced.length > 0) {
          score.falsePrice++;
          if (bothRead) score.falsePriceRead++;
          note(`${pair}: false price event: ${priced.map((e) => e.title).join(" | ")}`);
        }
      } else if (before.prices === after.prices) {
        score.renames++;
        const loud = priced.filter((event) => event.severity !== "low");
        score.renameEvents += loud.length;
        if (loud.length > 0) note(`${pair}: a rename raised ${loud.map((e) => e.title).join(" | ")}`);
      } else {
        score.changes++;
        if (priced.length > 0) score.caught++;
        else note(`${pair}: missed change (${version.change ?? "records differ"})`);
      }
    }
    previous = { version, extraction, readAny };
  });
  score.msPerPage = score.versions === 0 ? 0 : ms / score.versions;
  return score;
}

/** Every product of a set (develop by default: the held-out set is read only at the end). */
export function scoreHistories(set: HistoryManifest["set"] = "develop", only?: string[]): HistoryScore[] {
  return loadManifests(set)
    .filter((manifest) => !only || only.includes(manifest.product))
    .map(scoreProduct);
}
