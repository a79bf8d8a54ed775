/**
 * The one outbound HTTP client of the service: source fetches, and later webhooks, CRM and LLM calls, all go through
 * it so that every request gets the same SSRF guard (src/lib/ssrf-guard.ts), byte cap, timeouts and readable errors.
 * FetchError messages are shown to customers as a source's `error_message`, so they name the host and the reason in
 * plain words and never carry a stack or an errno.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { performance } from "node:perf_hooks";
import { Readable, Transform, pipeline, type TransformCallback } from "node:stream";
import zlib from "node:zlib";
import { Agent } from "undici";
import type { Dispatcher } from "undici";
import {
  BlockedTargetError,
  UnresolvableHostError,
  assertLiteralAllowed,
  createGuardedLookup,
  normaliseHostname,
  type GuardPolicy,
  type Resolver,
} from "./ssrf-guard.js";

export interface HttpClientOptions {
  /** ALLOW_PRIVATE_TARGETS=1 lifts the address checks (tests, local dev); the scheme check stays. */
  allowPrivateTargets: boolean;
  /** Default "RivalscopeBot/0.1 (+https://rivalscope.example/bot)". */
  userAgent?: string;
  /** Cap on the DECOMPRESSED body, enforced while streaming. Default 5 MB. */
  maxBytes?: number;
  /** Default 10 000 (includes name resolution). */
  connectTimeoutMs?: number;
  /** Headers timeout and body (idle between chunks) timeout. Default 20 000. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /**
   * Whole-exchange deadline (all redirect hops and the body), default 60 000: the idle timeouts alone let a server
   * trickling one byte every few seconds hold a fetch for ever.
   */
  totalTimeoutMs?: number;
  /** DNS override for tests; default dns.promises.lookup(hostname, { all: true }). */
  lookup?: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
  /** Hostnames exempt from the private-address check (operator escape hatch; lets tests make a "public" first hop). */
  allowHosts?: string[];
}

export interface FetchPageOptions {
  /** Sent as If-None-Match. */
  etag?: string | null;
  /** Sent as If-Modified-Since. */
  lastModified?: string | null;
  /** Accept header; default prefers HTML and XML (pages and feeds). */
  accept?: string;
}

export interface FetchResult {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Response headers, names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  contentType: string | null;
  /** Decoded text ("" for 304). */
  body: string;
  /** Size of the decompressed body in bytes. */
  bytes: number;
  /** From the response; on a 304 that omits it, the validator that was sent (it is still the current one). */
  etag: string | null;
  lastModified: string | null;
  notModified: boolean;
  /** Each redirect target, in order (absolute URLs); the last one equals `url` when non-empty. */
  redirects: string[];
  elapsedMs: number;
}

export type FetchErrorKind =
  "invalid_url" | "blocked" | "dns" | "timeout" | "network" | "http" | "too_large" | "redirects";

export class FetchError extends Error {
  readonly kind: FetchErrorKind;
  /** HTTP status for kind "http", otherwise null. */
  readonly status: number | null;
  /** Worth retrying later: timeouts, network and DNS failures, HTTP 408/425/429/5xx. */
  readonly retryable: boolean;

  constructor(kind: FetchErrorKind, message: string, options: { status?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FetchError";
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryable =
      kind === "timeout" ||
      kind === "network" ||
      kind === "dns" ||
      (kind === "http" && this.status !== null && isRetryableStatus(this.status));
  }
}

export interface SendInit {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** Overrides the client's headers/body timeout for this call. */
  timeoutMs?: number;
  /** Overrides the whole-exchange deadline (connect to last byte) for this call. */
  totalTimeoutMs?: number;
}

export interface SendResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  elapsedMs: number;
}

export interface HttpClient {
  /** GET; follows redirects manually, re-checking every hop; non-2xx (except 304) throws FetchError kind "http". */
  fetchPage(url: string, options?: FetchPageOptions): Promise<FetchResult>;
  /**
   * For webhooks/CRM/LLM: same guard, NO redirects followed, any status returned (no throw on 4xx/5xx); throws
   * FetchError on blocked/timeout/network/too_large.
   */
  send(url: string, init: SendInit): Promise<SendResult>;
  close(): Promise<void>;
}

