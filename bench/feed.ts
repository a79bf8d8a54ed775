/**
 * Scenario 1: GET /events throughput and tail latency under load (autocannon, in the bench process), through the
 * full stack and against the bare baseline (bench/bare-server.ts) that runs the very same SQL.
 */
import { isDeepStrictEqual } from "node:util";
import autocannon from "autocannon";
import knex, { type Knex } from "knex";
import { WorkspaceScope } from "../src/db/tenancy.js";
import { EventService, type EventFilters } from "../src/events/service.js";
import type { AuthContext } from "../src/http/handler.js";
import { withCpuShare } from "./util.js";

export interface FeedQuery {
  /** The SQL text with `$n` placeholders, as knex sends it to Postgres. */
  sql: string;
  params: unknown[];
}

/**
 * The feed query exactly as src/events/service.ts builds it for `caller` and `filters`: EventService runs against a
 * recorder instead of a database, so the baseline can never drift from the service's SQL text.
 */
export async function captureFeedQuery(caller: AuthContext, filters: EventFilters = {}): Promise<FeedQuery> {
  const calls: FeedQuery[] = [];
  // knex's own compiler (no connection) turns the named bindings into the `$n` text and values pg receives.
  const compiler = knex({ client: "pg" });
  const recorder = {
    raw: async (sql: string, bindings: Record<string, Knex.Value>) => {
      const native = compiler.raw(sql, bindings).toSQL().toNative();
      calls.push({ sql: native.sql, params: [...native.bindings] });
      return { rows: [{ json: "[]" }] };
    },
  } as unknown as Knex;
  await new EventService({ caller, scope: new WorkspaceScope(recorder, caller.workspaceId) }).listJson(filters);
  await compiler.destroy();
  if (calls.length !== 1) throw new Error(`EventService.listJson ran ${calls.length} queries; the bench expects one`);
  return calls[0]!;
}

/** One page of the feed, parsed; throws unless it answers 200 with a JSON array. */
export async function fetchFeedPage(url: string, headers: Record<string, string> = {}): Promise<unknown[]> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as unknown;
  if (!Array.isArray(body)) throw new Error(`GET ${url} did not answer a JSON array`);
  return body;
}

/** The API and the baseline must serve the same page, or their throughputs are not comparable. */
export function assertSamePage(api: unknown[], bare: unknown[], expectedLength: number): void {
  if (bare.length !== expectedLength)
    throw new Error(`the baseline served ${bare.length} events, not ${expectedLength}`);
  if (!isDeepStrictEqual(api, bare)) {
    throw new Error("GET /events through the API and the baseline server answered different pages");
  }
}

export interface LoadResult {
  /** Completed requests per second over the measured run. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Mean response size (bytes), to show both servers moved the same payload. */
  bytesPerResponse: number;
  /** CPU the server process used during the measured run, as a share of one core (`null` without /proc). */
  serverCpuShare: number | null;
}

export interface LoadOptions {
  url: string;
  /** The server's process, whose CPU use is reported. */
  serverPid: number;
  headers?: Record<string, string>;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /**
   * Requests per second over all connections; unset, as many as the server answers. A fixed rate compares two builds
   * by their CPU per request, which varies far less from run to run than their throughput.
   */
  rate?: number;
}

/** A warm-up run (discarded), then the measured run. Any error or non-2xx answer makes the run invalid. */
export async function measureLoad(options: LoadOptions): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url: options.url,
      headers: options.headers,
      connections: options.connections,
      duration,
      timeout: 10,
      ...(options.rate ? { overallRate: options.rate } : {}),
    });
  assertClean(await run(options.warmupSeconds), "warm-up");
  const { value: result, cpuShare } = await withCpuShare(options.serverPid, () => run(options.durationSeconds));
  assertClean(result, "measured run");
  const requests = result.requests.total ?? result["2xx"];
  return {
    requestsPerSecond: requests / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    bytesPerResponse: (result.throughput.total ?? 0) / Math.max(requests, 1),
    serverCpuShare: cpuShare,
  };
}

function assertClean(result: autocannon.Result, what: string): void {
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(
      `${what}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers ` +
        `(status counts ${JSON.stringify(result.statusCodeStats)}): not a valid measurement`,
    );
  }
}
