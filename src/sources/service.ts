/**
 * Tracked URLs of competitors. A source's `normalized_url` is unique per competitor (409 on a duplicate); fetch
 * frequencies below 360 minutes need the plan's `realtime` flag (docs/product-rules.md#competitors-and-sources).
 */
import type { components } from "../../generated/api-types.js";
import { CompetitorService } from "../competitors/service.js";
import { conflict, forbidden, notFound } from "../http/errors.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import type { Workspace } from "../http/handler.js";
import type { Schemas } from "../http/schemas.js";
import type { Jobs } from "../jobs/boss.js";
import { limitsOf } from "../workspaces/plans.js";
import { queueFetches, waitingFetch } from "./fetch-queue.js";
import { Source } from "./models.js";
import { normalizeUrl } from "./normalize-url.js";

type SourceCreate = components["schemas"]["SourceCreate"];
type SourceUpdate = components["schemas"]["SourceUpdate"];

/** Fetching more often than this needs the `realtime` plan flag. */
const REALTIME_BELOW_MINUTES = 360;

/**
 * Sources one competitor may track (docs/product-rules.md#competitors-and-sources). It bounds the competitor's
 * unpaginated source list and the fetching one tenant can cause: a workspace tracks at most its plan's `competitors`
 * limit times this many URLs.
 */
export const MAX_SOURCES_PER_COMPETITOR = 50;

export class SourceService {
  constructor(private readonly workspace: Workspace) {}

  async listForCompetitor(competitorId: string): Promise<Source[]> {
    await new CompetitorService(this.workspace).get(competitorId);
    return this.workspace.scope
      .query(Source)
      .where({ competitor_id: competitorId })
      .orderBy([
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ]);
  }

  async get(id: string): Promise<Source> {
    const source = await this.workspace.scope.query(Source).findById(id);
    if (!source) throw notFound("Source");
    return source;
  }

  async create(competitorId: string, input: SourceCreate): Promise<Source> {
    const competitor = await new CompetitorService(this.workspace).get(competitorId);
    const frequency = input.fetch_frequency_minutes ?? 1440;
    this.assertFrequencyAllowed(frequency);
    const normalized = normalizeUrl(input.url);
    await this.assertNotTracked(competitor.id, normalized);
    return this.workspace.scope.transaction(async (scope) => {
      if ((await sourceRoom(scope, competitor.id)) === 0) {
        throw forbidden(
          `A competitor tracks at most ${MAX_SOURCES_PER_COMPETITOR} sources; delete one before adding another`,
        );
      }
      return scope.query(Source).insertAndFetch({
        competitor_id: competitor.id,
        workspace_id: this.workspace.caller.workspaceId,
        url: input.url.trim(),
        normalized_url: normalized,
        source_type: input.source_type,
        fetch_method: input.fetch_method ?? "http",
        fetch_frequency_minutes: frequency,
        is_active: true,
      });
    });
  }

  /**
   * PATCH semantics (docs/product-rules.md#patch-semantics): absent or `null` leaves a field unchanged (none of them
   * can be empty).
   */
  async update(id: string, input: SourceUpdate): Promise<Source> {
    const source = await this.get(id);
    const patch: Partial<Source> = {};
    if (input.fetch_frequency_minutes != null) {
      this.assertFrequencyAllowed(input.fetch_frequency_minutes);
      patch.fetch_frequency_minutes = input.fetch_frequency_minutes;
    }
    if (input.fetch_method != null) patch.fetch_method = input.fetch_method;
    if (input.is_active != null) patch.is_active = input.is_active;
    if (input.source_type != null) patch.source_type = input.source_type;
    if (input.url != null) {
      const normalized = normalizeUrl(input.url);
      if (normalized !== source.normalized_url) await this.assertNotTracked(source.competitor_id, normalized);
      patch.url = input.url.trim();
      patch.normalized_url = normalized;
    }
    if (Object.keys(patch).length === 0) return source;
    if (input.fetch_method != null && input.fetch_method !== source.fetch_method) {
      // Read another way (rendered instead of raw, say), the page is not comparable with its last snapshot: what
      // rendering adds would be reported as changes. The next fetch starts a new baseline, and changes waiting for
      // confirmation are dropped with the old one (docs/product-rules.md#competitors-and-sources).
      return this.workspace.scope.transaction(async (scope) => {
        await scope.from("sources").where({ id }).update({ last_snapshot_id: null, etag: null, last_modified: null });
        await scope.db("pending_changes").where({ source_id: id }).delete();
        return source.$query(scope.db).patchAndFetch(patch);
      });
    }
    return source.$query(this.workspace.scope.db).patchAndFetch(patch);
  }

  /**
   * Queues an immediate fetch. At most one fetch per source waits in the queue (src/sources/fetch-queue.ts): a second
   * call while one waits returns that job (`already_queued`).
   */
  async runNow(id: string, jobs: Jobs): Promise<Schemas["RunNowResponse"]> {
    return this.workspace.scope.transaction(async (scope) => {
      const source = await scope
        .from("sources")
        .where({ id })
        .forUpdate()
        .first("id", "fetch_job_id", "fetch_queued_at");
      if (!source) throw notFound("Source");
      const waiting = waitingFetch(source);
      if (waiting) return { job_id: waiting, status: "already_queued" as const };
      const [jobId] = await queueFetches(scope.db, jobs, [{ sourceId: id, trigger: "run-now" }]);
      return { job_id: jobId!, status: "queued" as const };
    });
  }

  /**
   * Mutes or unmutes the source's health notices (docs/product-rules.md#source-health); its state keeps following its
   * fetches either way. Owners only, decided in src/http/access.ts.
   */
  async setNoticesMuted(id: string, muted: boolean): Promise<Source> {
    const source = await this.get(id);
    if (source.health_notices_muted === muted) return source;
    return source.$query(this.workspace.scope.db).patchAndFetch({ health_notices_muted: muted });
  }

  async delete(id: string): Promise<void> {
    const deleted = await this.workspace.scope.query(Source).deleteById(id);
    if (deleted === 0) throw notFound("Source");
  }

  private assertFrequencyAllowed(minutes: number): void {
    if (minutes < REALTIME_BELOW_MINUTES && !limitsOf(this.workspace.caller.plan).realtime) {
      throw forbidden(
        `Fetching more often than every ${REALTIME_BELOW_MINUTES} minutes needs a plan with realtime monitoring (Growth or Enterprise)`,
      );
    }
  }

  // The unique constraint still guards races; this check gives the common case a clear message.
  private async assertNotTracked(competitorId: string, normalizedUrl: string): Promise<void> {
    const existing = await this.workspace.scope
      .query(Source)
      .where({ competitor_id: competitorId, normalized_url: normalizedUrl })
      .first();
    if (existing) throw conflict(`This competitor already tracks ${normalizedUrl} (source ${existing.id})`);
  }
}

/**
 * How many more sources the competitor may track. Locks the competitor's row until the caller's transaction ends, so
 * concurrent additions (a create racing a discovery) cannot together pass the limit.
 */
export async function sourceRoom(scope: WorkspaceScope, competitorId: string): Promise<number> {
  await scope.from("competitors").where({ id: competitorId }).forUpdate().first("id");
  const row = await scope
    .from("sources")
    .where({ competitor_id: competitorId })
    .count<{ count: string }[]>("* as count");
  return Math.max(0, MAX_SOURCES_PER_COMPETITOR - Number(row[0]?.count ?? 0));
}
