/**
 * Noise before and after dismissals (docs/product-rules.md#learned-rules), no database: page histories replayed
 * through extraction, diff, classification and the learned rules, the way the pipeline applies them
 * (src/learning/rules.ts), once without dismissals and once dismissing each noise event as `noise` the first time its
 * kind arrives (one dismissal per kind). Noise is an event on a pair of versions whose content did not really change.
 *
 * Histories: the synthetic homepage with a rotating banner and testimonial and two real changes
 * (test/detection/rotating-history.ts), and the real pricing-page histories of test/fixtures/pricing-histories/ whose
 * rendered pages are built (scripts/corpus/manifest.ts; a real version pair is unchanged when its expected records
 * are the same).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadManifests, pageFile, pagesDir } from "../scripts/corpus/manifest.js";
import { classify } from "../src/detection/classify/classify.js";
import { diffExtractions } from "../src/detection/diff/diff.js";
import { extract } from "../src/detection/read/index.js";
import type { Extraction } from "../src/detection/types.js";
import { learnableOf, type KeyedDraft } from "../src/learning/keys.js";
import { applyRules, type Effect } from "../src/learning/rules.js";
import { REAL_CHANGES, ROTATING_HISTORY, rotatingPage } from "../test/detection/rotating-history.js";
import type { SummaryRow } from "./report.js";

export interface NoiseFigures {
  /** Version pairs without a real change, and with one. */
  unchanged: number;
  real: number;
  /** Noise events without dismissals, and real pairs that raised an event. */
  noiseBefore: number;
  caughtBefore: number;
  /** With dismissals: noise events that arrived, how many of them were dismissed (teaching), real pairs caught. */
  noiseArrived: number;
  dismissals: number;
  caughtAfter: number;
  /** Real pairs told by a price change (never covered by a rule), without and with dismissals. */
  pricedBefore: number;
  pricedAfter: number;
}

export interface NoiseResult {
  synthetic: NoiseFigures;
  /** Null when no rendered page of the real histories is built. */
  histories: (NoiseFigures & { products: number }) | null;
}

interface History {
  pages: string[];
  url: string;
  sourceType: string;
  /** Whether the pair (k − 1, k) really changed. */
  real: (k: number) => boolean;
}

function replay(
  history: History,
  dismiss: boolean,
): Omit<NoiseFigures, "noiseBefore" | "caughtBefore" | "pricedBefore"> {
  const rules = new Map<string, Effect>();
  const figures = { unchanged: 0, real: 0, noiseArrived: 0, dismissals: 0, caughtAfter: 0, pricedAfter: 0 };
  let previous: Extraction | null = null;
  history.pages.forEach((html, k) => {
    const extraction = extract(html, {
      url: history.url,
      contentType: "text/html; charset=utf-8",
      fetchMethod: "http",
    });
    if (previous) {
      const drafts: KeyedDraft[] = classify(diffExtractions(previous, extraction), {
        competitorName: "Acme",
        sourceType: history.sourceType,
        sourceUrl: history.url,
      }).map((draft) => ({ ...draft, learn: learnableOf(draft, previous, extraction) }));
      const kept = applyRules(
        drafts.map((draft) => ({ draft })),
        rules,
      );
      if (history.real(k)) {
        figures.real++;
        // On a pricing page a real change is caught by a pricing event (as bench/accuracy.ts counts it).
        const told = kept.filter(
          ({ draft }) => history.sourceType !== "pricing" || draft.event_type === "pricing_change",
        );
        if (told.length > 0) figures.caughtAfter++;
        if (kept.some(({ draft }) => draft.learn!.protected)) figures.pricedAfter++;
      } else {
        figures.unchanged++;
        figures.noiseArrived += kept.length;
        for (const { draft } of kept) {
          const learnable = draft.learn!;
          if (!dismiss || learnable.protected || learnable.keys.length === 0) continue;
          figures.dismissals++;
          for (const key of learnable.keys) rules.set(key.key, "suppress");
        }
      }
    }
    previous = extraction;
  });
  return figures;
}

function measure(history: History): NoiseFigures {
  const before = replay(history, false);
  const after = replay(history, true);
  return {
    ...after,
    noiseBefore: before.noiseArrived,
    caughtBefore: before.caughtAfter,
    pricedBefore: before.pricedAfter,
  };
}

function realHistories(): (NoiseFigures & { products: number }) | null {
  const dir = pagesDir();
  let products = 0;
  const sum: NoiseFigures = {
    unchanged: 0,
    real: 0,
    noiseBefore: 0,
    caughtBefore: 0,
    noiseArrived: 0,
    dismissals: 0,
    caughtAfter: 0,
    pricedBefore: 0,
    pricedAfter: 0,
  };
  for (const manifest of loadManifests()) {
    const built = manifest.versions
      .map((version, k) => ({ version, file: path.join(dir, manifest.product, pageFile(k, version)) }))
      .filter(({ file }) => existsSync(file));
    if (built.length < 2) continue;
    products++;
    const figures = measure({
      pages: built.map(({ file }) => readFileSync(file, "utf8")),
      url: manifest.url,
      sourceType: "pricing",
      real: (k) => JSON.stringify(built[k]!.version.records) !== JSON.stringify(built[k - 1]!.version.records),
    });
    for (const key of Object.keys(sum) as (keyof NoiseFigures)[]) sum[key] += figures[key];
  }
  return products === 0 ? null : { ...sum, products };
}

export function measureNoise(): NoiseResult {
  const synthetic = measure({
    pages: ROTATING_HISTORY.map(rotatingPage),
    url: "https://acme.example/",
    sourceType: "homepage",
    real: (k) => REAL_CHANGES.includes(k),
  });
  return { synthetic, histories: realHistories() };
}

const perPage = (events: number, pages: number) => (pages === 0 ? "0" : (events / pages).toFixed(3));

function rows(label: string, f: NoiseFigures): SummaryRow[] {
  const after = f.noiseArrived - f.dismissals;
  return [
    {
      measurement: `noise, ${label}: events per unchanged page before dismissals`,
      value: `${perPage(f.noiseBefore, f.unchanged)} (${f.noiseBefore} events on ${f.unchanged} unchanged pages)`,
      target: "",
      met: null,
    },
    {
      measurement: `  after one dismissal per kind of noise`,
      value: `${perPage(after, f.unchanged)} (${f.dismissals} dismissed, ${after} more arrived)`,
      target: "",
      met: null,
    },
    {
      measurement: `  real changes told by a price change, before → after`,
      value: `${f.pricedBefore}/${f.real} → ${f.pricedAfter}/${f.real}`,
      target: "none lost",
      met: f.pricedAfter === f.pricedBefore,
    },
    {
      measurement: `  real changes raised at all, before → after`,
      value: `${f.caughtBefore}/${f.real} → ${f.caughtAfter}/${f.real}`,
      target: "",
      met: null,
    },
  ];
}

export function noiseRows(result: NoiseResult): SummaryRow[] {
  return [
    ...rows("rotating-content homepage", result.synthetic),
    ...(result.histories ? rows(`pricing histories (${result.histories.products} products)`, result.histories) : []),
  ];
}
