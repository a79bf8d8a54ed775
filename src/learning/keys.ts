/**
 * The subject and region of a change, as learned rules name it (docs/product-rules.md#learned-rules). Pure: derived
 * from what detection already has when it classifies a diff (the draft, and the two extractions it compared), so the
 * same change always gets the same keys, and a rule learned from one event covers the same kind of change on later
 * fetches and in re-analysis.
 *
 * - narrative fields: one key per field (`narrative:hero`, `narrative:h1`, …);
 * - a text-only rewrite: one key per section the changed lines sit in, named by the heading above them
 *   (`text:what our customers say`; `text:top` above the first heading), so a rotating testimonial and a real
 *   rewrite of another section are told apart;
 * - pricing events whose prices (list and promotional) did not move: `pricing:<plan>:features`,
 *   `pricing:renamed:<plans>`; every other pricing event (an amount changed, a plan added or removed) is protected: no rule
 *   ever covers it;
 * - product items: the first segment of the item's path (`item:/customers`), else the item itself;
 * - hiring: the kind and department of each role (`hiring:opened@sales`).
 *
 * An event is covered by a source's rules only when every one of its keys is: a change elsewhere on the page adds a
 * key no rule names.
 */
import type { EventDraft, Extraction } from "../detection/types.js";

/** One key of a change, with the words a person reads it in. */
export interface LearnKey {
  key: string;
  description: string;
}

/** What learned rules may do with a change: its keys, or `protected` for a change no rule may cover. */
export interface Learnable {
  keys: LearnKey[];
  protected: boolean;
}

/** A draft carrying its keys (stored with waiting drafts, so a confirmed change keeps them). */
export type KeyedDraft = EventDraft & { learn?: Learnable };

const FIELD_WORDS: Record<string, string> = {
  h1: "the headline",
  hero: "the hero copy",
  title: "the page title",
  meta_description: "the meta description",
  h2: "the section headings",
};

/** Pricing changes whose prices stay put, by the tag classification gives them: the only pricing events rules cover. */
const LEARNABLE_PRICING: Record<string, string> = {
  "promotion-started": "promotion",
  "promotion-changed": "promotion",
  "promotion-ended": "promotion",
  features: "features",
};

const MAX_KEYS = 20;

/** The keys of a draft, given the extractions its diff compared (null when unknown: keys from the draft alone). */
export function learnableOf(draft: EventDraft, before: Extraction | null, after: Extraction | null): Learnable {
  const keys = keysOf(draft, before, after);
  if (keys === null) return { keys: [], protected: true };
  const unique = new Map(keys.map((k) => [k.key, k]));
  return { keys: [...unique.values()].slice(0, MAX_KEYS), protected: false };
}

/** The draft's keys, computed when it carries none (an older waiting change). */
export function learnableOfDraft(draft: KeyedDraft): Learnable {
  return draft.learn ?? learnableOf(draft, null, null);
}

function keysOf(draft: EventDraft, before: Extraction | null, after: Extraction | null): LearnKey[] | null {
  const subject = draft.subject;
  if (draft.event_type === "pricing_change") return pricingKeys(draft);
  if (subject === "narrative:text") return textKeys(draft, before, after);
  if (subject.startsWith("narrative:")) {
    return subject
      .slice("narrative:".length)
      .split("+")
      .map((field) => ({ key: `narrative:${field}`, description: `Changes to ${FIELD_WORDS[field] ?? field}` }));
  }
  if (subject.startsWith("product:item:")) return itemKeys(draft);
  if (subject.startsWith("hiring:")) return hiringKeys(draft);
  return [{ key: subject, description: `Changes of ${subject}` }];
}

function pricingKeys(draft: EventDraft): LearnKey[] | null {
  if (draft.subject.startsWith("pricing:renamed:")) {
    const plans = draft.subject.slice("pricing:renamed:".length);
    return [{ key: `pricing:renamed:${plans}`, description: `Renames of the ${plans.replace(/\+/g, ", ")} plans` }];
  }
  const kind = draft.tags.map((tag) => LEARNABLE_PRICING[tag]).find((k) => k !== undefined);
  if (!kind || amountMoved(draft)) return null;
  const plan = draft.subject.slice("pricing:plan:".length);
  return [
    {
      key: `pricing:${plan}:${kind}`,
      description: kind === "promotion" ? `Promotions on the ${plan} plan` : `Feature list changes of the ${plan} plan`,
    },
  ];
}

