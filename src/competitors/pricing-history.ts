/**
 * A competitor's pricing history (`GET /competitors/{competitor_id}/pricing-history`, spec/competitors.tsp): every
 * plan, add-on and usage price its pricing sources have shown, as step series read from the stored snapshots, each
 * step linked to the pricing event that reported it. Read-only over what detection stored; nothing here re-extracts.
 * The rules: docs/product-rules.md#pricing-history.
 */
import type { PricingPlan } from "../detection/types.js";
import type { Schemas } from "../http/schemas.js";
import type { Workspace } from "../http/handler.js";
import { limitsOf } from "../workspaces/plans.js";
import { CompetitorService } from "./service.js";

type History = Schemas["PricingHistory"];
type Series = Schemas["PricingHistorySeries"];
type Point = Schemas["PricingHistoryPoint"];

/** Where prices are offers (docs/product-rules.md#classification: pricing events come from these source types only). */
const PRICING_SOURCE_TYPES = ["pricing", "homepage", "docs", "other"];

/** Snapshots read per source (the contract states it): a bound on the answer whatever the page's churn. */
export const SNAPSHOTS_PER_SOURCE = 1000;

export interface SnapshotRow {
  id: string;
  source_id: string;
  fetched_at: Date;
  pricing: PricingPlan[] | null;
  /** Fetched before the window opened: the state in force at `since`. */
  before_window: boolean;
}

export interface RenameRow {
  after_snapshot_id: string;
  before_key: string;
  after_key: string;
}

export interface PricingEventRow {
  id: string;
  source_id: string;
  subject: string;
  /** When the snapshot whose diff reported it was fetched (null when that snapshot is gone). */
  observed_at: Date | null;
  detected_at: Date;
}

export class PricingHistoryService {
  constructor(private readonly workspace: Workspace) {}

  async get(competitorId: string): Promise<History> {
    await new CompetitorService(this.workspace).get(competitorId);
    // docs/product-rules.md#plans-and-limits: the plan's history_days bounds what is listed, as in the feed.
    const since = new Date(Date.now() - limitsOf(this.workspace.caller.plan).history_days * 86_400_000);
    const scope = this.workspace.scope;
    const sources: { id: string; url: string }[] = await scope
      .from("sources")
      .where({ competitor_id: competitorId })
      .whereIn("source_type", PRICING_SOURCE_TYPES)
      .orderBy([
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ])
      .select("id", "url");
    if (sources.length === 0) return { competitor_id: competitorId, since: since.toISOString(), series: [] };
    // A Postgres array literal of the sources' ids (UUIDs from the database: nothing to quote).
    const bindings = {
      competitor_id: competitorId,
      since,
      source_ids: `{${sources.map((source) => source.id).join(",")}}`,
      limit: SNAPSHOTS_PER_SOURCE,
    };
    const { rows: snapshots } = await scope.raw<SnapshotRow>(
      `SELECT id, source_id, fetched_at, pricing, false AS before_window FROM (
         SELECT s.id, s.source_id, s.fetched_at, s.extraction->'pricing' AS pricing,
                row_number() OVER (PARTITION BY s.source_id ORDER BY s.fetched_at DESC, s.id DESC) AS n
         FROM snapshots s
         WHERE s.workspace_id = :workspace_id AND s.source_id = ANY(:source_ids::uuid[]) AND s.fetched_at >= :since) recent
       WHERE n <= :limit
       UNION ALL
       (SELECT DISTINCT ON (s.source_id) s.id, s.source_id, s.fetched_at, s.extraction->'pricing', true
         FROM snapshots s
         WHERE s.workspace_id = :workspace_id AND s.source_id = ANY(:source_ids::uuid[]) AND s.fetched_at < :since
         ORDER BY s.source_id, s.fetched_at DESC, s.id DESC)`,
      bindings,
    );
    const { rows: renames } = await scope.raw<RenameRow>(
      `SELECT d.after_snapshot_id, c->'before'->>'key' AS before_key, c->>'key' AS after_key
       FROM diffs d
         JOIN snapshots s ON s.id = d.after_snapshot_id AND s.workspace_id = :workspace_id
         CROSS JOIN LATERAL jsonb_array_elements(coalesce(d.diff_json->'pricing', '[]'::jsonb)) c
       WHERE d.workspace_id = :workspace_id AND d.source_id = ANY(:source_ids::uuid[])
         AND s.fetched_at >= :since AND c->>'kind' = 'renamed'`,
      bindings,
    );
    const { rows: events } = await scope.raw<PricingEventRow>(
      `SELECT e.id, e.source_id, e.subject, s.fetched_at AS observed_at, e.detected_at
       FROM events e
         LEFT JOIN diffs d ON d.id = e.diff_id AND d.workspace_id = :workspace_id
         LEFT JOIN snapshots s ON s.id = d.after_snapshot_id AND s.workspace_id = :workspace_id
       WHERE e.workspace_id = :workspace_id AND e.competitor_id = :competitor_id
         AND e.event_type = 'pricing_change' AND e.detected_at >= :since
       ORDER BY e.detected_at, e.id`,
      bindings,
    );
    return {
      competitor_id: competitorId,
      since: since.toISOString(),
      series: buildSeries(sources, snapshots, renames, events, since),
    };
  }
}

