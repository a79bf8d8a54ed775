/**
 * Extraction → extraction diff (the "diff" step of fetch → extract → diff → classify). Records are matched by key;
 * narrative fields and text are compared after normalisation so that whitespace and masked volatile tokens
 * (‹date›, ‹time›, ‹n›, ‹token›) never count as changes (docs/product-rules.md#diff: a typo fix is nothing, a timestamp
 * is less). The output is stored (diffs.diff_json) and classified, so it is deterministic: records sorted by key,
 * narrative fields in a fixed order, text lines in page order.
 */
import { diffArrays, diffWords } from "diff";
import {
  optionChanges,
  otherViewOfOnePrice,
  pairDiffers,
  pairPrices,
  priceOptions,
  samePriceList,
} from "../read/pricing/plan.js";
import type {
  ContentItem,
  Extraction,
  JobPosting,
  Narrative,
  NarrativeChange,
  PriceOption,
  PricingPlan,
  RecordChange,
  SnapshotDiff,
} from "../types.js";

/** At most this many added (and removed) lines are kept, each cut to LINE_MAX_CHARS (docs/product-rules.md#diff). */
export const TEXT_LINES_MAX = 50;
export const LINE_MAX_CHARS = 500;

/**
 * Word diffs of one changed region stop after this many edits, and the region then counts as fully changed: every
 * line in a region differs (unchanged lines end a region), so a region with this many word edits is mostly rewritten.
 * Myers' cost grows with the square of the edit length (≈ 0.3 s at 1,500 on a 30k-word region, 2 s at 4,000); an edit
 * length rather than a timeout keeps the result deterministic.
 */
const WORD_DIFF_MAX_EDITS = 1500;
/** Line diffs stop after this many line edits (≈ 0.1 s); past it most of the page changed and a set difference serves. */
const LINE_DIFF_MAX_EDITS = 1000;

/**
 * A run of masked placeholders. A placeholder holds no `‹`: with `[^›\n]*` a line of many `‹` and no `›` made every
 * `‹` scan to the end of the line, quadratic in its length (5 MB of `‹` took minutes).
 */
const PLACEHOLDER_RUN = /‹[^‹›\n]*›(?:[\s\p{P}\p{S}]*‹[^‹›\n]*›)*/gu;

/** Whitespace collapsed and trimmed: how lines and fields are shown in the diff. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The form two strings are compared in: whitespace collapsed, and every run of masked placeholders reduced to one
 * `‹›`, so "‹date›" → "‹time›" or "‹n› ‹n›" → "‹n›" (a volatile token that changed shape) is not a change.
 */
export function canonicalText(text: string): string {
  return collapseWhitespace(text.replace(PLACEHOLDER_RUN, "‹›"));
}

function sameText(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return canonicalText(a) === canonicalText(b);
}

function sameTextList(a: string[], b: string[]): boolean {
  const left = a.map(canonicalText).sort();
  const right = b.map(canonicalText).sort();
  return left.length === right.length && left.every((value, i) => value === right[i]);
}

type FieldComparators<T> = [field: keyof T & string, same: (a: T, b: T) => boolean][];

/**
 * Amounts are compared like with like (read/pricing/plan.ts pairPrices): a record's prices on the same billing cycle;
 * a monthly price never against a yearly one, so a page switching from its monthly to its annual view changes no
 * price. Shown or hidden ("Contact sales") is compared as it is.
 */
function sameAmounts(a: PricingPlan, b: PricingPlan): boolean {
  if (a.amount === null || b.amount === null) return a.amount === b.amount;
  return !pairPrices(a, b).some(pairDiffers);
}

function sameCurrency(a: PricingPlan, b: PricingPlan): boolean {
  const upper = (currency: string | null) => currency?.toUpperCase() ?? null;
  const pairs = a.amount === null || b.amount === null ? [] : pairPrices(a, b);
  if (pairs.length === 0) return upper(a.currency) === upper(b.currency);
  return pairs.every((pair) => upper(pair.before.currency) === upper(pair.after.currency));
}

/**
 * A period changed only where the page shows one price per another period: at the same number ($49/month → $49/year),
 * or at a number no switch of view explains ($9.99/year → $49.99/month; $49/month → $490/year is the other view).
 */
