/**
 * What one look at a competitor's website may cost within one request (docs/product-rules.md#discovery-and-profile):
 * discover-sources and profile fetch the homepage, sitemap.xml, a few child sitemaps and up to eight candidate pages
 * (profile verifies them, discover-sources checks them for JavaScript shells), all while the caller waits. Each fetch
 * reads at most PAGE_BYTES and lasts at most FETCH_MS; the request reads at most TOTAL_BYTES in all and starts no
 * fetch after REQUEST_MS. A fetch the budget does not allow is skipped: a sitemap not read means fewer candidates, a
 * candidate not fetched is reported unverified (and tracked with `http`).
 */
import { createHttpClient, type FetchPageOptions, type FetchResult, type HttpClient } from "../lib/http-client.js";

/** Largest body read per fetch (the outbound client stops reading past it). */
export const PAGE_BYTES = 2 * 1024 * 1024;
/** Bytes read over all of a request's fetches. */
export const TOTAL_BYTES = 8 * 1024 * 1024;
/** One fetch, connect to last byte, redirects included. */
export const FETCH_MS = 10_000;
/** No fetch starts once the request has run this long. */
export const REQUEST_MS = 20_000;

/** The outbound client for one request's fetches: the usual guard and timeouts, with the tighter limits above. */
export function discoveryClient(allowPrivateTargets: boolean): HttpClient {
  return createHttpClient({ allowPrivateTargets, maxBytes: PAGE_BYTES, totalTimeoutMs: FETCH_MS });
}

/**
 * The byte and time budget of one request. Each fetch reserves a whole page before it starts, so fetches running
 * at once never read past the total; one that finds no room waits for another to finish, and is skipped once the
 * bytes actually read leave no room for it, or the time is up.
 */
export class FetchBudget {
  private readonly startedAt = Date.now();
  private used = 0;
  private reserved = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly http: HttpClient) {}

  /** The page, or null when the budget does not allow the fetch. Fetch failures throw as usual. */
  async fetchPage(url: string, options?: FetchPageOptions): Promise<FetchResult | null> {
    if (!(await this.reserve())) return null;
    let read = 0;
    try {
      const result = await this.http.fetchPage(url, options);
      read = result.bytes;
      return result;
    } catch (error) {
      // A body cut at the page limit was read up to it.
      read = (error as { kind?: string }).kind === "too_large" ? PAGE_BYTES : 0;
      throw error;
    } finally {
      this.reserved -= PAGE_BYTES;
      this.used += read;
      for (const wake of this.waiting.splice(0)) wake();
    }
  }

  private async reserve(): Promise<boolean> {
    for (;;) {
      if (Date.now() - this.startedAt > REQUEST_MS || this.used + PAGE_BYTES > TOTAL_BYTES) return false;
      if (this.used + this.reserved + PAGE_BYTES <= TOTAL_BYTES) {
        this.reserved += PAGE_BYTES;
        return true;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }
}
