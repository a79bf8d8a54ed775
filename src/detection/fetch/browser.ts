/**
 * Headless Chromium for `browser` sources (docs/product-rules.md#rendered-pages): how it is launched, and the small
 * pool that shares one browser per process.
 *
 * The binary is the one shipped inside the npm package `@sparticuz/chromium` (unpacked into the temporary directory
 * on first use, so `npm ci` is all a machine needs), or CHROMIUM_PATH (Debian's `/usr/bin/chromium`, say). Both
 * modules are imported when a browser is first launched: a process that renders nothing loads neither.
 *
 * The pool: at most PAGES_AT_ONCE pages render at a time in a process (each in its own browser context: no cookies,
 * cache or storage shared between pages); one browser serves them all and is relaunched after it crashed, after
 * RELAUNCH_AFTER_PAGES pages (a long-lived browser accumulates memory), or when a page would not close; close() ends
 * it at shutdown.
 */
import { createServer, type Server } from "node:net";
import type { Browser, BrowserContext } from "playwright-core";
import { Slots } from "../../lib/slots.js";

/** Pages rendering at once per process: Chromium is the heaviest thing a worker runs, and the machines have 2 cores. */
export const PAGES_AT_ONCE = 2;
/** Pages one browser renders before it is replaced (once idle). */
export const RELAUNCH_AFTER_PAGES = 100;
/** How long a fetch waits for a free page before it gives up (and its job is retried later). */
export const SLOT_WAIT_MS = 30_000;

/**
 * Flags of every launch. No background traffic of the browser's own (updates, sync, metrics, DNS prefetching,
 * hyperlink-auditing pings, QUIC), no GPU, WebRTC kept off UDP paths that bypass the proxy. `--no-sandbox`: the
 * service runs as root in tests and in containers without user namespaces, where Chromium's sandbox cannot start.
 */
const BASE_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-domain-reliability",
  "--disable-breakpad",
  "--disable-client-side-phishing-detection",
  "--no-pings",
  "--disable-quic",
  "--dns-prefetch-disable",
  "--mute-audio",
  "--hide-scrollbars",
  "--font-render-hinting=none",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-features=MediaRouter,OptimizationHints,Translate,AutofillServerCommunication,NetworkPrediction",
];

export interface LaunchOptions {
  /** CHROMIUM_PATH; null or absent: the binary inside @sparticuz/chromium. */
  executablePath?: string | null;
  /** Extra flags (a proxy, a heap limit). */
  args?: string[];
}

/** The Chromium binary to run: `override`, or the packaged one (unpacked on first use). */
export async function chromiumExecutable(override?: string | null): Promise<string> {
  if (override) return override;
  const packaged = (await import("@sparticuz/chromium")).default;
  return packaged.executablePath();
}

/** Launches a headless Chromium with the flags above plus `options.args`. */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: await chromiumExecutable(options.executablePath),
    args: [...BASE_ARGS, ...(options.args ?? [])],
    // The service stops the browser itself (close()); Playwright's own signal handlers would race it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

export interface BrowserPoolOptions {
  executablePath?: string | null;
  /** V8 heap limit of the page's scripts (--js-flags=--max-old-space-size), in MB. */
  heapMb: number;
  /** Replaces launchChromium (tests count launches). */
  launch?: (options: LaunchOptions) => Promise<Browser>;
}

/** No free page within SLOT_WAIT_MS: the fetch is retried later, and nothing is recorded on the source. */
export class BrowserBusyError extends Error {
  constructor() {
    super(`no free browser page within ${SLOT_WAIT_MS / 1000} s`);
    this.name = "BrowserBusyError";
  }
}

/** A page's place in the pool: its own context, to be released exactly once. */
export interface Lease {
  context: BrowserContext;
  /** Closes the context and frees the place; `broken` replaces the browser (a page that would not close). */
  release(broken?: boolean): Promise<void>;
}

