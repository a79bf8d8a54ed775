/**
 * What detection knows about one competitor, read for teardowns (docs/product-rules.md#displacement) and chat answers
 * (docs/product-rules.md#chat): its recent events within the plan's history, and its current pricing plans from the
 * newest snapshot of its tracked pages. Every query goes through the caller's WorkspaceScope, so only the caller's
 * competitors are ever read.
 */
import { eventSourceUrl } from "../db/sql.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import { formatPlanPrice } from "../detection/classify/format.js";
import { isPlanRecord, type PricingPlan } from "../detection/types.js";
import type { EventType, Severity } from "../http/schemas.js";

export interface RivalProfile {
  id: string;
  name: string;
  domain: string;
  description: string | null;
}

export interface RivalEvent {
  id: string;
  competitor_id: string;
  competitor_name: string;
  title: string;
  summary: string;
  event_type: EventType;
  severity: Severity;
  detected_at: Date;
  source_url: string | null;
}

export interface RivalPricing {
  plans: Pick<PricingPlan, "name" | "amount" | "currency" | "period" | "is_free">[];
  /** The page the plans were read from. */
  source_url: string;
  observed_at: Date;
}

/** The event columns chat and teardowns show, from `events e` joined to `competitors c` and `sources src`. */
export const RIVAL_EVENT_COLUMNS = `e.id, e.competitor_id, c.name AS competitor_name, e.title, e.summary, e.event_type,
  e.severity, e.detected_at, ${eventSourceUrl("src", { orCompetitorSite: false })} AS source_url`;

export class RivalFacts {
  constructor(
    private readonly scope: WorkspaceScope,
    /** The caller's plan's `history_days`: older events are never shown (docs/product-rules.md#plans-and-limits). */
    private readonly historyDays: number,
  ) {}

  async profile(competitorId: string): Promise<RivalProfile | null> {
    const row = await this.scope
      .from("competitors")
      .where({ id: competitorId })
      .first<RivalProfile | undefined>("id", "name", "domain", "description");
    return row ?? null;
  }

  /** The competitor's most recent events, newest first. */
  async recentEvents(competitorId: string, limit: number): Promise<RivalEvent[]> {
    const { rows } = await this.scope.raw<RivalEvent>(
      `SELECT ${RIVAL_EVENT_COLUMNS}
         FROM events e
         JOIN competitors c ON c.id = e.competitor_id
         LEFT JOIN sources src ON src.id = e.source_id
        WHERE e.workspace_id = :workspace_id AND e.competitor_id = :competitor_id
          AND e.detected_at >= now() - make_interval(days => :history_days)
        ORDER BY e.detected_at DESC, e.id DESC
        LIMIT :limit`,
      { competitor_id: competitorId, history_days: this.historyDays, limit },
    );
    return rows;
  }

  /**
   * The plans on the newest snapshot of the competitor's pages: its pricing page when it has one with plans, otherwise
   * the most recently fetched page that shows plans (as the insights' pricing section chooses). `null` when none does.
   */
  async currentPricing(competitorId: string): Promise<RivalPricing | null> {
    const { rows } = await this.scope.raw<{ url: string; fetched_at: Date; pricing: PricingPlan[] }>(
      `SELECT s.url, n.fetched_at, n.extraction->'pricing' AS pricing
         FROM sources s
         JOIN snapshots n ON n.id = s.last_snapshot_id
        WHERE s.workspace_id = :workspace_id AND s.competitor_id = :competitor_id
          AND jsonb_typeof(n.extraction->'pricing') = 'array' AND jsonb_array_length(n.extraction->'pricing') > 0
        ORDER BY (s.source_type = 'pricing') DESC, n.fetched_at DESC
        LIMIT 1`,
      { competitor_id: competitorId },
    );
    const best = rows[0];
    if (!best) return null;
    return {
      // Plans only: add-ons and usage meters are priced records of their own, not tiers (docs/real-pages.md).
      plans: best.pricing.filter(isPlanRecord).map(({ name, amount, currency, period, is_free }) => ({
        name,
        amount,
        currency,
        period,
        is_free,
      })),
      source_url: best.url,
      observed_at: best.fetched_at,
    };
  }
}

/** `Free: free; Pro: $59/month; Enterprise: contact sales`. */
export function pricingLine(pricing: RivalPricing): string {
  return pricing.plans.map((plan) => `${plan.name}: ${formatPlanPrice(plan)}`).join("; ");
}

/** `2026-11-20`. */
export function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Text on one markdown line: whitespace runs (newlines included) become one space. */
export function inline(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