/** Whether the plan's list price moved (or the plan came or went): a price change, never covered by a rule. */
function amountMoved(draft: EventDraft): boolean {
  try {
    const before = JSON.parse(draft.before_state) as { amount?: unknown; promo_amount?: unknown } | null;
    const after = JSON.parse(draft.after_state) as { amount?: unknown; promo_amount?: unknown } | null;
    if (before === null || after === null) return true;
    // A promotional price is a price too: a promotion starting, changing or ending moves it.
    return before.amount !== after.amount || (before.promo_amount ?? null) !== (after.promo_amount ?? null);
  } catch {
    return true;
  }
}

function textKeys(draft: EventDraft, before: Extraction | null, after: Extraction | null): LearnKey[] {
  const evidence = draft.evidence.find((item) => Array.isArray(item.metadata.added));
  const added = (evidence?.metadata.added as string[] | undefined) ?? [];
  const removed = (evidence?.metadata.removed as string[] | undefined) ?? [];
  const regions = [...added.map((line) => regionOf(line, after)), ...removed.map((line) => regionOf(line, before))];
  if (regions.length === 0) return [PAGE_REGION];
  return regions.map((heading) =>
    heading === undefined
      ? PAGE_REGION
      : heading === null
        ? { key: "text:top", description: "Text changes above the page's first heading" }
        : { key: `text:${normalise(heading)}`, description: `Text changes in the "${heading}" section` },
  );
}

/** The region of a line whose place on the page is unknown: the whole page, one region of its own. */
const PAGE_REGION: LearnKey = { key: "text:page", description: "Text changes whose section is unknown" };

/**
 * The heading of the section a line of the main text sits in: the nearest heading line above it (h1 or h2 of the
 * extraction), null above the first, undefined when the line is not found (or the extraction is unknown: an older
 * change).
 */
function regionOf(line: string, extraction: Extraction | null): string | null | undefined {
  if (!extraction) return undefined;
  const headings = new Set([...extraction.narrative.h1, ...extraction.narrative.h2].map(normalise));
  const wanted = normalise(line.replace(/…$/, ""));
  let current: string | null = null;
  for (const raw of extraction.text.split("\n")) {
    const text = normalise(raw);
    if (headings.has(text)) {
      current = raw.trim();
      continue;
    }
    if (text === wanted || (wanted.length >= 100 && text.startsWith(wanted))) return current;
  }
  return undefined;
}

function itemKeys(draft: EventDraft): LearnKey[] {
  const record = draft.evidence.find((item) => item.evidence_type === "record");
  const url = typeof record?.metadata.url === "string" ? record.metadata.url : null;
  const itemKey = draft.subject.slice("product:item:".length);
  if (url) {
    try {
      const segment = new URL(url).pathname.split("/").filter(Boolean)[0];
      if (segment) return [{ key: `item:/${segment.toLowerCase()}`, description: `New items under /${segment}` }];
    } catch {
      // An item without a usable URL is its own region.
    }
  }
  return [{ key: `item:${itemKey}`, description: `The item "${draft.title}"` }];
}

function hiringKeys(draft: EventDraft): LearnKey[] {
  const kind = draft.subject.startsWith("hiring:opened") ? "opened" : "closed";
  const departments = draft.evidence
    .filter((item) => item.evidence_type === "record")
    .map((item) => (typeof item.metadata.department === "string" ? item.metadata.department : null));
  const list = departments.length > 0 ? departments : [null];
  return list.map((department) => ({
    key: `hiring:${kind}@${department ? normalise(department) : "any"}`,
    description: `Roles ${kind} ${department ? `in ${department}` : "without a department"}`,
  }));
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}