function samePeriod(a: PricingPlan, b: PricingPlan): boolean {
  if (a.period === b.period) return true;
  if (priceOptions(a).length > 1 || priceOptions(b).length > 1) return true;
  if (a.amount === b.amount) return false;
  return a.amount === null || b.amount === null || otherViewOfOnePrice(priceOptions(a)[0]!, priceOptions(b)[0]!);
}

// The plan fields of docs/product-rules.md#diff. `origin` is not compared: where a price was read is not a change of
// the price. Features are compared as a set: a reordered card is the same offer.
const PLAN_FIELDS: FieldComparators<PricingPlan> = [
  ["amount", sameAmounts],
  ["currency", sameCurrency],
  ["period", samePeriod],
  ["is_free", (a, b) => a.is_free === b.is_free],
  ["name", (a, b) => sameText(a.name, b.name)],
  ["features", (a, b) => sameTextList(a.features, b.features)],
  // Absent in extractions stored before they existed: a plan without a promotion.
  ["kind", (a, b) => (a.kind ?? "plan") === (b.kind ?? "plan")],
  ["promo_amount", (a, b) => (a.promo_amount ?? null) === (b.promo_amount ?? null)],
  ["per_seat", (a, b) => (a.per_seat ?? false) === (b.per_seat ?? false)],
  // A billing option added beside the prices that stayed, or dropped (not a switched view: plan.ts optionChanges).
  [
    "prices",
    (a, b) => {
      const { added, dropped } = optionChanges(a, b);
      return added.length === 0 && dropped.length === 0;
    },
  ],
];

// A posting's URL is left out: tracking parameters change between fetches without the job changing.
const JOB_FIELDS: FieldComparators<JobPosting> = [
  ["title", (a, b) => sameText(a.title, b.title)],
  ["location", (a, b) => sameText(a.location, b.location)],
  ["department", (a, b) => sameText(a.department, b.department)],
];

const ITEM_FIELDS: FieldComparators<ContentItem> = [
  ["title", (a, b) => sameText(a.title, b.title)],
  ["date", (a, b) => a.date === b.date],
  ["summary", (a, b) => sameText(a.summary, b.summary)],
];

function byKey<T extends { key: string }>(records: T[]): Map<string, T> {
  const map = new Map<string, T>();
  // Keys should be unique per extraction; if the extractor ever repeats one, the first occurrence (page order) wins.
  for (const record of records) if (!map.has(record.key)) map.set(record.key, record);
  return map;
}

function compareKeys(a: string, b: string): number {
  // Code-unit order, not localeCompare: the order must not depend on the process's locale.
  return a < b ? -1 : a > b ? 1 : 0;
}

function diffRecords<T extends { key: string }>(before: T[], after: T[], fields: FieldComparators<T>) {
  const old = byKey(before);
  const current = byKey(after);
  const keys = [...new Set([...old.keys(), ...current.keys()])].sort(compareKeys);
  const changes: RecordChange<T>[] = [];
  for (const key of keys) {
    const b = old.get(key) ?? null;
    const a = current.get(key) ?? null;
    if (b === null && a !== null) changes.push({ kind: "added", key, before: null, after: a, fields: [] });
    else if (b !== null && a === null) changes.push({ kind: "removed", key, before: b, after: null, fields: [] });
    else if (b !== null && a !== null) {
      const changed = fields.filter(([, same]) => !same(b, a)).map(([field]) => field);
      if (changed.length > 0) changes.push({ kind: "changed", key, before: b, after: a, fields: changed });
    }
  }
  return changes;
}

/**
 * A record removed and another added with the same prices (all of them) is one record renamed: Free/Standard/Plus
 * becoming Hobbyist/Business/Business Plus at the same prices is no free tier removed and three plans added
 * (docs/real-pages.md#renames-at-the-same-price). Two named records must also be of one kind; a price read by its
 * context that reappears under another context or with a name of its own is the same price read anew. Paired in key
 * order, one to one.
 */