/** The bot's name, which every outbound request carries (a rendering browser adds it to its own). */
export const BOT_USER_AGENT = "RivalscopeBot/0.1 (+https://rivalscope.example/bot)";
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_TOTAL_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_PAGE_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const ACCEPT_ENCODING = "gzip, deflate, br";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** How many bytes of an unwanted body (redirect, error) to drain so the connection can be reused. */
const DRAIN_LIMIT = 64 * 1024;

export function createHttpClient(options: HttpClientOptions): HttpClient {
  return new UndiciHttpClient(options);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

const defaultResolver: Resolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Aborts the exchange when the whole-request deadline passes. */
  deadline: Deadline;
}

/** The whole-exchange deadline: its signal, and its length for the error message. */
interface Deadline {
  signal: AbortSignal;
  ms: number;
}

function deadlineIn(ms: number): Deadline {
  return { signal: AbortSignal.timeout(ms), ms };
}

class UndiciHttpClient implements HttpClient {
  private readonly agent: Agent;
  private readonly policy: GuardPolicy;
  private readonly userAgent: string;
  private readonly maxBytes: number;
  private readonly connectTimeoutMs: number;
  private readonly timeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly maxRedirects: number;

  constructor(options: HttpClientOptions) {
    this.userAgent = options.userAgent ?? BOT_USER_AGENT;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.totalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
    this.maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.policy = {
      checkAddresses: !options.allowPrivateTargets,
      exemptHosts: new Set((options.allowHosts ?? []).map(normaliseHostname)),
    };
    // One keep-alive agent per client. Its connector resolves names through the guard, so the socket connects to
    // exactly the addresses that were checked; the connect timeout therefore also bounds a hanging resolver.
    this.agent = new Agent({
      connect: {
        timeout: this.connectTimeoutMs,
        lookup: createGuardedLookup(options.lookup ?? defaultResolver, this.policy),
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  async fetchPage(rawUrl: string, options: FetchPageOptions = {}): Promise<FetchResult> {
    const started = performance.now();
    let url = parseTarget(rawUrl);
    const headers: Record<string, string> = {
      "user-agent": this.userAgent,
      accept: options.accept ?? DEFAULT_PAGE_ACCEPT,
      "accept-encoding": ACCEPT_ENCODING,
    };
    // The validators were taken from the final URL of an earlier fetch, so they go with every hop of the chain.
    if (options.etag) headers["if-none-match"] = options.etag;
    if (options.lastModified) headers["if-modified-since"] = options.lastModified;
    const redirects: string[] = [];
    const deadline = deadlineIn(this.totalTimeoutMs);

    for (;;) {
      const response = await this.dispatch({ url, method: "GET", headers, timeoutMs: this.timeoutMs, deadline });
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        await drain(response.body);
        if (redirects.length >= this.maxRedirects) {
          throw new FetchError("redirects", `too many redirects (more than ${this.maxRedirects})`);
        }
        const target = Array.isArray(location) ? location[0] : location;
        let next: URL;
        try {
          next = new URL(target ?? "", url);
        } catch {
          throw new FetchError("invalid_url", `invalid redirect location from ${hostLabel(url)}`);
        }
        // Scheme here; the address of the next hop is checked when it is dispatched, like the first one.
        assertSupportedScheme(next);
        redirects.push(next.href);
        url = next;
        continue;
      }

      const responseHeaders = flattenHeaders(response.headers);
      const contentType = responseHeaders["content-type"] ?? null;
      if (response.statusCode === 304) {
        await drain(response.body);
        return {
          url: url.href,
          status: 304,
          headers: responseHeaders,
          contentType,
          body: "",
          bytes: 0,
          etag: responseHeaders["etag"] ?? options.etag ?? null,
          lastModified: responseHeaders["last-modified"] ?? options.lastModified ?? null,
          notModified: true,
          redirects,
          elapsedMs: elapsedSince(started),
        };
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        await drain(response.body);
        throw new FetchError("http", `HTTP ${response.statusCode} from ${hostLabel(url)}`, {
          status: response.statusCode,
        });
      }

      const bytes = await this.readBody(response, url, this.timeoutMs, deadline);
      return {
        url: url.href,
        status: response.statusCode,
        headers: responseHeaders,
        contentType,
        body: decodeText(bytes, contentType),
        bytes: bytes.length,
        etag: responseHeaders["etag"] ?? null,
        lastModified: responseHeaders["last-modified"] ?? null,
        notModified: false,
        redirects,
        elapsedMs: elapsedSince(started),
      };
    }
  }

  async send(rawUrl: string, init: SendInit): Promise<SendResult> {
    const started = performance.now();
    const url = parseTarget(rawUrl);
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const headers: Record<string, string> = { "user-agent": this.userAgent, "accept-encoding": ACCEPT_ENCODING };
    for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;

    // No redirect handling at all: a webhook or API answering 3xx gets that status reported, never followed (a
    // redirect would replay a signed POST to a host the customer did not configure).
    const deadline = deadlineIn(init.totalTimeoutMs ?? Math.max(timeoutMs, this.totalTimeoutMs));
    const response = await this.dispatch({ url, method: init.method, headers, body: init.body, timeoutMs, deadline });
    const responseHeaders = flattenHeaders(response.headers);
    const bytes = await this.readBody(response, url, timeoutMs, deadline);
    return {
      status: response.statusCode,
      headers: responseHeaders,
      body: decodeText(bytes, responseHeaders["content-type"] ?? null),
      elapsedMs: elapsedSince(started),
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** One request to one URL: literal-address check, then undici (whose connector checks resolved names). */
  private async dispatch(exchange: Exchange): Promise<Dispatcher.ResponseData> {
    const { url, timeoutMs } = exchange;
    try {
      assertLiteralAllowed(url.hostname, this.policy);
      return await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: exchange.method as Dispatcher.HttpMethod,
        headers: exchange.headers,
        body: exchange.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: exchange.deadline.signal,
      });
    } catch (error) {
      throw this.toFetchError(error, url, timeoutMs, exchange.deadline);
    }
  }

  /** Reads the body, decompressing it, and aborts the transfer as soon as either size passes maxBytes. */
  private async readBody(
    response: Dispatcher.ResponseData,
    url: URL,
    timeoutMs: number,
    deadline: Deadline,
  ): Promise<Buffer> {
    const tooLarge = () => new FetchError("too_large", `response larger than ${formatSize(this.maxBytes)}`);
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      abandon(response.body);
      throw tooLarge();
    }

    let decoders: Transform[];
    try {
      decoders = createDecoders(headerValue(response.headers["content-encoding"]));
    } catch (error) {
      abandon(response.body);
      throw error instanceof UnsupportedEncodingError
        ? new FetchError("network", `unsupported content encoding "${error.encoding}" from ${hostLabel(url)}`)
        : error;
    }
    // The compressed stream is capped too, so a body that decompresses to little cannot stream forever.
    const rawLimit = new ByteLimit(this.maxBytes);
    const output: Readable =
      decoders.length > 0
        ? (pipeline([response.body, rawLimit, ...decoders], () => {}) as unknown as Readable)
        : response.body;

    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of output) {
        const buffer = chunk as Buffer;
        total += buffer.length;
        if (total > this.maxBytes) throw tooLarge();
        chunks.push(buffer);
      }
    } catch (error) {
      abandon(output);
      abandon(response.body);
      if (error instanceof FetchError) throw error;
      if (rawLimit.exceeded) throw tooLarge();
      if (isZlibError(error)) {
        throw new FetchError("network", `could not decompress the response from ${hostLabel(url)}`, { cause: error });
      }
      throw this.toFetchError(error, url, timeoutMs, deadline);
    }
    return Buffer.concat(chunks, total);
  }

