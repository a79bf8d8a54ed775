/**
 * The baseline of the feed benchmark: a bare `node:http` server that runs the feed query of GET /events with `pg` and
 * sends the text Postgres built. No routing, no authentication, no validation, no logging: what is left is the
 * query and the transport, so the API's throughput relative to this one is the cost of the framework stack.
 *
 * Run as its own process by bench/run.ts. Environment: PORT, BENCH_DATABASE_URL, BENCH_SQL (with $n placeholders)
 * and BENCH_PARAMS (a JSON array), as captured from src/events/service.ts.
 */
import { createServer } from "node:http";
import pg from "pg";

const sql = process.env.BENCH_SQL!;
const params = JSON.parse(process.env.BENCH_PARAMS!) as unknown[];
// The same pool size as the service's knex pool (src/db/knex.ts: max 10).
const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });

const server = createServer((req, res) => {
  if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/events") {
    res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
    return;
  }
  pool.query(sql, params).then(
    ({ rows }) => res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(rows[0].json),
    (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(error.message),
  );
});

server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`bare server listening on ${process.env.PORT}`));

process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  pool.end().finally(() => process.exit(0));
});