export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private current: Browser | null = null;
  private rendered = 0;
  /** The PAGES_AT_ONCE places pages are rendered in. */
  private readonly slots = new Slots(PAGES_AT_ONCE);
  /** Pages each browser is serving now. */
  private readonly leases = new Map<Browser, number>();
  private closed = false;
  /** Backstop of the network rule (src/detection/fetch/render.ts): a proxy that refuses every connection. */
  private refusing: RefusingProxy | null = null;

  constructor(private readonly options: BrowserPoolOptions) {}

  /** A fresh context on the shared browser, once one of the PAGES_AT_ONCE places is free. */
  async acquire(contextOptions: Parameters<Browser["newContext"]>[0]): Promise<Lease> {
    await this.takeSlot();
    let browser: Browser;
    let context: BrowserContext;
    try {
      browser = await this.browserForNextPage();
      context = await browser.newContext(contextOptions);
    } catch (error) {
      this.freeSlot();
      throw error;
    }
    this.rendered += 1;
    this.leases.set(browser, (this.leases.get(browser) ?? 0) + 1);
    let released = false;
    return {
      context,
      release: async (broken = false) => {
        if (released) return;
        released = true;
        try {
          const closedInTime = await Promise.race([
            context.close().then(
              () => true,
              () => true,
            ),
            new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
          ]);
          // A page that would not close leaves its browser suspect: new pages get a new one.
          if (broken || !closedInTime) this.retire(browser);
          const left = (this.leases.get(browser) ?? 1) - 1;
          if (left > 0) this.leases.set(browser, left);
          else this.leases.delete(browser);
          // A retired browser is closed once no page uses it any more, never under another page's render.
          if (left <= 0 && browser !== this.current) await browser.close().catch(() => undefined);
        } finally {
          this.freeSlot();
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    this.current = null;
    if (browser) await (await browser.catch(() => null))?.close().catch(() => undefined);
    await this.refusing?.close();
    this.refusing = null;
  }

  private async browserForNextPage(): Promise<Browser> {
    if (this.closed) throw new Error("the browser pool is closed");
    // Old enough: new pages go to a new browser, and the old one closes once its last page is released.
    if (this.current && this.rendered >= RELAUNCH_AFTER_PAGES) {
      const old = this.current;
      this.retire(old);
      if (!this.leases.has(old)) await old.close().catch(() => undefined);
    }
    if (!this.browser) {
      this.refusing ??= await RefusingProxy.start();
      const launch = this.options.launch ?? launchChromium;
      const launching = launch({
        executablePath: this.options.executablePath,
        args: [
          // Chromium never reaches the network itself: every request is intercepted and fetched by the guarded
          // client. Anything interception does not see goes to this proxy, which refuses it; `<-loopback>` makes
          // loopback addresses use the proxy too (Chromium bypasses proxies for them by default).
          `--proxy-server=http://127.0.0.1:${this.refusing.port}`,
          "--proxy-bypass-list=<-loopback>",
          `--js-flags=--max-old-space-size=${this.options.heapMb}`,
        ],
      });
      this.browser = launching;
      this.rendered = 0;
      launching.then(
        (browser) => {
          if (this.browser !== launching) return;
          this.current = browser;
          // A crashed or killed browser is relaunched for the next page.
          browser.on("disconnected", () => {
            if (this.browser === launching) {
              this.browser = null;
              this.current = null;
            }
          });
        },
        () => {
          if (this.browser === launching) this.browser = null;
        },
      );
    }
    return this.browser;
  }

  /** New pages go to a new browser; `browser` is closed when its last page is released. */
  private retire(browser: Browser): void {
    if (this.current !== browser) return;
    this.browser = null;
    this.current = null;
  }

  private async takeSlot(): Promise<void> {
    if (!(await this.slots.acquire(SLOT_WAIT_MS))) throw new BrowserBusyError();
  }

  private freeSlot(): void {
    this.slots.release();
  }
}

/** A TCP server on 127.0.0.1 that closes every connection at once: Chromium's proxy, so it reaches nothing. */
class RefusingProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<RefusingProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const address = server.address();
    const proxy = new RefusingProxy(server, typeof address === "object" && address ? address.port : 0);
    server.on("connection", (socket) => {
      socket.on("error", () => {});
      socket.destroy();
    });
    server.unref();
    return proxy;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