function pairRenames(changes: RecordChange<PricingPlan>[]): RecordChange<PricingPlan>[] {
  const added = changes.filter((change) => change.kind === "added");
  const renamed = new Map<RecordChange<PricingPlan>, RecordChange<PricingPlan>>();
  const taken = new Set<RecordChange<PricingPlan>>();
  for (const removal of changes) {
    if (removal.kind !== "removed") continue;
    const before = removal.before!;
    const match = added.find((addition) => {
      const after = addition.after!;
      if (taken.has(addition) || !samePriceList(before, after)) return false;
      const context = before.origin === "context" || after.origin === "context";
      return context || (after.kind ?? "plan") === (before.kind ?? "plan");
    });
    if (match) {
      renamed.set(removal, match);
      taken.add(match);
    }
  }
  if (renamed.size === 0) return changes;
  const out: RecordChange<PricingPlan>[] = [];
  for (const change of changes) {
    if (taken.has(change)) continue;
    const addition = renamed.get(change);
    out.push(
      addition
        ? { kind: "renamed", key: addition.key, before: change.before, after: addition.after, fields: ["name"] }
        : change,
    );
  }
  return out.sort((a, b) => compareKeys(a.key, b.key));
}

/** A context record's key without the number that keeps apart two prices of one context ("… (2)"). */
const contextGroup = (key: string): string => key.replace(/ \(\d+\)$/, "");

/**
 * Prices read by their context (docs/real-pages.md#a-price-change-is-never-silent) are numbered by their order under
 * one context, so a price inserted before others would shift every number after it. They are matched by what they
 * state instead: the same prices under one context, in any order, are no change; of those left, the k-th that went is
 * paired with the k-th that came (a changed price), and the rest came or went. A price that appears or disappears is
 * a change even beside named plans ("$6k/year for a dedicated instance" added under the plans): a missed price is worse
 * than a mention told, and the event says what it is (a price named by its context, confidence 0.5, inferred). Only
 * where both fetches name their plans and the price stands under a question (an FAQ's answer: "Which payment methods
 * do you support?") is its coming or going no change.
 */
function settleContextChanges(
  all: RecordChange<PricingPlan>[],
  before: PricingPlan[],
  after: PricingPlan[],
): RecordChange<PricingPlan>[] {
  // Rematched, a context price may come out gone under one label and come under another ("Secure payments by Paddle"
  // $2.99 → "Price" $2.99): the same price read anew, paired as a rename like any other.
  const changes = pairRenames(pairReworded(rematchContextGroups(all, before, after)));
  const named = (plans: PricingPlan[]) => plans.some((plan) => plan.origin !== "context");
  const bothNamed = named(before) && named(after);
  return changes.filter((change) => {
    const record = (change.after ?? change.before)!;
    if (change.kind !== "changed" && change.kind !== "renamed" && copiesCard(record, before, after)) return false;
    const context = change.kind !== "renamed" && record.origin === "context";
    if (!context || change.kind === "changed") return true;
    // Unless the answer prices more of something ("…an extra $10 for each additional 10,000,000 invocations"): the
    // reader makes it an add-on, a price wherever it is written.
    if (bothNamed && underQuestion(record) && record.kind !== "addon") return false;
    // The same price still stated, by a record named after the same thing, on the side it seems to be missing from
    // ("$2.00 per 10K additional API check runs" under "Team" gone from the card, "Team – API check runs: $2/10K" still
    // in the table): one statement of it less, not a price removed.
    return !(change.kind === "added" ? before : after).some((other) => restates(other, record));
  });
}

/**
 * A comparison table's column that states a card's prices, no more, while that card stands unchanged on both sides
 * (the large-screen table of a page that shows cards on small screens, its column named "Essential" over the card's
 * "Business" at $249, then renamed to match): a copy of the card coming or going, not a plan.
 */
