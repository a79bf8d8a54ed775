/**
 * Rendering a `browser` source (docs/product-rules.md#rendered-pages): the page is loaded in headless Chromium
 * (src/detection/fetch/browser.ts), its scripts run, and the DOM they built is read as HTML, which the pipeline then
 * extracts exactly as an http body. The page stays open until the pipeline has decided what changed, for the
 * screenshots of the changed regions.
 *
 * The network rule: Chromium never reaches the network itself. Every request the page makes (the document, scripts,
 * styles, images, fonts, XHR/fetch, frames) is intercepted and fetched by the guarded byte client
 * (src/lib/byte-client.ts) with the SSRF guard of every outbound call: the address checked is the address connected
 * to, every redirect hop is checked (redirects are followed by the client, each hop again), and a refused request
 * fails in the page like a network error. What interception does not see (websockets, preconnects, WebRTC, DNS
 * prefetching) goes to a proxy that refuses every connection; service workers are blocked.
 *
 * Budgets: the page has BROWSER_TIMEOUT_MS from the moment it has a place in the pool to load (every resource the
 * document needs), settle (its data requests done) and hand over its DOM; past it the fetch fails with a message
 * that says so. Its scripts' heap is capped (BROWSER_HEAP_MB: a page that runs out crashes alone), each response at
 * 5 MB and all of a page's responses at PAGE_BYTES; media, websockets, beacons and downloads are not fetched at all.
 */
import { performance } from "node:perf_hooks";
import type { Page, Route } from "playwright-core";
import { ByteClient, type ByteClientOptions, type ByteResponse } from "../../lib/byte-client.js";
import {
  BOT_USER_AGENT,
  decodeText,
  DEFAULT_PAGE_ACCEPT,
  FetchError,
  hostLabel,
  type FetchResult,
} from "../../lib/http-client.js";
import { BrowserPool, type Lease } from "./browser.js";
import { PageError, mediaType } from "./page-text.js";
import { LOCATE_SCRIPT, type Region, type ScreenshotTarget } from "./screenshot.js";

