/**
 * Scenario 3: fetch → event throughput. N pricing pages on loopback fixture sites are baselined, all changed, then
 * all queued with run-now; the figure is N over the wall time from the first run-now call until every source has
 * produced its events (target: at least 50 sources/s, docs/architecture.md#performance-targets).
 *
 * The run-now calls are served by the same process as the workers, so they compete for its one event loop. A second
 * pass changes every page back and queues all N fetches in one transaction (as the scheduler inserts them, without
 * its per-host spacing): that figure is the pipeline alone, and the gap between the two is the cost of the API calls.
 *
 * The pipeline allows two concurrent fetches per host, and a host is `host:port`, so the pages are spread over
 * many fixture sites on different ports; otherwise the per-host limit, not the pipeline, would be measured.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { knexExecutor } from "../src/jobs/boss.js";
import { QUEUES } from "../src/jobs/queues.js";
import { FixtureSite } from "../test/fakes/fixture-site.js";
import type { ApiClient } from "./api-client.js";
import type { Cleanup } from "./cleanup.js";
import { openBenchJobs } from "./database.js";
import { forEachConcurrent, pollUntil, progress, withCpuShare } from "./util.js";

export interface ThroughputResult {
  sources: number;
  hosts: number;
  /** Seconds from the first run-now of the baseline until every source had its first snapshot. */
  baselineSeconds: number;
  /** Seconds the N run-now calls took (the fetches run meanwhile). */
  enqueueSeconds: number;
  /** Seconds from the first run-now until every source had produced its events. */
  seconds: number;
  sourcesPerSecond: number;
  events: number;
  /** The service process's CPU use during that phase, as a share of one core (`null` without /proc). */
  serviceCpuShare: number | null;
  /** The second pass: all fetches queued in one transaction, none through the API. */
  pipelineOnly: { seconds: number; sourcesPerSecond: number; serviceCpuShare: number | null };
}

/** Concurrent API calls while creating and queueing (a customer script would not send 500 at once). */
const API_CONCURRENCY = 8;
const COMPETITORS = 10;
const POLL_MS = 50;
const PHASE_TIMEOUT_MS = 90_000;