  private toFetchError(error: unknown, url: URL, timeoutMs: number, deadline?: Deadline): FetchError {
    if (error instanceof FetchError) return error;
    if (deadline?.signal.aborted) {
      return new FetchError("timeout", `timed out after ${formatSeconds(deadline.ms)}`, { cause: error });
    }
    return fetchErrorFrom(error, url, { connectMs: this.connectTimeoutMs, responseMs: timeoutMs });
  }
}

/**
 * A failed exchange as callers see it: the kind and a plain message (no stack, no errno), the same for every client
 * (src/lib/byte-client.ts too). `timeouts` name the limits the messages quote.
 */
export function fetchErrorFrom(
  error: unknown,
  url: URL,
  timeouts: { connectMs: number; responseMs: number },
): FetchError {
  if (error instanceof FetchError) return error;
  const host = hostLabel(url);
  const chain = errorChain(error);
  const blocked = chain.find((e): e is BlockedTargetError => e instanceof BlockedTargetError);
  if (blocked) return new FetchError("blocked", blocked.message, { cause: error });
  const unresolvable = chain.find((e): e is UnresolvableHostError => e instanceof UnresolvableHostError);
  if (unresolvable) return new FetchError("dns", unresolvable.message, { cause: error });

  const codes = chain.map((e) => (e as NodeJS.ErrnoException).code).filter((c): c is string => typeof c === "string");
  const has = (...wanted: string[]) => codes.some((code) => wanted.includes(code));
  if (has("UND_ERR_CONNECT_TIMEOUT", "ETIMEDOUT")) {
    return new FetchError("timeout", `timed out after ${formatSeconds(timeouts.connectMs)}`, { cause: error });
  }
  if (has("UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT")) {
    return new FetchError("timeout", `timed out after ${formatSeconds(timeouts.responseMs)}`, { cause: error });
  }
  if (has("ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA")) {
    return new FetchError("dns", `could not resolve ${host}`, { cause: error });
  }
  if (has("ECONNREFUSED")) return new FetchError("network", `connection refused by ${host}`, { cause: error });
  if (has("EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL")) {
    return new FetchError("network", `${host} is unreachable`, { cause: error });
  }
  if (has("ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "UND_ERR_RES_CONTENT_LENGTH_MISMATCH")) {
    return new FetchError("network", `connection to ${host} closed unexpectedly`, { cause: error });
  }
  if (has("UND_ERR_INVALID_ARG")) {
    return new FetchError("invalid_url", `invalid request to ${host}`, { cause: error });
  }
  const tls = codes.find((code) => /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code));
  if (tls) {
    const reason = (chain.find((e) => (e as NodeJS.ErrnoException).code === tls) as Error | undefined)?.message ?? tls;
    return new FetchError("network", `TLS error with ${host}: ${reason}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError("network", `network error with ${host}: ${message}`, { cause: error });
}

export function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError("invalid_url", `invalid URL: ${raw}`);
  }
  assertSupportedScheme(url);
  return url;
}

export function assertSupportedScheme(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchError("invalid_url", `unsupported URL scheme ${url.protocol}`);
  }
}

/** Host as shown in messages: no port, no IPv6 brackets ("HTTP 503 from example.com"). */
export function hostLabel(url: URL): string {
  return normaliseHostname(url.hostname);
}

function elapsedSince(started: number): number {
  return Math.round(performance.now() - started);
}

/** 20000 → "20 s", 250 → "0.25 s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** 5242880 → "5 MB", 1536 → "1.5 KB", 900 → "900 bytes". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function flattenHeaders(headers: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const joined = headerValue(value);
    if (joined !== undefined) flat[name.toLowerCase()] = joined;
  }
  return flat;
}

/** Discards an unwanted body; a large one closes the connection instead of being read to the end. */
export async function drain(body: Dispatcher.ResponseData["body"]): Promise<void> {
  try {
    await body.dump({ limit: DRAIN_LIMIT });
  } catch {
    // The response we wanted is already decided; a broken unwanted body changes nothing.
  }
}

/**
 * Stops a transfer we no longer want (undici then closes the connection). Destroying an unfinished undici body emits
 * an abort error; nobody is listening any more, so it is swallowed here instead of crashing the process.
 */
export function abandon(stream: Readable): void {
  stream.on("error", () => {});
  stream.destroy();
}

/** Error, its `cause` chain and AggregateError members (Node's family racing reports one error per address). */
export function errorChain(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.length < 20) {
    const current = queue.shift();
    if (current === undefined || current === null || seen.includes(current)) continue;
    seen.push(current);
    if (current instanceof Error) {
      queue.push(current.cause);
      if (current instanceof AggregateError) queue.push(...current.errors);
    }
  }
  return seen;
}

function isZlibError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" && (code.startsWith("Z_") || code.startsWith("ERR_BROTLI") || code === "ERR__ERROR");
}

/** Passes bytes through and fails the pipeline once more than `limit` went by (`exceeded` tells why it failed). */
class ByteLimit extends Transform {
  exceeded = false;
  private seen = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) {
      this.exceeded = true;
      callback(new Error(`more than ${this.limit} bytes`));
    } else {
      callback(null, chunk);
    }
  }
}

class UnsupportedEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`unsupported content encoding ${encoding}`);
  }
}

// Browsers tolerate a body cut short after complete blocks; flushing like undici's fetch does keeps what arrived.
const ZLIB_OPTIONS: zlib.ZlibOptions = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_OPTIONS: zlib.BrotliOptions = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** Decoders for a Content-Encoding list, in the order to apply them (the last coding applied comes off first). */
function createDecoders(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  return codings.reverse().map((coding) => {
    switch (coding) {
      case "gzip":
      case "x-gzip":
        return zlib.createGunzip(ZLIB_OPTIONS);
      case "deflate":
        return new DeflateDecoder();
      case "br":
        return zlib.createBrotliDecompress(BROTLI_OPTIONS);
      default:
        throw new UnsupportedEncodingError(coding);
    }
  });
}

/**
 * "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw DEFLATE, as browsers accept.
 * A zlib stream starts with a CMF byte whose low nibble is 8 (deflate), which raw DEFLATE data rarely has.
 */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | null = null;

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      if (chunk.length === 0) {
        callback();
        return;
      }
      const inner =
        (chunk[0]! & 0x0f) === 0x08 ? zlib.createInflate(ZLIB_OPTIONS) : zlib.createInflateRaw(ZLIB_OPTIONS);
      inner.on("data", (data: Buffer) => this.push(data));
      inner.on("error", (error) => this.destroy(error));
      this.inner = inner;
    }
    this.inner.write(chunk, encoding, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) {
      callback();
      return;
    }
    this.inner.once("end", () => callback());
    this.inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    callback(error);
  }
}

// Node 20's TextDecoder decodes "windows-1252" (and the labels aliased to it: latin1, iso-8859-1, ascii) as
// ISO-8859-1, leaving 0x80–0x9F as C1 controls. These are the WHATWG windows-1252 code points for that row; the
// bytes 81, 8D, 8F, 90, 9D map to themselves.
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/**
 * Decodes a body the way browsers pick the encoding: a byte-order mark wins (it is unambiguous, and the HTML
 * standard ranks it above Content-Type), then the Content-Type charset, then an XML declaration or a
 * <meta charset> / http-equiv in the first 4 KB, then UTF-8. Unknown labels are skipped.
 */
export function decodeText(bytes: Buffer, contentType: string | null): string {
  const encoding =
    bomEncoding(bytes) ?? knownEncoding(charsetParameter(contentType)) ?? knownEncoding(sniffDeclared(bytes), true);
  const name = encoding ?? "utf-8";
  const text = new TextDecoder(name).decode(bytes);
  if (name !== "windows-1252") return text;
  return text.replace(/[\u0080-\u009f]/g, (c) => String.fromCodePoint(WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!));
}

function bomEncoding(bytes: Buffer): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

function charsetParameter(contentType: string | null): string | null {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? "");
  return match?.[1] ?? match?.[2] ?? null;
}

/** Encoding declared inside the document: `<?xml … encoding="…"?>` or a <meta> charset, in the first 4 KB. */
function sniffDeclared(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 4096).toString("latin1");
  const xml = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml?.[1]) return xml[1];
  const uncommented = head.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  for (const tag of uncommented.matchAll(/<meta\b[^>]*>/gi)) {
    // Covers <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">.
    const charset = /\bcharset\s*=\s*["']?\s*([^\s"'/>;]+)/i.exec(tag[0]);
    if (charset?.[1]) return charset[1];
  }
  return null;
}

/** The canonical name of a label TextDecoder supports, or null. */
function knownEncoding(label: string | null, declaredInDocument = false): string | null {
  if (!label) return null;
  let encoding: string;
  try {
    encoding = new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
  // A document that could be read as ASCII to find its own declaration is not UTF-16 (HTML standard, prescan).
  if (declaredInDocument && encoding.startsWith("utf-16")) return "utf-8";
  return encoding;
}