function copiesCard(record: PricingPlan, before: PricingPlan[], after: PricingPlan[]): boolean {
  // A plan's column only: a row of its own ("Business – Tunnels included", "Cost per tunnel (Personal)") is an offer.
  if (record.origin !== "table" || record.amount === null || (record.kind ?? "plan") !== "plan") return false;
  if (/ – |\(/.test(record.name)) return false;
  return before.some((card) => {
    if (card.origin !== "card") return false;
    const same = after.find((other) => other.key === card.key);
    if (!same || statedPrices(same) !== statedPrices(card)) return false;
    const shown = new Set(priceOptions(card).map(optionId));
    return priceOptions(record).every((option) => shown.has(optionId(option)));
  });
}

/**
 * `other` states `record`'s price under a name that holds `record`'s name. Not for an offer at no price: a second
 * free allowance ("Free allowance" under another section) is an offer of its own, not the first one stated again.
 */
function restates(other: PricingPlan, record: PricingPlan): boolean {
  if (other === record || !record.amount || other.amount !== record.amount) return false;
  if ((other.currency ?? record.currency) !== record.currency) return false;
  const name = record.name.replace(/ \(\d+\)$/, "").toLowerCase();
  // Another price of the same context (the second "5 compute credits" of a list) is no restatement: it is the list.
  return contextGroup(other.key) !== contextGroup(record.key) && ` ${other.name.toLowerCase()} `.includes(` ${name} `);
}

/** A context price stated under a question (its section's heading or its own label ends with "?"). */
function underQuestion(record: PricingPlan): boolean {
  return /\?/.test(`${record.context ?? ""} ${record.name}`);
}

/** One price as compared here: amount, currency and period. */
const optionId = (o: PriceOption): string => `${o.amount}|${o.currency}|${o.period}`;

/** What a record states, to match context prices by: its prices in order, and its promotion. */
const statedPrices = (plan: PricingPlan): string =>
  priceOptions(plan).map(optionId).join(",") + `|promo:${plan.promo_amount ?? ""}`;

/** The changes of each context group, recomputed by matching its records by what they state (see above). */
function rematchContextGroups(
  changes: RecordChange<PricingPlan>[],
  before: PricingPlan[],
  after: PricingPlan[],
): RecordChange<PricingPlan>[] {
  const members = (plans: PricingPlan[], group: string) =>
    plans.filter((plan) => plan.origin === "context" && contextGroup(plan.key) === group);
  const groups = new Set(
    changes
      .filter((change) => change.kind !== "renamed" && (change.after ?? change.before)!.origin === "context")
      .map((change) => contextGroup(change.key)),
  );
  // A group whose records each seem the same one shown per another period ("$3/month" where "$30/year" was, and the
  // other way round) gives no change record by record, yet what it states changed ($3 → $4 a month): recomputed too.
  const keys = (plans: PricingPlan[], group: string) =>
    members(plans, group)
      .map((plan) => plan.key)
      .join(";");
  const statements = (plans: PricingPlan[], group: string) => members(plans, group).map(statedPrices).sort().join(";");
  for (const plan of before) {
    if (plan.origin !== "context") continue;
    const group = contextGroup(plan.key);
    if (groups.has(group) || keys(before, group) !== keys(after, group)) continue;
    if (statements(before, group) !== statements(after, group)) groups.add(group);
  }
  if (groups.size === 0) return changes;
  const out = changes.filter(
    (change) =>
      change.kind === "renamed" ||
      (change.after ?? change.before)!.origin !== "context" ||
      !groups.has(contextGroup(change.key)),
  );
  for (const group of groups) {
    const went = members(before, group);
    const came = members(after, group);
    // The same statements on both sides are no change, whatever their order.
    for (let i = went.length - 1; i >= 0; i--) {
      const same = came.findIndex((plan) => statedPrices(plan) === statedPrices(went[i]!));
      if (same === -1) continue;
      went.splice(i, 1);
      came.splice(same, 1);
    }
    const paired = Math.min(went.length, came.length);
    for (let k = 0; k < paired; k++) {
      const [b, a] = [went[k]!, came[k]!];
      out.push({
        kind: "changed",
        key: a.key,
        before: b,
        after: a,
        fields: b.amount === a.amount ? ["prices"] : ["amount"],
      });
    }
    for (const plan of went.slice(paired))
      out.push({ kind: "removed", key: plan.key, before: plan, after: null, fields: [] });
    for (const plan of came.slice(paired))
      out.push({ kind: "added", key: plan.key, before: null, after: plan, fields: [] });
  }
  return out.sort((a, b) => compareKeys(a.key, b.key));
}

/** The section part of a context record's key: `context:<section>|`; empty when no heading stands above it. */
const contextSection = (key: string): string =>
  key.startsWith("context:") && !key.startsWith("context:|") ? key.slice(0, key.indexOf("|") + 1) : "";

/**
 * A price by its context that went away while another came under the same section heading, at other prices, is that
 * price changed with its sentence reworded ("Dedicated M2 or Intel hosts are available for $449/month" becoming
 * "Dedicated M2 hosts are available for $830/month"): paired in page order, they are one change, never two mentions.
 */
function pairReworded(changes: RecordChange<PricingPlan>[]): RecordChange<PricingPlan>[] {
  const added = changes.filter((change) => change.kind === "added" && contextSection(change.key) !== "");
  if (added.length === 0) return changes;
  const paired = new Map<RecordChange<PricingPlan>, RecordChange<PricingPlan>>();
  const taken = new Set<RecordChange<PricingPlan>>();
  for (const removal of changes) {
    if (removal.kind !== "removed" || contextSection(removal.key) === "") continue;
    const match = added.find(
      (addition) =>
        !taken.has(addition) &&
        contextSection(addition.key) === contextSection(removal.key) &&
        !samePriceList(removal.before!, addition.after!),
    );
    if (match) {
      paired.set(removal, match);
      taken.add(match);
    }
  }
  if (paired.size === 0) return changes;
  const out: RecordChange<PricingPlan>[] = [];
  for (const change of changes) {
    if (taken.has(change)) continue;
    const addition = paired.get(change);
    out.push(
      addition
        ? {
            kind: "changed",
            key: addition.key,
            before: change.before,
            after: addition.after,
            fields: change.before!.amount === addition.after!.amount ? ["prices"] : ["amount"],
          }
        : change,
    );
  }
  return out.sort((a, b) => compareKeys(a.key, b.key));
}

/** Headings are joined in page order (a reordered set of headings reads differently); blank means absent. */
export const HEADING_SEPARATOR = " | ";

function narrativeValue(narrative: Narrative, field: NarrativeChange["field"]): string | null {
  const value =
    field === "h1" || field === "h2"
      ? narrative[field].map(collapseWhitespace).filter(Boolean).join(HEADING_SEPARATOR)
      : collapseWhitespace(narrative[field] ?? "");
  return value === "" ? null : value;
}

const NARRATIVE_FIELDS: NarrativeChange["field"][] = ["title", "meta_description", "h1", "h2", "hero"];

function diffNarrative(before: Narrative, after: Narrative): NarrativeChange[] {
  const changes: NarrativeChange[] = [];
  for (const field of NARRATIVE_FIELDS) {
    const b = narrativeValue(before, field);
    const a = narrativeValue(after, field);
    if (!sameText(b, a)) changes.push({ field, before: b, after: a });
  }
  return changes;
}

interface Lines {
  shown: string[];
  canonical: string[];
}

function splitLines(text: string): Lines {
  const shown = text.split(/\r?\n/).map(collapseWhitespace).filter(Boolean);
  return { shown, canonical: shown.map(canonicalText) };
}

function countWords(text: string): number {
  if (text.trim() === "") return 0;
  // diffWords' own tokenisation (words and punctuation marks), so numerator and denominator count the same units.
  return diffWords("", text).reduce((sum, change) => sum + change.count, 0);
}

function changedWords(removed: string, added: string): number {
  const changes = diffWords(removed, added, { maxEditLength: WORD_DIFF_MAX_EDITS });
  if (changes === undefined) return countWords(removed) + countWords(added);
  return changes.filter((c) => c.added || c.removed).reduce((sum, c) => sum + c.count, 0);
}

function capLine(line: string): string {
  const chars = Array.from(line);
  return chars.length > LINE_MAX_CHARS ? chars.slice(0, LINE_MAX_CHARS).join("") : line;
}

/** Line indexes of one edited region: consecutive removed and added lines (a replaced block). */
interface Region {
  removed: number[];
  added: number[];
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, k) => from + k);
}

