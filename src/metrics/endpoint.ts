/**
 * `GET /metrics` (docs/operations.md#metrics): the Prometheus exposition of this process, for operators only. With
 * `METRICS_TOKEN` set, a scrape must send `Authorization: Bearer <token>`; without it, only loopback clients are
 * answered (a scraper on the same host, or a sidecar). Served by the API's express app and, for a worker, which has
 * no HTTP server, by a small one on `METRICS_PORT`.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Config } from "../config.js";
import { metrics } from "./metrics.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** Why a scrape is refused, or null when it may read the metrics. */
export function scrapeRefusal(
  config: Readonly<Config>,
  req: IncomingMessage,
): { status: number; detail: string } | null {
  if (config.metricsToken === null) {
    return LOOPBACK.has(req.socket.remoteAddress ?? "")
      ? null
      : { status: 403, detail: "Metrics are served to loopback clients only unless METRICS_TOKEN is set" };
  }
  const sent = Buffer.from(req.headers.authorization ?? "");
  const expected = Buffer.from(`Bearer ${config.metricsToken}`);
  if (sent.length === expected.length && timingSafeEqual(sent, expected)) return null;
  return { status: 401, detail: "Metrics need Authorization: Bearer <METRICS_TOKEN>" };
}

/** The handler for both servers: node's (req, res), which express passes through unchanged. */
export function metricsHandler(config: Readonly<Config>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = scrapeRefusal(config, req);
    if (refused) {
      res.writeHead(refused.status, {
        "content-type": "application/json",
        ...(refused.status === 401 ? { "www-authenticate": "Bearer" } : {}),
      });
      res.end(JSON.stringify({ detail: refused.detail }));
      return;
    }
    try {
      const { contentType, body } = await metrics.scrape();
      res.writeHead(200, { "content-type": contentType });
      res.end(body);
    } catch {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: "Metrics could not be collected (database unreachable?)" }));
    }
  };
}

/** A worker's metrics server on `METRICS_PORT` (it answers `/metrics` only). */
export async function startMetricsServer(config: Readonly<Config>, port: number): Promise<Server> {
  const handle = metricsHandler(config);
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.split("?")[0] === "/metrics") return void handle(req, res);
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ detail: "Not Found" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, config.host, resolve);
  });
  return server;
}
