/**
 * The shapes that flow through detection: fetch → extract → diff → classify → events.
 * Extraction and diffs are stored as JSON (snapshots.extraction_json, diffs.diff_json), so these types are also a
 * storage format: bump EXTRACTOR_VERSION when an extraction changes meaning.
 */

export const EXTRACTOR_VERSION = 17;

import type { EventType, Severity } from "../http/schemas.js";

export type { EventType, Severity };
export type BillingPeriod = "month" | "year" | "one_time";

/** One pricing plan found on a page. */
export interface PricingPlan {
  /** Stable identity across fetches: the plan name lowercased, whitespace collapsed (e.g. `pro`). */
  key: string;
  /** Plan name as shown (e.g. `Pro`). */
  name: string;
  /** Price per `period` in major units (49 for $49), `null` when the plan shows no number ("Contact sales"). */
  amount: number | null;
  /** ISO 4217 code (`USD`, `EUR`, `GBP`, …), `null` when unknown. */
  currency: string | null;
  /** Billing period of `amount`; `null` when unknown. */
  period: BillingPeriod | null;
  /** Free plan (amount 0 or labelled free). */
  is_free: boolean;
  /**
   * Where it came from; decides confidence: structured data > a record of a repeated set (a plan card, a grid column,
   * a table row) > a comparison grid's column read through its header > a price named by its context. "jsonld" means
   * structured data: JSON-LD, microdata or product price meta tags (src/detection/read/pricing/offers.ts); "token" is
   * the loose-price reader of extractions before version 9.
   */
  origin: "jsonld" | "card" | "table" | "context" | "token";
  /**
   * Every price the record shows, when it shows more than one or says how it is billed: one plan at two periods
   * ("$10/month", "$96/year"), "$8/month billed annually" beside "$10/month billed monthly". The first is `amount`,
   * `currency` and `period`. Absent when the record has one price and says nothing of billing.
   */
  prices?: PriceOption[];
  /**
   * For `origin: "context"`: where the price was read, the heading of its section and the label on its line, for a
   * price no plan could be named for ("Add-ons › Extra seats").
   */
  context?: string;
  /** Up to 20 feature lines of the plan card, masked and trimmed. */
  features: string[];
  /**
   * What the record is (docs/real-pages.md#plans-add-ons-and-promotions): a `plan`, an `addon` sold beside the plans
   * (extra seats, an extra product), or a `usage` meter priced per unit of use ($0.0004 per request, $5/GB). Add-ons
   * and meters are tracked as records of their own; their changes weigh less than a plan's. Absent in extractions
   * stored before it existed: read as `plan`.
   */
  kind?: PriceKind;
  /**
   * The promotional price shown beside the list price, in `currency` per `period` ("$49" struck through beside "$39",
   * "$39 for the first 3 months, then $49"); `amount` is then the list price. When the page shows only a promotional
   * price ("$39 for the first 3 months"), `amount` and `promo_amount` are both that price. Null (or absent) without a
   * promotion. A promotion starting, changing or ending is its own low-severity event, not a price change.
   */
  promo_amount?: number | null;
  /**
   * The price is per user, seat or member ("$10/user/month", "$8 per seat"): what a team pays grows with its size.
   * Written only when true; absent in extractions stored before it existed (they are re-extracted: EXTRACTOR_VERSION).
   */
  per_seat?: boolean;
}

export type PriceKind = "plan" | "addon" | "usage";

/** One price of a record: an amount per period, and how it is billed when the page says ("billed annually"). */
export interface PriceOption {
  amount: number | null;
  currency: string | null;
  period: BillingPeriod | null;
  billing?: "month" | "year" | null;
}

/** A tier the page sells (what insights and teardowns list): not an add-on, a usage meter or a price read by context. */
export function isPlanRecord(plan: Pick<PricingPlan, "kind" | "origin">): boolean {
  return (plan.kind ?? "plan") === "plan" && plan.origin !== "context";
}

