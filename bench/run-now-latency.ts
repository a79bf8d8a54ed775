/**
 * Scenario 2: how long after `POST /sources/{id}/run-now` a changed pricing page's events show in GET /events, on
 * loopback, with the service running as `ROLE=all` (target: at most 2 s, docs/architecture.md#performance-targets).
 */
import type { Knex } from "knex";
import { QUEUES } from "../src/jobs/queues.js";
import { FixtureSite } from "../test/fakes/fixture-site.js";
import type { ApiClient } from "./api-client.js";
import type { Cleanup } from "./cleanup.js";
import { median, pollUntil, sleep } from "./util.js";

export interface LatencyResult {
  /** Milliseconds from the run-now call to the first GET /events that lists the new events, per run. */
  samplesMs: number[];
  medianMs: number;
  maxMs: number;
  /** New events found per run (v1→v2 and v2→v1 differ). */
  eventsPerRun: number[];
}

const POLL_MS = 25;
const WORKER_POLL_MS = QUEUES.sourceFetch.work.pollingIntervalSeconds * 1000;
const RUN_TIMEOUT_MS = 15_000;

export async function measureRunNowLatency(options: {
  api: ApiClient;
  knex: Knex;
  runs: number;
  cleanup: Cleanup;
}): Promise<LatencyResult> {
  const { api, knex } = options;
  const site = await new FixtureSite().start();
  options.cleanup.add("stop the run-now fixture site", () => site.stop());
  site.serveFixture("/pricing", "pricing-v1.html");

  const competitor = await api.expect<{ id: string }>(201, "POST", "/competitors", {
    name: "Acme",
    domain: "acme.example",
  });
  const source = await api.expect<{ id: string }>(201, "POST", `/competitors/${competitor.id}/sources`, {
    source_type: "pricing",
    url: site.url("/pricing"),
  });

  // The baseline: the first snapshot makes no events.
  await api.expect(202, "POST", `/sources/${source.id}/run-now`);
  await waitForSnapshot(knex, source.id);
  const seen = new Set((await feed(api)).map((event) => event.id));

  const samplesMs: number[] = [];
  const eventsPerRun: number[] = [];
  for (let run = 1; run <= options.runs; run++) {
    // Alternate the page so that every run changes it and so produces events.
    site.serveFixture("/pricing", run % 2 === 1 ? "pricing-v2.html" : "pricing-v1.html");
    // Start at a random moment, as a user would: right after the previous run, each call would meet the workers at
    // the same point of their polling cycle (src/jobs/queues.ts), and every sample would repeat the same wait.
    await sleep(Math.random() * WORKER_POLL_MS);
    const started = performance.now();
    const queued = await api.expect<{ status: string }>(202, "POST", `/sources/${source.id}/run-now`);
    if (queued.status !== "queued")
      throw new Error(`run-now answered ${queued.status}; the previous fetch still waits`);
    const fresh = await pollUntil(
      async () => {
        const events = (await feed(api)).filter((event) => !seen.has(event.id));
        return events.length > 0 ? events : undefined;
      },
      { intervalMs: POLL_MS, timeoutMs: RUN_TIMEOUT_MS, what: `the events of run-now #${run}` },
    );
    samplesMs.push(performance.now() - started);
    eventsPerRun.push(fresh.length);
    for (const event of fresh) seen.add(event.id);
  }
  return { samplesMs, medianMs: median(samplesMs), maxMs: Math.max(...samplesMs), eventsPerRun };
}

async function feed(api: ApiClient): Promise<{ id: string }[]> {
  return api.expect<{ id: string }[]>(200, "GET", "/events");
}

/** Waits until the source has a snapshot; a recorded fetch failure ends the wait at once with its message. */
export async function waitForSnapshot(knex: Knex, sourceId: string): Promise<void> {
  await pollUntil(
    async () => {
      const row = await knex("sources").where({ id: sourceId }).first("last_snapshot_id", "error_message");
      if (row?.error_message) throw new Error(`the baseline fetch of ${sourceId} failed: ${row.error_message}`);
      return row?.last_snapshot_id ? true : undefined;
    },
    { intervalMs: POLL_MS, timeoutMs: RUN_TIMEOUT_MS, what: "the baseline snapshot" },
  );
}