interface Step extends Point {
  /** Event subjects that may report this step (docs: classify.ts names a plan change and a rename so). */
  subjects: string[];
  renamedFrom: string | null;
  opening: boolean;
}

interface Building {
  source_id: string;
  source_url: string;
  key: string;
  name: string;
  kind: Series["kind"];
  currency: string | null;
  steps: Step[];
}

/**
 * The series of every record, source by source: a step where a snapshot shows the record differently from the step
 * before (or no longer shows it). Records read only by their context are no records (isPlanRecord's rule: the engine
 * could not name them) and are left out. A rename the diff recorded moves the series to the new key.
 */
export function buildSeries(
  sources: { id: string; url: string }[],
  snapshots: SnapshotRow[],
  renames: RenameRow[],
  events: PricingEventRow[],
  since: Date,
): Series[] {
  const renamesBySnapshot = new Map<string, RenameRow[]>();
  for (const rename of renames) {
    const list = renamesBySnapshot.get(rename.after_snapshot_id) ?? [];
    list.push(rename);
    renamesBySnapshot.set(rename.after_snapshot_id, list);
  }
  const out: Series[] = [];
  for (const source of sources) {
    const own = snapshots
      .filter((snapshot) => snapshot.source_id === source.id)
      .sort((a, b) => new Date(a.fetched_at).getTime() - new Date(b.fetched_at).getTime() || compare(a.id, b.id));
    const series: Building[] = [];
    const byKey = new Map<string, Building>();
    for (const snapshot of own) {
      const at = snapshot.before_window ? since.toISOString() : new Date(snapshot.fetched_at).toISOString();
      const records = (snapshot.pricing ?? []).filter(isRecord);
      const recordKeys = new Set(records.map((record) => record.key));
      const renamedFrom = new Map<string, string>();
      for (const rename of renamesBySnapshot.get(snapshot.id) ?? []) {
        // A record that became a price read by its context is not renamed: it left the plans.
        if (!recordKeys.has(rename.after_key)) continue;
        const moving = byKey.get(rename.before_key);
        if (!moving || byKey.has(rename.after_key)) continue;
        byKey.delete(rename.before_key);
        moving.key = rename.after_key;
        byKey.set(rename.after_key, moving);
        renamedFrom.set(rename.after_key, rename.before_key);
      }
      const seen = new Set<string>();
      for (const record of records) {
        if (seen.has(record.key)) continue;
        seen.add(record.key);
        let building = byKey.get(record.key);
        if (!building) {
          building = {
            source_id: source.id,
            source_url: source.url,
            key: record.key,
            name: record.name,
            kind: record.kind ?? "plan",
            currency: record.currency ?? null,
            steps: [],
          };
          byKey.set(record.key, building);
          series.push(building);
        }
        building.name = record.name;
        building.kind = record.kind ?? "plan";
        building.currency = record.currency ?? null;
        const from = renamedFrom.get(record.key) ?? null;
        addStep(building, {
          observed_at: at,
          listed: true,
          name: record.name,
          amount: record.amount ?? null,
          period: record.period ?? null,
          promo_amount: record.promo_amount ?? null,
          is_free: Boolean(record.is_free),
          event_id: null,
          subjects: [`pricing:plan:${record.key}`],
          renamedFrom: from,
          opening: snapshot.before_window,
        });
      }
      for (const building of byKey.values()) {
        if (seen.has(building.key) || !building.steps.at(-1)?.listed) continue;
        addStep(building, {
          observed_at: at,
          listed: false,
          name: null,
          amount: null,
          period: null,
          promo_amount: null,
          is_free: false,
          event_id: null,
          subjects: [`pricing:plan:${building.key}`],
          renamedFrom: null,
          opening: snapshot.before_window,
        });
      }
    }
    const sourceEvents = events.filter((event) => event.source_id === source.id && event.observed_at !== null);
    for (const building of series) {
      linkEvents(building.steps, sourceEvents);
      out.push({
        id: `${building.source_id}:${building.key}`,
        source_id: building.source_id,
        source_url: building.source_url,
        key: building.key,
        name: building.name,
        kind: building.kind,
        currency: building.currency,
        points: building.steps.map((step) => ({
          observed_at: step.observed_at,
          listed: step.listed,
          name: step.name,
          amount: step.amount,
          period: step.period,
          promo_amount: step.promo_amount,
          is_free: step.is_free,
          event_id: step.event_id,
        })),
      });
    }
  }
  return out;
}