export async function measureFetchThroughput(options: {
  api: ApiClient;
  knex: Knex;
  databaseUrl: string;
  servicePid: number;
  workspaceId: string;
  sources: number;
  hosts: number;
  cleanup: Cleanup;
}): Promise<ThroughputResult> {
  const { api, knex, workspaceId } = options;
  const sites: FixtureSite[] = [];
  for (let i = 0; i < options.hosts; i++) {
    const site = await new FixtureSite().start();
    options.cleanup.add(`stop fixture site ${site.baseUrl}`, () => site.stop());
    sites.push(site);
  }
  const pages = Array.from({ length: options.sources }, (_, i) => ({
    site: sites[i % sites.length]!,
    path: `/s${i}/pricing`,
  }));
  for (const page of pages) page.site.serveFixture(page.path, "pricing-v1.html");

  const competitors: string[] = [];
  for (let i = 0; i < COMPETITORS; i++) {
    const created = await api.expect<{ id: string }>(201, "POST", "/competitors", {
      name: `Rival ${i + 1}`,
      domain: `rival-${i + 1}.example`,
    });
    competitors.push(created.id);
  }
  const sourceIds: string[] = new Array(options.sources);
  await forEachConcurrent(pages, API_CONCURRENCY, async (page, i) => {
    const created = await api.expect<{ id: string }>(
      201,
      "POST",
      `/competitors/${competitors[i % COMPETITORS]}/sources`,
      {
        source_type: "pricing",
        url: page.site.url(page.path),
      },
    );
    sourceIds[i] = created.id;
  });
  progress(`created ${options.sources} pricing sources over ${options.hosts} fixture sites; baselining them`);

  const baselineStarted = performance.now();
  await runNowAll(api, sourceIds);
  await pollUntil(
    async () => {
      const row = await knex("sources")
        .where({ workspace_id: workspaceId })
        .first(
          knex.raw("count(*) FILTER (WHERE last_snapshot_id IS NOT NULL)::int AS done"),
          knex.raw("count(*) FILTER (WHERE error_message IS NOT NULL)::int AS failed"),
          knex.raw("min(error_message) AS error"),
        );
      if (row.failed > 0) throw new Error(`${row.failed} baseline fetches failed, e.g. ${row.error}`);
      return row.done === options.sources ? true : undefined;
    },
    { intervalMs: POLL_MS, timeoutMs: PHASE_TIMEOUT_MS, what: `${options.sources} baseline snapshots` },
  );
  const baselineSeconds = (performance.now() - baselineStarted) / 1000;
  progress(`baseline done in ${baselineSeconds.toFixed(1)} s; switching every page to v2 and queueing all`);

  for (const page of pages) page.site.serveFixture(page.path, "pricing-v2.html");
  let enqueueSeconds = 0;
  const viaApi = await withCpuShare(options.servicePid, async () => {
    const started = performance.now();
    await runNowAll(api, sourceIds);
    enqueueSeconds = (performance.now() - started) / 1000;
    const events = await waitForEventsFromAll(knex, workspaceId, options.sources, null);
    return { events, seconds: (performance.now() - started) / 1000 };
  });
  progress("changing every page back to v1 and queueing all fetches in one transaction");

  for (const page of pages) page.site.serveFixture(page.path, "pricing-v1.html");
  const { jobs, stop: stopJobs } = await openBenchJobs(options.databaseUrl, options.cleanup);
  const { rows } = await knex.raw("SELECT now() AS now");
  const pipelineOnly = await withCpuShare(options.servicePid, async () => {
    const started = performance.now();
    await knex.transaction(async (trx) => {
      const queued = sourceIds.map((sourceId) => ({
        id: randomUUID(),
        name: QUEUES.sourceFetch.name,
        data: { source_id: sourceId, trigger: "bench" },
      }));
      await jobs.boss.insert(queued, { db: knexExecutor(trx) });
      // As the scheduler and run-now do: the source knows its queued job (the pipeline clears it when it starts).
      await trx.raw(
        `UPDATE sources SET fetch_job_id = queued.job_id::uuid, fetch_queued_at = now()
         FROM (SELECT unnest(?::uuid[]) AS source_id, unnest(?::text[]) AS job_id) queued
         WHERE sources.id = queued.source_id`,
        [sourceIds, queued.map((job) => job.id)],
      );
    });
    await waitForEventsFromAll(knex, workspaceId, options.sources, rows[0].now as Date);
    return (performance.now() - started) / 1000;
  });
  await stopJobs();

  return {
    sources: options.sources,
    hosts: options.hosts,
    baselineSeconds,
    enqueueSeconds,
    seconds: viaApi.value.seconds,
    sourcesPerSecond: options.sources / viaApi.value.seconds,
    events: viaApi.value.events,
    serviceCpuShare: viaApi.cpuShare,
    pipelineOnly: {
      seconds: pipelineOnly.value,
      sourcesPerSecond: options.sources / pipelineOnly.value,
      serviceCpuShare: pipelineOnly.cpuShare,
    },
  };
}

/** Waits until every source of the workspace has events detected since `since` (all time when `null`). */
async function waitForEventsFromAll(
  knex: Knex,
  workspaceId: string,
  sources: number,
  since: Date | null,
): Promise<number> {
  return pollUntil(
    async () => {
      const query = knex("events").where({ workspace_id: workspaceId });
      if (since) query.where("detected_at", ">=", since);
      const row = await query.first(
        knex.raw("count(DISTINCT source_id)::int AS sources"),
        knex.raw("count(*)::int AS events"),
      );
      if (row.sources === sources) return row.events as number;
      const failed = await knex("sources")
        .where({ workspace_id: workspaceId })
        .whereNotNull("error_message")
        .first("error_message");
      if (failed) throw new Error(`a fetch failed: ${failed.error_message}`);
      return undefined;
    },
    { intervalMs: POLL_MS, timeoutMs: PHASE_TIMEOUT_MS, what: `events from all ${sources} sources` },
  );
}

async function runNowAll(api: ApiClient, sourceIds: string[]): Promise<void> {
  await forEachConcurrent(sourceIds, API_CONCURRENCY, async (id) => {
    const queued = await api.expect<{ status: string }>(202, "POST", `/sources/${id}/run-now`);
    if (queued.status !== "queued") throw new Error(`run-now of ${id} answered ${queued.status}`);
  });
}
