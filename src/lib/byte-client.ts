/**
 * An outbound client for raw bytes, under the same SSRF guard as the one text client (src/lib/http-client.ts): what
 * a rendered page loads (scripts, styles, images, fonts, API calls) and the asset store's object requests are bytes,
 * which the text client decodes. The guard is src/lib/ssrf-guard.ts, applied the same way
 * (docs/stack-notes.md#ssrf-with-undici): IP literals checked before connecting, names resolved by the guarded
 * lookup that the socket then connects to (so a DNS answer cannot change between check and connect), every redirect
 * hop checked again. Errors are the text client's FetchError, with the same plain-words messages.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import zlib from "node:zlib";
import { Agent, type Dispatcher } from "undici";
import {
  abandon,
  assertSupportedScheme,
  drain,
  FetchError,
  fetchErrorFrom,
  formatSize,
  hostLabel,
  parseTarget,
} from "./http-client.js";
import {
  assertLiteralAllowed,
  createGuardedLookup,
  normaliseHostname,
  type GuardPolicy,
  type Resolver,
} from "./ssrf-guard.js";

export interface ByteClientOptions {
  /** ALLOW_PRIVATE_TARGETS=1 lifts the address checks; the scheme check stays. */
  allowPrivateTargets: boolean;
  /** Hostnames exempt from the address check (an operator-configured endpoint; tests' "public" names). */
  allowHosts?: string[];
  /** DNS override for tests; default dns.promises.lookup(hostname, { all: true }). */
  lookup?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
  /** Cap on one DECOMPRESSED response body; default 5 MB, as the text client. */
  maxBytes?: number;
  /** Connect timeout (name resolution included); default 10 000. */
  connectTimeoutMs?: number;
  /** Headers and idle-body timeout; default 20 000. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
}

export interface ByteRequest {
  method: string;
  /** Sent as given (names in any case); `host`, hop-by-hop headers and `accept-encoding` are the client's. */
  headers?: Record<string, string>;
  body?: Buffer | null;
  /** Follow 301/302/303/307/308 (each hop checked); otherwise a redirect is returned as is. */
  followRedirects?: boolean;
  /** Aborts the exchange (a page's budget); its reason decides nothing, the message says "timed out". */
  signal?: AbortSignal;
  /** A tighter cap than the client's for this response (what a page's byte budget has left). */
  maxBytes?: number;
}

export interface ByteResponse {
  /** Final URL after the redirects followed. */
  url: string;
  status: number;
  /** Names in lower case; repeated headers joined with ", " (set-cookie with "\n", as browsers take it). */
  headers: Record<string, string>;
  /** The decoded (decompressed) body. */
  body: Buffer;
  /** Each redirect target followed, in order. */
  redirects: string[];
}

const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers the client sets or that describe one hop's connection, never forwarded from a caller. */
const OWN_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "accept-encoding",
]);

const systemLookup = async (hostname: string) =>
  (await dnsLookup(hostname, { all: true })).map((entry) => ({
    address: entry.address,
    family: (entry.family === 6 ? 6 : 4) as 4 | 6,
  }));

export class ByteClient {
  private readonly agent: Agent;
  private readonly policy: GuardPolicy;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly maxRedirects: number;

