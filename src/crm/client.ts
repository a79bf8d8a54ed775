/**
 * What the sync and rollup jobs need from a CRM, and the HTTP plumbing both vendor clients share: every call goes
 * through the project's one outbound client (deps.http: SSRF guard at every call, caps, timeouts), with the
 * connection's bearer token, and the vendor's answers are turned into three kinds of failure the jobs act on:
 * - CrmAuthError (401): the token is refused; the connection is marked errored and nothing is retried;
 * - CrmRetryableError (429, 5xx, 408, network, timeouts): pg-boss retries the job with backoff;
 * - CrmRequestError (any other 4xx): this request is wrong and will stay wrong; for a write it fails that record only.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { FetchError, type HttpClient } from "../lib/http-client.js";
import { parseRetryAfter } from "../webhooks/policy.js";
import type { AccountMapping } from "./mapping.js";
import type { FieldNames, Provider, WriteEvent } from "./properties.js";

export interface CrmClient {
  readonly provider: Provider;
  /** The account (Salesforce) or company (HubSpot) ids a competitor's mapping names, without repeats. */
  findAccounts(mapping: AccountMapping): Promise<string[]>;
  /** The open opportunities/deals of those accounts, without repeats. */
  openDeals(accountIds: string[]): Promise<string[]>;
  /** PATCH of the three configured fields. */
  writeLastMove(dealId: string, fields: FieldNames, event: WriteEvent): Promise<void>;
  /** The note attached to the deal; returns the note's id. */
  addNote(dealId: string, note: { title: string; text: string; timestamp: Date }): Promise<string>;
  /** The daily rollup engagement on the account; returns its id. */
  addRollup(accountId: string, day: string, lines: string[]): Promise<string>;
}

/** The connection as the clients need it. */
export interface CrmEndpoint {
  provider: Provider;
  base_url: string;
  token: string;
}

/**
 * Upper bounds of one event's fan-out (docs/product-rules.md#bounded-lists): accounts of a mapping, deals of an event.
 */
export const MAX_ACCOUNTS = 2000;
export const MAX_DEALS = 2000;
/**
 * Pages one listing (a search, a SOQL query, a list's members) may take at most. The longest legitimate listing is
 * MAX_ACCOUNTS ids at HubSpot's 100 per search page, 20 pages; a vendor that keeps answering with a next cursor (empty
 * pages, invalid ids, the same page again) would otherwise be followed for ever, holding a worker and the vendor's API
 * allowance. Past this many pages the listing stops with a CrmRequestError naming the runaway paging, which fails the
 * sync or rollup with that message instead of retrying into the same loop.
 */
export const MAX_PAGES = 50;
/** Vendor APIs answer in well under this; a stuck call must not hold a worker for the client's 60 s deadline. */
const CALL_TIMEOUT_MS = 30_000;
/** A Retry-After up to this is waited out inside the job (once); a longer one goes back to pg-boss. */
const MAX_INLINE_RETRY_AFTER_SECONDS = 10;

export const PROVIDER_LABELS: Readonly<Record<Provider, string>> = { salesforce: "Salesforce", hubspot: "HubSpot" };

export class CrmAuthError extends Error {}

export class CrmRetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

export class CrmRequestError extends Error {
  /**
   * The vendor's status, or null when no one answer was at fault: the request never reached the vendor (blocked
   * target, invalid URL, too large), or the vendor's paging never ended (MAX_PAGES).
   */
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface CrmResponse {
  status: number;
  json: any;
}

/**
 * One vendor's HTTP: JSON in and out, the bearer token, and the error mapping above. `describe` reads the vendor's
 * error body (`CODE: message`); `isRateLimit` lets a vendor name a non-429 answer as a rate limit (Salesforce's 403
 * REQUEST_LIMIT_EXCEEDED).
 */
export class CrmHttp {
  private readonly label: string;

  constructor(
    private readonly http: HttpClient,
    private readonly endpoint: CrmEndpoint,
    private readonly describe: (json: any) => string | null,
    private readonly isRateLimit: (status: number, json: any) => boolean = () => false,
  ) {
    this.label = PROVIDER_LABELS[endpoint.provider];
  }

  /**
   * `path` starts with `/` and may carry a query; `body` is sent as JSON. Resolves for 2xx only. A rate limit whose
   * Retry-After is short (both vendors use windows of seconds) is waited out here, once; a longer one, or a second
   * refusal, is thrown for pg-boss's backoff.
   */
  async call(method: string, path: string, body?: unknown): Promise<CrmResponse> {
    try {
      return await this.once(method, path, body);
    } catch (error) {
      const wait = error instanceof CrmRetryableError ? error.retryAfterSeconds : null;
      if (wait === null || wait > MAX_INLINE_RETRY_AFTER_SECONDS) throw error;
      await sleep(wait * 1000);
      return this.once(method, path, body);
    }
  }

  private async once(method: string, path: string, body?: unknown): Promise<CrmResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.endpoint.token}`,
      accept: "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response;
    try {
      response = await this.http.send(`${this.endpoint.base_url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: CALL_TIMEOUT_MS,
      });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      const message = `${this.label} could not be reached: ${error.message}`;
      throw error.retryable ? new CrmRetryableError(message) : new CrmRequestError(message, null);
    }
    const json = parseJson(response.body);
    if (response.status >= 200 && response.status <= 299) return { status: response.status, json };

    const detail = this.describe(json) ?? (response.body.trim().slice(0, 200) || "no details");
    const what = `${response.status} ${detail}`;
    if (response.status === 401) throw new CrmAuthError(`${this.label} rejected the token (${what})`);
    const retryable =
      response.status === 429 ||
      response.status === 408 ||
      response.status >= 500 ||
      this.isRateLimit(response.status, json);
    if (retryable) {
      throw new CrmRetryableError(
        `${this.label} answered ${what} to ${method} ${pathOnly(path)}`,
        parseRetryAfter(response.headers["retry-after"], Date.now()),
      );
    }
    throw new CrmRequestError(`${this.label} refused ${method} ${pathOnly(path)}: ${what}`, response.status);
  }
}

function parseJson(text: string): any {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The path without its query: SOQL queries are long and the message is shown to admins. */
function pathOnly(path: string): string {
  const index = path.indexOf("?");
  return index === -1 ? path : path.slice(0, index);
}

/**
 * Counts the pages of one listing: `next()` before fetching each page throws once MAX_PAGES have been fetched and
 * the vendor still offers another.
 */
export class PageBound {
  private pages = 0;

  constructor(
    private readonly provider: Provider,
    /** What is being listed, for the message: "the companies search", "list 42's members". */
    private readonly listing: string,
  ) {}

  next(): void {
    if (this.pages >= MAX_PAGES) {
      throw new CrmRequestError(
        `${PROVIDER_LABELS[this.provider]} kept offering another page of ${this.listing} after ${MAX_PAGES} pages; ` +
          "stopped following its cursor",
        null,
      );
    }
    this.pages++;
  }
}

/** Keeps the first `limit` distinct values, in order. */
export function distinct(values: Iterable<string>, limit: number): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.size >= limit) break;
    seen.add(value);
  }
  return [...seen];
}

export function chunks<T>(values: T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < values.length; i += size) result.push(values.slice(i, i + size));
  return result;
}
