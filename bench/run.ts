/**
 * `npm run bench`: the performance targets of docs/architecture.md#performance-targets, measured in one run on this
 * machine. `npm run bench -- webhooks` (or `feed`, `detection`, `extraction`, several names) runs only those scenarios.
 *
 * 1. GET /events with 100k events in the caller's workspace (1M in the table): req/s and p99 at 50 connections,
 *    through the full stack (ROLE=api child: express, openapi-backend, bearer auth) and through a bare
 *    `node:http` + `pg` server running the same SQL; their ratio (target ≥ 0.8).
 * 2. run-now → event visible in GET /events on loopback (ROLE=all child): median and max of 10 runs (target ≤ 2 s).
 * 3. fetch → event throughput over 500 changed pricing pages on 50 fixture sites (target ≥ 50 sources/s).
 * 4. signed webhook deliveries/s to a loopback receiver answering 200, 3,000 events at once (target ≥ 300/s);
 * 5. event committed → webhook received, 50 events one at a time (target ≤ 1 s); see bench/webhooks.ts.
 * 6. extraction of the hostile-page corpus at 5 MB: the worst median time per MB (three runs of each body) and the
 *    body it was (target: a 5 MB page within the default 5 s parse budget, so ≤ 1 s per MB); see bench/extraction.ts.
 *    It needs no database: `npm run bench -- extraction` starts none.
 * 7. rendering of `browser` sources: ms per page over fixture pages (a client-rendered pricing page and two
 *    server-rendered ones), one and two at a time, with a screenshot; see bench/rendering.ts. No database either.
 * 8. accuracy of extraction on the real-page corpora of test/fixtures/real-pages/ (price strings, structured data,
 *    main text of articles): right, wrong, missed, and the main text's precision and recall; see bench/accuracy.ts.
 *    No database.
 * 9. noise: events per unchanged page before and after one dismissal per kind of noise, on a rotating-content
 *    homepage and the real pricing-page histories; see bench/noise.ts. Also printed by `accuracy`. No database.
 *
 * Postgres: a fresh database on DATABASE_URL's server when set, otherwise an ephemeral embedded one. Everything the
 * bench starts is stopped and deleted at the end, also on failure; the exit code is non-zero only when the bench
 * could not measure (a missed target is a result, not a failure).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import type { Knex } from "knex";
import { TokenService } from "../src/auth/tokens.js";
import { loadConfig } from "../src/config.js";
import { createKnex, migrateLatest } from "../src/db/knex.js";
import type { AuthContext } from "../src/http/handler.js";
import { ApiClient } from "./api-client.js";
import { startChild } from "./children.js";
import { Cleanup } from "./cleanup.js";
import { openBenchDatabase } from "./database.js";
import { measureExtraction, type ExtractionResult } from "./extraction.js";
import { assertSamePage, captureFeedQuery, fetchFeedPage, measureLoad, type LoadResult } from "./feed.js";
import { measureFetchThroughput, type ThroughputResult } from "./fetch-throughput.js";
import { measureRendering, renderingRows, type RenderingResult } from "./rendering.js";
import { accuracyRows, measureAccuracy, type AccuracyResult } from "./accuracy.js";
import { measureNoise, noiseRows, type NoiseResult } from "./noise.js";
import { fixed, summaryTable, type SummaryRow } from "./report.js";
import { measureRunNowLatency, type LatencyResult } from "./run-now-latency.js";
import { createTenant, loadEvents } from "./seed.js";
import { progress } from "./util.js";
import { measureWebhooks, type WebhookResult } from "./webhooks.js";

const FEED = {
  bigWorkspaceEvents: 100_000,
  otherWorkspaces: 10,
  eventsPerOtherWorkspace: 90_000,
  days: 300,
  pageSize: 50,
  connections: 50,
  warmupSeconds: 3,
  durationSeconds: 15,
};
const LATENCY_RUNS = 10;
const THROUGHPUT = { sources: 500, hosts: 50 };
const WEBHOOKS = { events: 3_000, latencyRuns: 50 };
const TARGETS = {
  feedRatio: 0.8,
  runNowSeconds: 2,
  sourcesPerSecond: 50,
  deliveriesPerSecond: 300,
  webhookSeconds: 1,
  extractionMsPerMb: 1000,
};

/** `npm run bench -- <scenario…>` runs only those; without names, all of them. */
const SCENARIOS = ["feed", "detection", "webhooks", "extraction", "rendering", "accuracy", "noise"] as const;
/** The scenarios that need no database: run first, and alone when only they are asked for. */
const WITHOUT_DATABASE: readonly Scenario[] = ["extraction", "rendering", "accuracy", "noise"];
type Scenario = (typeof SCENARIOS)[number];