/**
 * A plan, add-on or usage meter: every record but a price read by its context, which the engine could not name
 * (isPlanRecord in src/detection/types.ts applies the same origin test, and also leaves add-ons and meters out).
 */
function isRecord(record: PricingPlan): boolean {
  return Boolean(record && typeof record.key === "string" && record.key !== "" && record.origin !== "context");
}

/** A step only where something a person would see changed; a rename is a step even at the same prices. */
function addStep(building: Building, step: Step): void {
  const last = building.steps.at(-1);
  if (
    last &&
    last.listed === step.listed &&
    last.name === step.name &&
    last.amount === step.amount &&
    last.period === step.period &&
    last.promo_amount === step.promo_amount &&
    last.is_free === step.is_free
  ) {
    return;
  }
  building.steps.push(step);
}

/**
 * Each step gets the earliest event of its source that names it (its plan, or the rename from its previous key) and
 * was reported by a diff between this step's snapshot and the next step's: a change below the confidence bar is
 * confirmed, and so reported, by the fetch after the one that showed it (docs/product-rules.md#flap-damping).
 */
function linkEvents(steps: Step[], events: PricingEventRow[]): void {
  const used = new Set<string>();
  steps.forEach((step, index) => {
    if (step.opening) return;
    const from = new Date(step.observed_at).getTime();
    const next = steps[index + 1];
    const until = next ? new Date(next.observed_at).getTime() : Number.POSITIVE_INFINITY;
    const match = events.find((event) => {
      if (used.has(event.id)) return false;
      const at = new Date(event.observed_at!).getTime();
      if (at < from || at >= until) return false;
      if (step.subjects.includes(event.subject)) return true;
      return (
        step.renamedFrom !== null &&
        event.subject.startsWith("pricing:renamed:") &&
        event.subject.slice("pricing:renamed:".length).split("+").includes(step.renamedFrom)
      );
    });
    if (match) {
      used.add(match.id);
      step.event_id = match.id;
    }
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
