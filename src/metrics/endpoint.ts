/**
 * `GET /metrics` (docs/operations.md#metrics): the Prometheus exposition of this process, for operators only. With
 * `METRICS_TOKEN` set, a scrape must send `Authorization: Bearer <token>`; without it, only local clients are
 * answered (a scraper on the same host, or a sidecar): a loopback peer that relays for no one. A reverse proxy on the
 * same host also connects from loopback, for any client of the internet, so a request that carries a forwarding
 * header (`Forwarded`, `X-Forwarded-*`, `X-Real-IP`, `Via`) or names a host that is not a loopback name is not a
 * local client. Served by the API's express app and, for a worker, which has no HTTP server, by a small one on
 * `METRICS_PORT`.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Config } from "../config.js";
import { metrics } from "./metrics.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
/** Host names a local scraper reaches the process by (the `Host` header without its port). */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
/** Headers a reverse proxy adds to say whom it relays for: their presence means the client is not local. */
const FORWARDING_HEADERS = [
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-real-ip",
  "via",
];

/** Whether the request comes from this host itself, not through a proxy on it (see the module comment). */
function isLocalClient(req: IncomingMessage): boolean {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? "")) return false;
  if (FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined)) return false;
  const host = req.headers.host;
  if (host === undefined) return true;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d*$/, "");
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}

/** Why a scrape is refused, or null when it may read the metrics. */
export function scrapeRefusal(
  config: Readonly<Config>,
  req: IncomingMessage,
): { status: number; detail: string } | null {
  if (config.metricsToken === null) {
    return isLocalClient(req)
      ? null
      : {
          status: 403,
          detail:
            "Metrics are served to local clients only (loopback, not through a proxy) unless METRICS_TOKEN is set",
        };
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
