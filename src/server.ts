/**
 * Starts the process's roles over one database: `api` serves HTTP, `worker` runs pg-boss handlers and schedules,
 * `all` does both (docs/architecture.md#roles). Returns a handle whose `stop()` shuts down gracefully.
 */
import type { Server } from "node:http";
import pino, { type Logger } from "pino";
import { buildApp } from "./app.js";
import { AccessChangeFeed } from "./auth/access-changes.js";
import { TokenService } from "./auth/tokens.js";
import type { Config } from "./config.js";
import { sealPlaintextSecrets } from "./db/sealed-secrets.js";
import { openDatabase, type Database } from "./db/database.js";
import type { AppServices } from "./http/handler.js";
import { startJobs } from "./jobs/boss.js";
import { workerHandlers } from "./jobs/registry.js";
import { DetectionPipeline } from "./detection/pipeline.js";
import { scheduledTasks } from "./jobs/scheduled-tasks.js";
import { startMetricsServer } from "./metrics/endpoint.js";
import { metrics } from "./metrics/metrics.js";
import { Scheduler } from "./jobs/scheduler.js";
import { createEmailTransport } from "./email/transports.js";
import { secretBoxOf } from "./lib/secret-box.js";
import { createHttpClient } from "./lib/http-client.js";
import { assetStoreFor } from "./lib/asset-store.js";

export interface RunningService {
  services: AppServices;
  pipeline: DetectionPipeline;
  database: Database;
  /** The HTTP server (api roles), listening. */
  server: Server | null;
  /** The express app, for in-process tests with supertest. */
  app: import("express").Express | null;
  /** The periodic scheduler (worker roles). */
  scheduler: Scheduler | null;
  /** The feed that keeps cached callers current (api roles). */
  accessChanges: AccessChangeFeed | null;
  stop(): Promise<void>;
}

/**
 * The shared services of a process over an open database: pg-boss (sending, plus maintenance for workers), the
 * outbound HTTP client, tokens and the detection pipeline. The service and the admin CLI both build them here.
 */
export async function openServices(
  config: Readonly<Config>,
  database: Database,
  log: Logger,
  options: { worker: boolean },
): Promise<AppServices> {
  const http = createHttpClient({ allowPrivateTargets: config.allowPrivateTargets });
  const jobs = await startJobs({ connectionString: database.url, log, worker: options.worker });
  const detection = new DetectionPipeline({
    knex: database.knex,
    jobs,
    http,
    log,
    parseBudgetMs: config.parseBudgetMs,
    browser: {
      timeoutMs: config.browser.timeoutMs,
      heapMb: config.browser.heapMb,
      executablePath: config.browser.chromiumPath,
      network: { allowPrivateTargets: config.allowPrivateTargets },
    },
    assets: assetStoreFor(config),
  });
  const email = createEmailTransport(config, database.knex, log);
  return { config, knex: database.knex, log, tokens: new TokenService(config), jobs, http, detection, email };
}

export interface StartOptions {
  /** Do not listen on a port (tests drive the express app directly). */
  listen?: boolean;
  log?: Logger;
}

export async function startService(config: Readonly<Config>, options: StartOptions = {}): Promise<RunningService> {
  const log = options.log ?? pino({ level: config.logLevel, base: { service: "rivalscope", role: config.role } });
  const database = await openDatabase(config, (message) => log.debug({ postgres: message.trim() }, "postgres"));
  // Credentials stored before sealing existed are sealed now, by whichever process starts first.
  const sealed = await sealPlaintextSecrets(database.knex, secretBoxOf(config));
  if (sealed > 0) log.info({ sealed }, "sealed stored credentials");
  const serveApi = config.role !== "worker";
  const runWorker = config.role !== "api";

  const services = await openServices(config, database, log, { worker: runWorker });
  const { jobs, http, email, detection: pipeline } = services;
  let scheduler: Scheduler | null = null;
  if (runWorker) {
    const delivery = { config, knex: database.knex, jobs, http, log };
    await jobs.startWorkers(workerHandlers({ email, log, pipeline, delivery }));
    scheduler = new Scheduler(
      { knex: database.knex, jobs, log },
      config.schedulerTickSeconds,
      scheduledTasks({ config, jobs }),
    );
    scheduler.start();
  }

  metrics.watch(database.knex);
  // A worker has no HTTP server of its own: it serves its metrics on METRICS_PORT, when set.
  const metricsServer =
    !serveApi && config.metricsPort !== null ? await startMetricsServer(config, config.metricsPort) : null;
  if (!serveApi) log.info({ role: config.role, metricsPort: config.metricsPort }, "started");
  let server: Server | null = null;
  let app: import("express").Express | null = null;
  let accessChanges: AccessChangeFeed | null = null;
  if (serveApi) {
    accessChanges = new AccessChangeFeed(database.url, log);
    await accessChanges.start();
    app = (await buildApp(services, accessChanges)).app;
    if (options.listen !== false) {
      const listening = app.listen(config.port, config.host);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once("listening", resolve);
        listening.once("error", reject);
      });
      log.info({ url: `http://${config.host}:${config.port}`, docs: `${config.publicBaseUrl}/docs` }, "listening");
    }
  }

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop taking requests and let in-flight ones finish; then let running jobs finish; then close pools.
      if (server) {
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
      }
      if (metricsServer) await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      await accessChanges?.close();
      await scheduler?.stop();
      await jobs.stop();
      await pipeline.close();
      await email.close();
      await http.close();
      metrics.forget(database.knex);
      await database.close();
      log.info("stopped");
    })());

  return { services, pipeline, database, server, app, scheduler, accessChanges, stop };
}
