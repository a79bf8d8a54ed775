/**
 * A homepage history with rotating content and two real changes in it, for the learned-rules test and
 * `npm run bench -- noise` (docs/product-rules.md#learned-rules): an announcement banner above the headline and a
 * testimonial carousel rotate from fetch to fetch (two kinds of noise, in two regions of the page); the headline
 * changes once and a plan's price once (the real changes). Each step says which parts changed, so a replay knows which
 * events are noise.
 */

const BANNERS = [
  "Spring sale: twenty percent off every annual plan for teams that sign up before the end of this week",
  "Join our live webinar on reliability engineering next month and bring your hardest questions for the panel",
  "We just opened a new data centre in Frankfurt for customers who keep their data inside the European Union",
  "Read the new report on how a thousand engineering teams plan their quarters, free for every subscriber",
];

const QUOTES = [
  "Acme changed how our whole team works together every single day of the week. Jane Doe, CTO at Foo Industries",
  "We cut our incident count in half within a month of switching from our old tools. Bob Roe, VP at Bar Systems",
  "Onboarding took an afternoon and the support team answered every question within minutes. Ann Poe, lead at Baz",
  "The reports alone saved our managers a day each week of copying numbers into slides. Tom Moe, director at Qux",
];

export interface HistoryStep {
  banner: number;
  quote: number;
  headline: string;
  price: number;
}

/** What changed from the step before: the noise regions and the real changes. */
export interface StepChange {
  banner: boolean;
  quote: boolean;
  headline: boolean;
  price: boolean;
}

const H1 = "Ship faster with fewer meetings";
const H1_NEW = "Ship safer software, faster";

/**
 * The history: 21 fetches, twice a day while the content rotates daily, so each change is seen by two fetches (the
 * second confirms a low-confidence change: docs/product-rules.md#flap-damping). The banner rotates at fetches 1, 5,
 * 11 and 17, the testimonial at 3, 7, 13 and 19; the headline changes at fetch 9 and the Pro price at 15.
 */
export const ROTATING_HISTORY: HistoryStep[] = (() => {
  const steps: HistoryStep[] = [{ banner: 0, quote: 0, headline: H1, price: 29 }];
  const moves: Partial<HistoryStep>[] = [
    { banner: 1 },
    { quote: 1 },
    { banner: 2 },
    { quote: 2 },
    { headline: H1_NEW },
    { banner: 3 },
    { quote: 3 },
    { price: 39 },
    { banner: 0 },
    { quote: 0 },
  ];
  for (const move of moves) {
    const next = { ...steps.at(-1)!, ...move };
    steps.push(next, { ...next });
  }
  return steps;
})();

/** The fetches that show a real change (the headline, the price); every other fetch's change is noise. */
export const REAL_CHANGES = [9, 15];

export function changeAt(index: number): StepChange {
  const before = ROTATING_HISTORY[index - 1]!;
  const after = ROTATING_HISTORY[index]!;
  return {
    banner: before.banner !== after.banner,
    quote: before.quote !== after.quote,
    headline: before.headline !== after.headline,
    price: before.price !== after.price,
  };
}

/** The homepage at one step. */
export function rotatingPage(step: HistoryStep): string {
  return `<!doctype html><html><head><title>Acme: software delivery for busy teams</title></head><body>
<nav><a href="/">Home</a> <a href="/pricing">Pricing</a></nav>
<main>
<div class="announcement"><p>${BANNERS[step.banner]}</p></div>
<h1>${step.headline}</h1>
<h2>What our customers say</h2>
<blockquote><p>${QUOTES[step.quote]}</p></blockquote>
<h2>Plans</h2>
<div class="plans">
<div class="plan card"><h3>Starter</h3><p class="price">$9/month</p></div>
<div class="plan card"><h3>Pro</h3><p class="price">$${step.price}/month</p></div>
</div>
</main>
<footer>Acme Inc.</footer>
</body></html>`;
}