/** Bytes all of one page's responses may read together (the document included). */
export const PAGE_BYTES = 25 * 1024 * 1024;
/** After `load`, how long the page may keep fetching data before its DOM is read anyway. */
const SETTLE_MS = 3_000;
/** Quiet time that counts as settled: no request in flight for this long. */
const QUIET_MS = 500;
/** One screenshot (finding its region included). */
const SCREENSHOT_MS = 5_000;
/** The window pages are laid out in, and the largest screenshot taken of a region. */
export const VIEWPORT = { width: 1280, height: 800 };
const MAX_SHOT_HEIGHT = 1_200;
const SHOT_PADDING = 16;
/** What the page may load: everything a page needs to show itself, nothing that streams or reports. */
const LOADED_TYPES = new Set(["document", "stylesheet", "image", "font", "script", "xhr", "fetch"]);
const METHODS = new Set(["GET", "HEAD", "POST"]);
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
/** Response headers that describe the transfer the client already decoded, not the body handed to the page. */
const TRANSFER_HEADERS = new Set([
  "content-encoding",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
]);
/** A browser's user agent, with the bot's name in it: pages render as for a browser, and the bot is identified. */
export const RENDER_USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Safari/537.36 ${BOT_USER_AGENT}`;
/** Peer-to-peer connections do not go through any proxy: the page gets none. */
const NO_WEBRTC = `(() => { for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"]) {
  try { Object.defineProperty(window, name, { value: undefined, configurable: false, writable: false }); } catch {} } })()`;

export interface RendererOptions {
  pool: BrowserPool;
  /** The guard and its exceptions (ALLOW_PRIVATE_TARGETS; tests' allowHosts and lookup). */
  network: Pick<ByteClientOptions, "allowPrivateTargets" | "allowHosts" | "lookup">;
  /** BROWSER_TIMEOUT_MS. */
  timeoutMs: number;
}

/** A screenshot of a region (or of the top of the page), as PNG bytes. */
export interface Screenshot {
  png: Buffer;
  /** The region found for the target; null when the top of the page was taken instead. */
  region: Region | null;
  width: number;
  height: number;
}

export interface RenderedPage {
  /** The page as the pipeline reads a fetch: the rendered DOM as HTML, or the raw body of a non-HTML document. */
  result: FetchResult;
  /** False for a document that is not HTML (read as an http fetch would be): nothing was rendered, no screenshots. */
  rendered: boolean;
  /** URLs of the page's requests the SSRF guard refused (for the log). */
  blocked: string[];
  /** A screenshot for one target; null when the page can no longer take one (within its time); rejects when shooting fails. */
  screenshot(target: ScreenshotTarget): Promise<Screenshot | null>;
  /** Closes the page and frees its place in the pool. Idempotent. */
  close(): Promise<void>;
}

/** What the route handler knows about the page being rendered. */
interface PageState {
  document: ByteResponse;
  documentServed: boolean;
  inflight: number;
  lastActivity: number;
  bytes: number;
  blocked: string[];
  signal: AbortSignal;
}

export class PageRenderer {
  private readonly client: ByteClient;

  constructor(private readonly options: RendererOptions) {
    this.client = new ByteClient({ ...options.network, maxBytes: 5 * 1024 * 1024 });
  }

  /** Closes the guarded client; the pool is closed by its owner. */
  async close(): Promise<void> {
    await this.client.close();
  }

  /** "20 s": the budget as messages state it. */
  get budgetLabel(): string {
    return `${Number((this.options.timeoutMs / 1000).toFixed(2))} s`;
  }

  /**
   * Renders `url`. Throws FetchError for the document's own fetch failures (blocked, DNS, HTTP status, timeouts),
   * as an http fetch would, and PageError when the page does not render within its budget or crashes.
   */
  async render(url: string): Promise<RenderedPage> {
    const lease = await this.options.pool.acquire({
      serviceWorkers: "block",
      userAgent: RENDER_USER_AGENT,
      viewport: VIEWPORT,
      acceptDownloads: false,
      locale: "en-US",
      timezoneId: "UTC",
    });
    const started = performance.now();
    const deadline = started + this.options.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    timer.unref();
    const remaining = () => Math.max(0, deadline - performance.now());
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      controller.abort();
      await lease.release();
    };

    try {
      const document = await this.fetchDocument(url, controller.signal);
      const contentType = document.headers["content-type"] ?? null;
      const base = {
        status: document.status,
        headers: document.headers,
        etag: null,
        lastModified: null,
        notModified: false,
        redirects: document.redirects,
      };
      if (!HTML_TYPES.has(mediaType(contentType))) {
        // Not a page a browser lays out (a feed, JSON, an image): read as an http fetch reads it.
        await close();
        return {
          result: {
            ...base,
            url: document.url,
            contentType,
            body: decodeText(document.body, contentType),
            bytes: document.body.length,
            elapsedMs: Math.round(performance.now() - started),
          },
          rendered: false,
          blocked: [],
          screenshot: async () => null,
          close: async () => {},
        };
      }

      const state: PageState = {
        document,
        documentServed: false,
        inflight: 0,
        lastActivity: performance.now(),
        bytes: document.body.length,
        blocked: [],
        signal: controller.signal,
      };
      const page = await this.openPage(lease, state);
      const html = await this.load(page, state, remaining);
      const finalUrl = /^https?:/i.test(page.url()) ? page.url() : document.url;
      return {
        result: {
          ...base,
          url: finalUrl,
          contentType: "text/html; charset=utf-8",
          body: html,
          bytes: Buffer.byteLength(html),
          elapsedMs: Math.round(performance.now() - started),
        },
        rendered: true,
        blocked: state.blocked,
        screenshot: (target) => (closed ? Promise.resolve(null) : takeScreenshot(page, target)),
        close: () => close(),
      };
    } catch (error) {
      // A page that would not close retires its browser (src/detection/fetch/browser.ts); one that failed and closed does not.
      await close();
      if (error instanceof FetchError && controller.signal.aborted && error.kind === "timeout") {
        throw new FetchError("timeout", `timed out after ${this.budgetLabel}`, { cause: error });
      }
      throw error;
    }
  }

  /** The document itself, through the guard, redirects followed: its status and type decide what happens next. */
  private async fetchDocument(url: string, signal: AbortSignal): Promise<ByteResponse> {
    const document = await this.client.request(url, {
      method: "GET",
      headers: { accept: DEFAULT_PAGE_ACCEPT, "user-agent": RENDER_USER_AGENT, "accept-language": "en-US,en;q=0.9" },
      followRedirects: true,
      signal,
    });
    if (document.status < 200 || document.status > 299) {
      throw new FetchError("http", `HTTP ${document.status} from ${hostLabel(new URL(document.url))}`, {
        status: document.status,
      });
    }
    return document;
  }

  private async openPage(lease: Lease, state: PageState): Promise<Page> {
    const { context } = lease;
    await context.route("**/*", (route) => this.serve(route, state));
    // Websockets never open: interception answers them here, and the refusing proxy stands behind it.
    await context.routeWebSocket(/.*/, (socket) => socket.close({ code: 1008, reason: "not allowed" }));
    await context.addInitScript(NO_WEBRTC);
    return context.newPage();
  }

  /**
   * Loads the document until `load` (every resource it needs), lets its data requests settle, and returns the DOM as
   * HTML; a PageError past the budget or when the page crashes.
   */
  private async load(page: Page, state: PageState, remaining: () => number): Promise<string> {
    let crashed = false;
    const crash = new Promise<never>((_, reject) =>
      page.once("crash", () => {
        crashed = true;
        reject(new PageError("the page crashed the browser while rendering (it may have run out of memory)"));
      }),
    );
    crash.catch(() => undefined);
    const overBudget = () =>
      new PageError(
        `page did not finish rendering within ${this.budgetLabel} (a script that never ends or a resource that never arrives)`,
      );
    try {
      await Promise.race([
        page.goto(state.document.url, { waitUntil: "load", timeout: Math.max(1, remaining()) }),
        crash,
      ]);
    } catch (error) {
      if (crashed || error instanceof PageError) throw error;
      if ((error as Error).name === "TimeoutError") throw overBudget();
      throw new PageError(`the page could not be loaded in the browser: ${firstLine(error)}`);
    }
    await Promise.race([settle(state, remaining), crash]);
    const read = () =>
      Promise.race([
        page.content(),
        crash,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(1, remaining())).unref()),
      ]);
    let content: string | null;
    try {
      content = await read();
    } catch (error) {
      if (crashed || error instanceof PageError) throw error;
      // Its scripts sent the page elsewhere while it was being read: read it again once the new page has loaded.
      try {
        await page.waitForLoadState("load", { timeout: Math.max(1, remaining()) });
        content = await read();
      } catch (again) {
        if (crashed || again instanceof PageError) throw again;
        if ((again as Error).name === "TimeoutError") throw overBudget();
        throw new PageError(`the page could not be read in the browser: ${firstLine(again)}`);
      }
    }
    if (content === null) throw overBudget();
    // Sent elsewhere by its scripts to an address that was refused or failed, the page shows the browser's own error
    // page, which is not the competitor's content.
    if (!/^https?:/i.test(page.url())) {
      throw new PageError("the page navigated to an address that could not be loaded (refused or unreachable)");
    }
    return content;
  }

  /** Answers one request of the page: through the guarded client, or refused. */
  private async serve(route: Route, state: PageState): Promise<void> {
    const request = route.request();
    const url = request.url();
    const fail = (reason: "blockedbyclient" | "failed" | "timedout" | "aborted") =>
      route.abort(reason).catch(() => undefined);
    if (state.signal.aborted) return fail("aborted");
    if (!/^https?:\/\//i.test(url) || !LOADED_TYPES.has(request.resourceType()) || !METHODS.has(request.method())) {
      return fail("blockedbyclient");
    }
    if (!state.documentServed && request.isNavigationRequest() && url === withoutHash(state.document.url)) {
      // The document was fetched before the page opened (its status and type decided to render it): served once.
      state.documentServed = true;
      return route
        .fulfill({ status: state.document.status, headers: pageHeaders(state.document), body: state.document.body })
        .catch(() => undefined);
    }
    const left = PAGE_BYTES - state.bytes;
    if (left <= 0) return fail("blockedbyclient");
    state.inflight += 1;
    state.lastActivity = performance.now();
    try {
      const response = await this.client.request(url, {
        method: request.method(),
        headers: await request.allHeaders(),
        body: request.postDataBuffer(),
        followRedirects: true,
        signal: state.signal,
        maxBytes: Math.min(5 * 1024 * 1024, left),
      });
      state.bytes += response.body.length;
      await route.fulfill({ status: response.status, headers: pageHeaders(response), body: response.body });
    } catch (error) {
      if (error instanceof FetchError && error.kind === "blocked") state.blocked.push(url);
      await fail(
        error instanceof FetchError
          ? error.kind === "blocked"
            ? "blockedbyclient"
            : error.kind === "timeout"
              ? "timedout"
              : "failed"
          : "failed",
      );
    } finally {
      state.inflight -= 1;
      state.lastActivity = performance.now();
    }
  }
}

/** Waits until no request of the page has been in flight for QUIET_MS, SETTLE_MS at most (within the budget). */
async function settle(state: PageState, remaining: () => number): Promise<void> {
  const until = performance.now() + Math.min(SETTLE_MS, remaining());
  while (performance.now() < until) {
    if (state.inflight === 0 && performance.now() - state.lastActivity >= QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A URL without its fragment, as the browser requests it. */
function withoutHash(url: string): string {
  const hash = url.indexOf("#");
  return hash < 0 ? url : url.slice(0, hash);
}

/** The response's headers as handed to the page: without those of the transfer the client decoded. */
function pageHeaders(response: ByteResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (!TRANSFER_HEADERS.has(name)) headers[name] = value;
  }
  return headers;
}

/**
 * The target's region, padded and cut to at most the viewport's width and MAX_SHOT_HEIGHT, or the top of the page
 * when the target has no anchor or it is not found. Null when the page cannot be shot within SCREENSHOT_MS; rejects
 * when the page fails to be shot (its caller logs why and goes on without the screenshot).
 */
async function takeScreenshot(page: Page, target: ScreenshotTarget): Promise<Screenshot | null> {
  const attempt = async (): Promise<Screenshot> => {
    const size = (await page.evaluate(
      "({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })",
    )) as { width: number; height: number };
    const region = target.anchor
      ? ((await page.evaluate(
          `${LOCATE_SCRIPT}(${JSON.stringify(target.anchor)}, ${JSON.stringify(target.hint)})`,
        )) as Region | null)
      : null;
    const pageWidth = Math.max(1, Math.min(size.width, VIEWPORT.width * 2));
    const pageHeight = Math.max(1, size.height);
    const clip = region
      ? {
          x: Math.max(0, region.x - SHOT_PADDING),
          y: Math.max(0, region.y - SHOT_PADDING),
          width: Math.min(region.width + 2 * SHOT_PADDING, VIEWPORT.width),
          height: Math.min(region.height + 2 * SHOT_PADDING, MAX_SHOT_HEIGHT),
        }
      : { x: 0, y: 0, width: Math.min(pageWidth, VIEWPORT.width), height: Math.min(pageHeight, VIEWPORT.height) };
    clip.width = Math.max(1, Math.min(clip.width, pageWidth - clip.x));
    clip.height = Math.max(1, Math.min(clip.height, pageHeight - clip.y));
    const png = await page.screenshot({
      type: "png",
      fullPage: true,
      clip,
      animations: "disabled",
      caret: "hide",
      timeout: SCREENSHOT_MS,
    });
    return { png, region, width: Math.round(clip.width), height: Math.round(clip.height) };
  };
  const shooting = attempt();
  // Once the time is up nobody waits for the shot: a failure after that has no one to tell.
  shooting.catch(() => {});
  return Promise.race([
    shooting,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), SCREENSHOT_MS).unref()),
  ]);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
}