  constructor(options: ByteClientOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.policy = {
      checkAddresses: !options.allowPrivateTargets,
      exemptHosts: new Set((options.allowHosts ?? []).map(normaliseHostname)),
    };
    const resolver: Resolver = options.lookup ?? systemLookup;
    // As in the text client: the connector resolves through the guard, so the socket connects to checked addresses.
    this.agent = new Agent({
      connect: { timeout: this.connectTimeoutMs, lookup: createGuardedLookup(resolver, this.policy) },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  async request(rawUrl: string, request: ByteRequest): Promise<ByteResponse> {
    let url = parseTarget(rawUrl);
    let method = request.method.toUpperCase();
    let body = request.body ?? null;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!OWN_HEADERS.has(lower) && !lower.startsWith(":")) headers[lower] = value;
    }
    headers["accept-encoding"] = "gzip, deflate, br";
    const redirects: string[] = [];
    for (;;) {
      const response = await this.dispatch(url, method, headers, body, request.signal);
      const location = response.headers.location;
      if (request.followRedirects && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        await drain(response.body);
        if (redirects.length >= this.maxRedirects) {
          throw new FetchError("redirects", `too many redirects (more than ${this.maxRedirects})`);
        }
        let next: URL;
        try {
          next = new URL(Array.isArray(location) ? (location[0] ?? "") : location, url);
        } catch {
          throw new FetchError("invalid_url", `invalid redirect location from ${hostLabel(url)}`);
        }
        assertSupportedScheme(next);
        // Browsers turn a POST into a GET on 301/302/303; 307/308 repeat the request as it was.
        if (
          response.statusCode === 303 ||
          ((response.statusCode === 301 || response.statusCode === 302) && method === "POST")
        ) {
          if (method !== "HEAD") method = "GET";
          body = null;
          delete headers["content-type"];
        }
        // Credentials set for one origin are not carried to another.
        if (next.origin !== url.origin) {
          delete headers.cookie;
          delete headers.authorization;
        }
        redirects.push(next.href);
        url = next;
        continue;
      }
      const flat = flattenHeaders(response.headers);
      const raw = await this.readBody(response, url, request.maxBytes ?? this.maxBytes, request.signal);
      return {
        url: url.href,
        status: response.statusCode,
        headers: flat,
        body: decode(raw, flat["content-encoding"], request.maxBytes ?? this.maxBytes, url),
        redirects,
      };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async dispatch(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | null,
    signal: AbortSignal | undefined,
  ): Promise<Dispatcher.ResponseData> {
    try {
      assertLiteralAllowed(url.hostname, this.policy);
      return await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers,
        body: body && body.length > 0 ? body : undefined,
        signal,
      });
    } catch (error) {
      throw this.toFetchError(error, url, signal);
    }
  }

  /** The raw (possibly compressed) body, aborted as soon as it passes `limit`. */
  private async readBody(
    response: Dispatcher.ResponseData,
    url: URL,
    limit: number,
    signal: AbortSignal | undefined,
  ): Promise<Buffer> {
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      abandon(response.body);
      throw tooLarge(limit);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        total += buffer.length;
        if (total > limit) throw tooLarge(limit);
        chunks.push(buffer);
      }
    } catch (error) {
      abandon(response.body);
      throw this.toFetchError(error, url, signal);
    }
    return Buffer.concat(chunks, total);
  }

  private toFetchError(error: unknown, url: URL, signal: AbortSignal | undefined): FetchError {
    if (error instanceof FetchError) return error;
    if (signal?.aborted) return new FetchError("timeout", `request to ${hostLabel(url)} cancelled: out of time`);
    return fetchErrorFrom(error, url, { connectMs: this.connectTimeoutMs, responseMs: this.timeoutMs });
  }
}

function tooLarge(limit: number): FetchError {
  return new FetchError("too_large", `response larger than ${formatSize(limit)}`);
}

function flattenHeaders(headers: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    flat[lower] = Array.isArray(value) ? value.join(lower === "set-cookie" ? "\n" : ", ") : value;
  }
  return flat;
}

/**
 * The body decompressed, within the same cap: zlib's `maxOutputLength` stops a small bomb from inflating past it.
 * Bodies are capped before they get here, so decoding them at once costs milliseconds.
 */
function decode(raw: Buffer, contentEncoding: string | undefined, limit: number, url: URL): Buffer {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity")
    .reverse();
  let body = raw;
  try {
    for (const coding of codings) {
      const options = { maxOutputLength: limit, finishFlush: zlib.constants.Z_SYNC_FLUSH };
      if (coding === "gzip" || coding === "x-gzip") body = zlib.gunzipSync(body, options);
      else if (coding === "br") body = zlib.brotliDecompressSync(body, { maxOutputLength: limit });
      else if (coding === "deflate") {
        // Zlib-wrapped as the standard says, or raw DEFLATE as some servers send and browsers accept.
        body = (body[0]! & 0x0f) === 0x08 ? zlib.inflateSync(body, options) : zlib.inflateRawSync(body, options);
      } else throw new FetchError("network", `unsupported content encoding "${coding}" from ${hostLabel(url)}`);
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit);
    throw new FetchError("network", `could not decompress the response from ${hostLabel(url)}`, { cause: error });
  }
  if (body.length > limit) throw tooLarge(limit);
  return body;
}