function lineRegions(before: Lines, after: Lines): Region[] {
  // diffArrays over the lines rather than diffLines over the joined text: same line-level Myers diff, but lines are
  // compared in canonical form while the shown form is kept, and a missing final newline is not a change.
  const changes = diffArrays(before.canonical, after.canonical, { maxEditLength: LINE_DIFF_MAX_EDITS });
  if (changes === undefined) {
    // Most of the page changed: one region of the lines the other side does not have, in page order.
    const old = new Set(before.canonical);
    const current = new Set(after.canonical);
    return [
      {
        removed: range(0, before.canonical.length).filter((i) => !current.has(before.canonical[i]!)),
        added: range(0, after.canonical.length).filter((j) => !old.has(after.canonical[j]!)),
      },
    ];
  }
  const regions: Region[] = [];
  let i = 0; // index into before
  let j = 0; // index into after
  let c = 0;
  while (c < changes.length) {
    const common = changes[c]!;
    if (!common.added && !common.removed) {
      i += common.count;
      j += common.count;
      c++;
      continue;
    }
    const region: Region = { removed: [], added: [] };
    for (; c < changes.length && (changes[c]!.added || changes[c]!.removed); c++) {
      const change = changes[c]!;
      if (change.removed) {
        region.removed.push(...range(i, change.count));
        i += change.count;
      } else {
        region.added.push(...range(j, change.count));
        j += change.count;
      }
    }
    regions.push(region);
  }
  return regions;
}