function selectedScenarios(args: string[]): Set<Scenario> {
  const unknown = args.filter((arg) => !(SCENARIOS as readonly string[]).includes(arg));
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(", ")}; choose from ${SCENARIOS.join(", ")}`);
  return new Set(args.length > 0 ? (args as Scenario[]) : SCENARIOS);
}

interface Figures {
  feed?: { bare: LoadResult; api: LoadResult; fixedRate: boolean };
  detection?: { latency: LatencyResult; throughput: ThroughputResult };
  webhooks?: WebhookResult;
  extraction?: ExtractionResult;
  rendering?: RenderingResult;
  accuracy?: AccuracyResult;
  noise?: NoiseResult;
}

/** What every scenario shares: the database, a token issuer, and the environment of the service processes. */
interface BenchContext {
  cleanup: Cleanup;
  knex: Knex;
  databaseUrl: string;
  tokens: TokenService;
  logDir: string;
  serviceEnv: (extra: Record<string, string>) => Record<string, string>;
  /** `SECRETS_KEY` of the services `serviceEnv` starts. */
  secretsKey: Buffer;
}

async function bench(cleanup: Cleanup, scenarios: Set<Scenario>): Promise<Figures> {
  const figures: Figures = {};
  // Extraction needs no database: it runs first, and alone when it is the only scenario asked for.
  if (scenarios.has("extraction")) figures.extraction = await measureExtraction();
  if (scenarios.has("rendering")) figures.rendering = await measureRendering();
  if (scenarios.has("accuracy")) figures.accuracy = measureAccuracy();
  // Noise before and after dismissals is part of what accuracy reports (bench/noise.ts).
  if (scenarios.has("accuracy") || scenarios.has("noise")) figures.noise = measureNoise();
  if ([...scenarios].every((scenario) => WITHOUT_DATABASE.includes(scenario))) return figures;

  const tmp = mkdtempSync(path.join(tmpdir(), "rivalscope-bench-"));
  // mkdtemp makes the folder private to root; the embedded server runs as `postgres` and needs to reach it.
  chmodSync(tmp, 0o755);
  cleanup.add(`remove ${tmp}`, () => rmSync(tmp, { recursive: true, force: true }));
  const logDir = path.join(tmp, "logs");
  const dataDir = path.join(tmp, "data");
  mkdirSync(logDir);
  mkdirSync(dataDir);

  progress(process.env.DATABASE_URL ? "creating the bench database on DATABASE_URL" : "starting embedded Postgres");
  const database = await openBenchDatabase(cleanup, tmp, process.env.DATABASE_URL);
  const knex = createKnex(database.url, { max: 4 });
  cleanup.add("close the bench's database pool", () => knex.destroy());
  await migrateLatest(knex);
  await reportDatabase(knex, database.server);

  const jwtSecret = randomBytes(32).toString("hex");
  const tokens = new TokenService(loadConfig({ JWT_SECRET: jwtSecret, DATA_DIR: dataDir }));
  const secretsKey = randomBytes(32);
  const serviceEnv = (extra: Record<string, string>) => ({
    DATABASE_URL: database.url,
    JWT_SECRET: jwtSecret,
    SECRETS_KEY: secretsKey.toString("hex"),
    DATA_DIR: dataDir,
    ...extra,
  });
  const context: BenchContext = { cleanup, knex, databaseUrl: database.url, tokens, logDir, serviceEnv, secretsKey };

  if (scenarios.has("feed")) figures.feed = await feedScenario(context);
  if (scenarios.has("detection")) figures.detection = await detectionScenario(context);
  if (scenarios.has("webhooks")) figures.webhooks = await webhookScenario(context);
  return figures;
}

/** Scenario 1: the feed through the API against a bare server running the same SQL. */
async function feedScenario({ cleanup, knex, databaseUrl, tokens, logDir, serviceEnv }: BenchContext) {
  const feedTenant = await createTenant(knex, tokens, "Feed Corp", "growth");
  const otherWorkspaces: string[] = [];
  for (let i = 1; i <= FEED.otherWorkspaces; i++) {
    otherWorkspaces.push((await createTenant(knex, tokens, `Other Workspace ${i}`, "enterprise")).workspaceId);
  }
  const total = FEED.bigWorkspaceEvents + FEED.otherWorkspaces * FEED.eventsPerOtherWorkspace;
  progress(`loading ${fixed(total)} events (${fixed(FEED.bigWorkspaceEvents)} in the measured workspace)`);
  const loadStarted = performance.now();
  const loaded = await loadEvents(knex, {
    workspaceIds: [feedTenant.workspaceId, ...otherWorkspaces],
    firstCount: FEED.bigWorkspaceEvents,
    otherCount: FEED.eventsPerOtherWorkspace,
    days: FEED.days,
  });
  if (loaded !== total) throw new Error(`loaded ${loaded} events, expected ${total}`);
  progress(
    `loaded ${fixed(loaded)} events in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s (with ANALYZE)`,
  );

  const caller: AuthContext = {
    userId: feedTenant.userId,
    email: feedTenant.email,
    isAdmin: false,
    workspaceId: feedTenant.workspaceId,
    role: "owner",
    plan: "growth",
  };
  const query = await captureFeedQuery(caller);
  const loadOptions = {
    connections: FEED.connections,
    warmupSeconds: FEED.warmupSeconds,
    durationSeconds: FEED.durationSeconds,
    // BENCH_FEED_RATE=1000 holds both servers at 1,000 req/s to compare CPU per request (docs/stack-notes.md).
    rate: Number(process.env.BENCH_FEED_RATE) || undefined,
  };

  const bareServer = await startChild({
    name: "bare-server",
    entry: "bench/bare-server.ts",
    env: { BENCH_DATABASE_URL: databaseUrl, BENCH_SQL: query.sql, BENCH_PARAMS: JSON.stringify(query.params) },
    logDir,
    readyPath: "/events",
    cleanup,
  });
  const barePage = await fetchFeedPage(`${bareServer.baseUrl}/events`);
  progress(`bare node:http + pg server (pid ${bareServer.pid}): ${describeLoad(loadOptions)}`);
  const bare = await measureLoad({ url: `${bareServer.baseUrl}/events`, serverPid: bareServer.pid, ...loadOptions });
  progress(`bare: ${fixed(bare.requestsPerSecond)} req/s, p99 ${fixed(bare.p99Ms)} ms${loadCpuNote(bare)}`);
  await bareServer.stop();

  const apiServer = await startChild({
    name: "service-api",
    entry: "src/main.ts",
    env: serviceEnv({ ROLE: "api" }),
    logDir,
    readyPath: "/health",
    cleanup,
  });
  const headers = { authorization: feedTenant.bearer };
  assertSamePage(await fetchFeedPage(`${apiServer.baseUrl}/events`, headers), barePage, FEED.pageSize);
  progress(`service, ROLE=api (pid ${apiServer.pid}), same page as the baseline: ${describeLoad(loadOptions)}`);
  const api = await measureLoad({
    url: `${apiServer.baseUrl}/events`,
    serverPid: apiServer.pid,
    headers,
    ...loadOptions,
  });
  progress(`API: ${fixed(api.requestsPerSecond)} req/s, p99 ${fixed(api.p99Ms)} ms${loadCpuNote(api)}`);
  await apiServer.stop();
  return { bare, api, fixedRate: loadOptions.rate !== undefined };
}

/** Scenarios 2 and 3: run-now latency and fetch throughput. */
async function detectionScenario({ cleanup, knex, databaseUrl, tokens, logDir, serviceEnv }: BenchContext) {
  // One ROLE=all service. The scheduler's periodic tick is parked (once a day) so that only the
  // bench's run-now calls queue fetches; its start-up tick finds nothing due.
  const service = await startChild({
    name: "service-all",
    entry: "src/main.ts",
    env: serviceEnv({ ROLE: "all", ALLOW_PRIVATE_TARGETS: "1", SCHEDULER_TICK_SECONDS: "86400" }),
    logDir,
    readyPath: "/health",
    cleanup,
  });
  const latencyTenant = await createTenant(knex, tokens, "Latency Inc", "growth");
  progress(`service, ROLE=all (pid ${service.pid}): run-now → event visible, ${LATENCY_RUNS} runs`);
  const latency = await measureRunNowLatency({
    api: new ApiClient(service.baseUrl, latencyTenant.bearer),
    knex,
    runs: LATENCY_RUNS,
    cleanup,
  });
  progress(
    `run-now → visible: median ${fixed(latency.medianMs)} ms, max ${fixed(latency.maxMs)} ms ` +
      `(${latency.samplesMs.map((ms) => fixed(ms)).join(", ")} ms; new events per run ${latency.eventsPerRun.join(", ")})`,
  );

  const throughputTenant = await createTenant(knex, tokens, "Throughput Ltd", "growth");
  progress(`fetch → event throughput: ${THROUGHPUT.sources} sources on ${THROUGHPUT.hosts} fixture sites`);
  const throughput = await measureFetchThroughput({
    api: new ApiClient(service.baseUrl, throughputTenant.bearer),
    knex,
    databaseUrl,
    servicePid: service.pid,
    workspaceId: throughputTenant.workspaceId,
    sources: THROUGHPUT.sources,
    hosts: THROUGHPUT.hosts,
    cleanup,
  });
  progress(
    `throughput via run-now: ${throughput.sources} sources in ${throughput.seconds.toFixed(2)} s ` +
      `(${throughput.events} events; the run-now calls took ${throughput.enqueueSeconds.toFixed(2)} s` +
      `${cpuNote(throughput.serviceCpuShare)})`,
  );
  progress(
    `throughput, all queued at once: ${throughput.sources} sources in ${throughput.pipelineOnly.seconds.toFixed(2)} s` +
      `${cpuNote(throughput.pipelineOnly.serviceCpuShare)}`,
  );
  await service.stop();
  return { latency, throughput };
}

/** Scenarios 4 and 5: webhook deliveries/s and event → webhook latency. */
async function webhookScenario({ cleanup, knex, databaseUrl, tokens, logDir, serviceEnv, secretsKey }: BenchContext) {
  // A fresh ROLE=all service (its API idle) whose workers sign and send the webhooks.
  const webhookService = await startChild({
    name: "service-webhooks",
    entry: "src/main.ts",
    env: serviceEnv({ ROLE: "all", ALLOW_PRIVATE_TARGETS: "1", SCHEDULER_TICK_SECONDS: "86400", LOG_LEVEL: "warn" }),
    logDir,
    readyPath: "/health",
    cleanup,
  });
  const webhookTenant = await createTenant(knex, tokens, "Webhook Co", "growth");
  const webhooks = await measureWebhooks({
    knex,
    databaseUrl,
    workerPids: [webhookService.pid],
    workspaceId: webhookTenant.workspaceId,
    secretsKey,
    events: WEBHOOKS.events,
    latencyRuns: WEBHOOKS.latencyRuns,
    cleanup,
  });
  const { latency: hookLatency } = webhooks;
  progress(
    `event → webhook: median ${fixed(hookLatency.medianMs)} ms, p95 ${fixed(hookLatency.p95Ms)} ms, ` +
      `max ${fixed(hookLatency.maxMs)} ms`,
  );
  await webhookService.stop();
  return webhooks;
}

/** The server process's CPU use: a process at ~100 % of a core is the bottleneck, one well below it is not. */
function cpuNote(share: number | null): string {
  return share === null ? "" : `; server process at ${fixed(share * 100)} % of a core`;
}

/** The server's CPU share, and what it comes to per request. */
function loadCpuNote({ serverCpuShare: share, requestsPerSecond }: LoadResult): string {
  if (share === null) return "";
  return `${cpuNote(share)}, ${fixed((share * 1e6) / requestsPerSecond)} µs per request`;
}

function describeLoad(options: {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  rate?: number;
}): string {
  const rate = options.rate ? `, at ${fixed(options.rate)} req/s` : "";
  return `${options.connections} connections${rate}, ${options.warmupSeconds} s warm-up, ${options.durationSeconds} s measured`;
}

async function reportDatabase(knex: Knex, server: string): Promise<void> {
  const { rows } = await knex.raw("SELECT version() AS version");
  progress(`database: ${server}, ${String(rows[0].version).split(" on ")[0]}`);
}

function summary(figures: Figures): string {
  return summaryTable([
    ...(figures.feed ? feedRows(figures.feed) : []),
    ...(figures.detection ? detectionRows(figures.detection) : []),
    ...(figures.webhooks ? webhookRows(figures.webhooks) : []),
    ...(figures.extraction ? extractionRows(figures.extraction) : []),
    ...(figures.rendering ? renderingRows(figures.rendering) : []),
    ...(figures.accuracy ? accuracyRows(figures.accuracy) : []),
    ...(figures.noise ? noiseRows(figures.noise) : []),
  ]);
}

function feedRows({ bare, api, fixedRate }: NonNullable<Figures["feed"]>): SummaryRow[] {
  const ratio = api.requestsPerSecond / bare.requestsPerSecond;
  const cpuCell = (load: LoadResult) =>
    load.serverCpuShare === null ? "" : `, server CPU ${fixed(load.serverCpuShare * 100)} %`;
  const size = (load: LoadResult) => `${fixed(load.bytesPerResponse / 1024, 1)} KB/response`;
  return [
    {
      measurement: "GET /events, API (express + openapi-backend + auth)",
      value: `${fixed(api.requestsPerSecond)} req/s, p50 ${fixed(api.p50Ms)} ms, p99 ${fixed(api.p99Ms)} ms${cpuCell(api)}`,
      target: "",
      met: null,
    },
    {
      measurement: "GET /events, bare node:http + pg (same SQL)",
      value: `${fixed(bare.requestsPerSecond)} req/s, p50 ${fixed(bare.p50Ms)} ms, p99 ${fixed(bare.p99Ms)} ms${cpuCell(bare)}`,
      target: "",
      met: null,
    },
    // At a fixed rate both answer the same req/s: the ratio says nothing, the CPU per request does.
    {
      measurement: "API / bare req/s",
      value: fixedRate ? `not measured at a fixed rate (${size(api)})` : `${fixed(ratio, 2)} (${size(api)})`,
      target: `≥ ${TARGETS.feedRatio}`,
      met: fixedRate ? null : ratio >= TARGETS.feedRatio,
    },
  ];
}

function detectionRows({ latency, throughput }: NonNullable<Figures["detection"]>): SummaryRow[] {
  return [
    {
      measurement: `run-now → event visible, median of ${latency.samplesMs.length}`,
      value: `${fixed(latency.medianMs)} ms`,
      target: `≤ ${TARGETS.runNowSeconds} s`,
      met: latency.medianMs <= TARGETS.runNowSeconds * 1000,
    },
    {
      measurement: `run-now → event visible, max of ${latency.samplesMs.length}`,
      value: `${fixed(latency.maxMs)} ms`,
      target: `≤ ${TARGETS.runNowSeconds} s`,
      met: latency.maxMs <= TARGETS.runNowSeconds * 1000,
    },
    {
      measurement: `fetch → event throughput via run-now (${throughput.sources} sources, ${throughput.hosts} hosts)`,
      value: `${fixed(throughput.sourcesPerSecond, 1)} sources/s (${throughput.seconds.toFixed(2)} s)`,
      target: `≥ ${TARGETS.sourcesPerSecond} sources/s`,
      met: throughput.sourcesPerSecond >= TARGETS.sourcesPerSecond,
    },
    {
      measurement: "  the same, all queued in one transaction (pipeline alone)",
      value: `${fixed(throughput.pipelineOnly.sourcesPerSecond, 1)} sources/s (${throughput.pipelineOnly.seconds.toFixed(2)} s)`,
      target: "",
      met: null,
    },
    {
      measurement: "  first fetch of the same sources via run-now (baseline, no events)",
      value: `${fixed(throughput.sources / throughput.baselineSeconds, 1)} sources/s`,
      target: "",
      met: null,
    },
  ];
}

function webhookRows(webhooks: WebhookResult): SummaryRow[] {
  return [
    {
      measurement: `signed webhook deliveries, ${fixed(webhooks.throughput.deliveries)} events committed at once`,
      value: `${fixed(webhooks.throughput.deliveriesPerSecond)}/s (${webhooks.throughput.seconds.toFixed(2)} s)`,
      target: `≥ ${TARGETS.deliveriesPerSecond}/s`,
      met: webhooks.throughput.deliveriesPerSecond >= TARGETS.deliveriesPerSecond,
    },
    {
      measurement: "  the same, deliveries committed at once (delivery stage alone)",
      value: `${fixed(webhooks.deliverOnly.deliveriesPerSecond)}/s (${webhooks.deliverOnly.seconds.toFixed(2)} s)`,
      target: "",
      met: null,
    },
    {
      measurement: `event committed → webhook received, median / p95 of ${webhooks.latency.samplesMs.length}`,
      value: `${fixed(webhooks.latency.medianMs)} ms / ${fixed(webhooks.latency.p95Ms)} ms`,
      target: `≤ ${TARGETS.webhookSeconds} s`,
      met: webhooks.latency.p95Ms <= TARGETS.webhookSeconds * 1000,
    },
    {
      measurement: `event committed → webhook received, max of ${webhooks.latency.samplesMs.length}`,
      value: `${fixed(webhooks.latency.maxMs)} ms`,
      target: `≤ ${TARGETS.webhookSeconds} s`,
      met: webhooks.latency.maxMs <= TARGETS.webhookSeconds * 1000,
    },
  ];
}

function extractionRows({ samples, worst, budgetMs }: ExtractionResult): SummaryRow[] {
  const perMb = (ms: number) => (Number.isFinite(ms) ? `${fixed(ms)} ms/MB` : `over ${budgetMs / 1000} s`);
  const slowest = samples.reduce((a, b) => ((b.ms ?? Infinity) > (a.ms ?? Infinity) ? b : a));
  const slowestTime = slowest.ms === null ? `over ${budgetMs / 1000} s` : `${fixed(slowest.ms)} ms`;
  return [
    {
      measurement: `extraction of ${samples.length} hostile bodies, worst median time per MB (under 1 MB counts as 1 MB)`,
      value: `${perMb(worst.msPerMb)}: ${worst.name} (${fixed(worst.megabytes, 2)} MB)`,
      target: `≤ ${fixed(TARGETS.extractionMsPerMb)} ms/MB`,
      met: worst.msPerMb <= TARGETS.extractionMsPerMb,
    },
    {
      measurement: "  the slowest body",
      value: `${slowestTime}: ${slowest.name} (${fixed(slowest.megabytes, 2)} MB)`,
      target: "",
      met: null,
    },
  ];
}

async function main(): Promise<number> {
  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  progress(`Node ${process.version}, ${availableParallelism()} cores; everything on 127.0.0.1`);
  let figures: Figures | null = null;
  let failure: unknown = null;
  try {
    figures = await bench(cleanup, selectedScenarios(process.argv.slice(2)));
  } catch (error) {
    failure = error;
  }
  progress("cleaning up");
  const leftovers = await cleanup.runAll();
  if (failure) {
    console.error("\nbench failed:", failure instanceof Error ? (failure.stack ?? failure.message) : failure);
  }
  for (const problem of leftovers) console.error(`cleanup: ${problem}`);
  if (figures) console.log(`\n${summary(figures)}\n`);
  return failure || leftovers.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
