/**
 * Tracked URLs of competitors. A source's `normalized_url` is unique per competitor (409 on a duplicate); fetch
 * frequencies below 360 minutes need the plan's `realtime` flag (docs/product-rules.md#competitors-and-sources).
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import type { components } from "../../generated/api-types.js";
import { CompetitorService } from "../competitors/service.js";
import { Source } from "../competitors/models.js";
import { conflict, forbidden, notFound } from "../http/errors.js";
import type { AuthContext } from "../http/handler.js";
import { limitsOf } from "../workspaces/plans.js";
import { normalizeUrl } from "./normalize-url.js";

type SourceCreate = components["schemas"]["SourceCreate"];
type SourceUpdate = components["schemas"]["SourceUpdate"];

/** Fetching more often than this needs the `realtime` plan flag. */
const REALTIME_BELOW_MINUTES = 360;

export class SourceService {
  constructor(
    private readonly knex: Knex,
    private readonly caller: AuthContext,
  ) {}

  async listForCompetitor(competitorId: string): Promise<Source[]> {
    await new CompetitorService(this.knex, this.caller).get(competitorId);
    return Source.query(this.knex)
      .modify("forWorkspace", this.caller.workspaceId)
      .where({ competitor_id: competitorId })
      .orderBy([
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ]);
  }

  async get(id: string): Promise<Source> {
    const source = await Source.query(this.knex).modify("forWorkspace", this.caller.workspaceId).findById(id);
    if (!source) throw notFound("Source");
    return source;
  }

  async create(competitorId: string, input: SourceCreate): Promise<Source> {
    const competitor = await new CompetitorService(this.knex, this.caller).get(competitorId);
    const frequency = input.fetch_frequency_minutes ?? 1440;
    this.assertFrequencyAllowed(frequency);
    const normalized = normalizeUrl(input.url);
    await this.assertNotTracked(competitor.id, normalized);
    return Source.query(this.knex).insertAndFetch({
      competitor_id: competitor.id,
      workspace_id: this.caller.workspaceId,
      url: input.url.trim(),
      normalized_url: normalized,
      source_type: input.source_type,
      fetch_method: input.fetch_method ?? "http",
      fetch_frequency_minutes: frequency,
      is_active: true,
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
    return source.$query(this.knex).patchAndFetch(patch);
  }

  /**
   * Queues an immediate fetch. At most one fetch per source waits in the queue: a second call while one waits
   * returns that job (`already_queued`). The job is inserted in the transaction that marks the source.
   */
  async runNow(id: string, jobs: Jobs): Promise<{ job_id: string; status: "queued" | "already_queued" }> {
    return this.knex.transaction(async (trx) => {
      const source = await trx("sources")
        .where({ id, workspace_id: this.caller.workspaceId })
        .forUpdate()
        .first("id", "fetch_job_id", "fetch_queued_at");
      if (!source) throw notFound("Source");
      const waiting = source.fetch_job_id && source.fetch_queued_at > new Date(Date.now() - 3600_000);
      if (waiting) return { job_id: source.fetch_job_id, status: "already_queued" as const };
      const jobId = randomUUID();
      await jobs.send(QUEUES.sourceFetch.name, { source_id: id, trigger: "run-now" }, { id: jobId }, trx);
      await trx("sources").where({ id }).update({ fetch_job_id: jobId, fetch_queued_at: trx.fn.now() });
      return { job_id: jobId, status: "queued" as const };
    });
  }

  async delete(id: string): Promise<void> {
    const deleted = await Source.query(this.knex).modify("forWorkspace", this.caller.workspaceId).deleteById(id);
    if (deleted === 0) throw notFound("Source");
  }

  private assertFrequencyAllowed(minutes: number): void {
    if (minutes < REALTIME_BELOW_MINUTES && !limitsOf(this.caller.plan).realtime) {
      throw forbidden(
        `Fetching more often than every ${REALTIME_BELOW_MINUTES} minutes needs a plan with realtime monitoring (Growth or Enterprise)`,
      );
    }
  }

  // The unique constraint still guards races; this check gives the common case a clear message.
  private async assertNotTracked(competitorId: string, normalizedUrl: string): Promise<void> {
    const existing = await Source.query(this.knex)
      .where({ competitor_id: competitorId, normalized_url: normalizedUrl })
      .first();
    if (existing) throw conflict(`This competitor already tracks ${normalizedUrl} (source ${existing.id})`);
  }
}