/** One open job. */
export interface JobPosting {
  /** Stable identity: the posting's id or URL when present, else `title|location` lowercased. */
  key: string;
  title: string;
  location: string | null;
  department: string | null;
  url: string | null;
  origin: "jsonld" | "list";
}

/** One changelog entry, blog post or feed item. */
export interface ContentItem {
  /** Stable identity: guid, else absolute URL, else title lowercased. */
  key: string;
  title: string;
  /** ISO-8601 date when the page or feed gives one. */
  date: string | null;
  url: string | null;
  /** First ~300 characters of the item's text. */
  summary: string | null;
}

/** How a page presents the company. */
export interface Narrative {
  title: string | null;
  meta_description: string | null;
  h1: string[];
  h2: string[];
  /** The hero copy: first substantial paragraph of the main content (masked). */
  hero: string | null;
}

/** Everything extracted from one fetched body. */
export interface Extraction {
  version: number;
  /** Main text, boilerplate removed (nav, footer, scripts, cookie banners), volatile tokens masked, one block per line. */
  text: string;
  pricing: PricingPlan[];
  jobs: JobPosting[];
  items: ContentItem[];
  narrative: Narrative;
  signals: {
    /** The body is a bot challenge / CAPTCHA interstitial, not the page. */
    bot_challenge: boolean;
  };
}

/**
 * A keyed record that appeared, disappeared or changed between two extractions; `renamed` pairs a pricing record that
 * disappeared with one that appeared at the same prices (the key is the new one's).
 */
export interface RecordChange<T> {
  kind: "added" | "removed" | "changed" | "renamed";
  key: string;
  before: T | null;
  after: T | null;
  /** For `changed`: the fields that differ (e.g. `["amount"]`). */
  fields: string[];
}

export interface NarrativeChange {
  field: "title" | "meta_description" | "h1" | "h2" | "hero";
  before: string | null;
  after: string | null;
}

/** What changed between two extractions of one source. */
export interface SnapshotDiff {
  pricing: RecordChange<PricingPlan>[];
  jobs: RecordChange<JobPosting>[];
  items: RecordChange<ContentItem>[];
  narrative: NarrativeChange[];
  text: {
    /** Lines (blocks) present only after / only before. */
    added: string[];
    removed: string[];
    /** Share of words changed, 0–1 (word-level diff of the masked text). */
    change_ratio: number;
  };
}

/** The context a classifier needs besides the diff. */
export interface ClassifyContext {
  competitorName: string;
  sourceType: string;
  sourceUrl: string;
}

export interface EvidenceDraft {
  evidence_type: "before_after" | "excerpt" | "record";
  title: string;
  excerpt: string;
  metadata: Record<string, unknown>;
}

/** An event as classification proposes it, before it is stored. */
export interface EventDraft {
  event_type: EventType;
  severity: Severity;
  /** Specific: "Acme raised Pro from $49 to $59/month". */
  title: string;
  summary: string;
  impact_summary: string;
  confidence_score: number;
  confidence_reasoning: string;
  is_inferred: boolean;
  tags: string[];
  evidence: EvidenceDraft[];
  /**
   * What the event is about, stable across fetches (e.g. `pricing:plan:pro`, `hiring:job:<key>`, `narrative:h1`).
   * Flap damping compares subjects: a low-confidence change to a subject is confirmed by the next fetch.
   */
  subject: string;
  /** The subject's state after the change, serialised; equal states mean the same change. */
  after_state: string;
  /** The subject's state before the change (to recognise a revert A→B→A). */
  before_state: string;
  /**
   * When the changed item itself was published (an ISO instant), for changes that carry their own date: a feed item,
   * a changelog entry, a post. Absent or null for the others. Stored as `events.published_at`
   * (docs/product-rules.md#public-stats).
   */
  published_at?: string | null;
}