function diffText(beforeText: string, afterText: string): SnapshotDiff["text"] {
  const before = splitLines(beforeText);
  const after = splitLines(afterText);
  const added: string[] = [];
  const removed: string[] = [];
  let changed = 0;
  for (const region of lineRegions(before, after)) {
    // Each region is compared as a whole, so a block edited in place counts only its changed words.
    const removedCanonical = region.removed.map((i) => before.canonical[i]!).join(" ");
    const addedCanonical = region.added.map((j) => after.canonical[j]!).join(" ");
    // Re-flowed blocks (a paragraph split in two, a space added inside a word) differ only in whitespace.
    if (removedCanonical.replace(/\s+/g, "") === addedCanonical.replace(/\s+/g, "")) continue;
    changed += changedWords(removedCanonical, addedCanonical);
    removed.push(...region.removed.map((i) => before.shown[i]!));
    added.push(...region.added.map((j) => after.shown[j]!));
  }
  const total = countWords(before.canonical.join(" ")) + countWords(after.canonical.join(" "));
  const ratio = total === 0 ? 0 : Math.min(1, changed / total);
  return {
    added: added.slice(0, TEXT_LINES_MAX).map(capLine),
    removed: removed.slice(0, TEXT_LINES_MAX).map(capLine),
    // Four decimals: enough for the 0.02 / 0.15 thresholds, and stable when stored as JSON.
    change_ratio: Math.round(ratio * 10_000) / 10_000,
  };
}

function emptyDiff(): SnapshotDiff {
  return { pricing: [], jobs: [], items: [], narrative: [], text: { added: [], removed: [], change_ratio: 0 } };
}

/** What changed from `before` to `after` (two extractions of the same source). */
export function diffExtractions(before: Extraction, after: Extraction): SnapshotDiff {
  // A bot-challenge interstitial is not the page: comparing it would report every plan, job and item as removed.
  if (before.signals.bot_challenge || after.signals.bot_challenge) return emptyDiff();
  return {
    pricing: settleContextChanges(
      pairRenames(diffRecords(before.pricing, after.pricing, PLAN_FIELDS)),
      before.pricing,
      after.pricing,
    ),
    jobs: diffRecords(before.jobs, after.jobs, JOB_FIELDS),
    items: diffRecords(before.items, after.items, ITEM_FIELDS),
    narrative: diffNarrative(before.narrative, after.narrative),
    text: diffText(before.text, after.text),
  };
}

/** True when nothing changed: no record, narrative or text difference. */
export function isEmptyDiff(diff: SnapshotDiff): boolean {
  return (
    diff.pricing.length === 0 &&
    diff.jobs.length === 0 &&
    diff.items.length === 0 &&
    diff.narrative.length === 0 &&
    diff.text.added.length === 0 &&
    diff.text.removed.length === 0 &&
    diff.text.change_ratio === 0
  );
}
