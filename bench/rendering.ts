/**
 * Scenario 7: rendering of `browser` sources (src/detection/fetch/render.ts). Fixture pages on 127.0.0.1 are rendered in
 * the service's own renderer and browser pool, the SSRF guard on (the site's name is exempt, as in the tests): the
 * client-rendered pricing page of test/fixtures/js-pricing (its script fetches the plans and draws them) and two
 * server-rendered fixtures, one page at a time and then two at a time (the pool's limit), with the screenshot of a
 * plan card. The figures: milliseconds per page (median, p95, max), the browser's cold start, the same page over
 * http for comparison, and the browser's resident memory while it renders. It needs no database:
 * `npm run bench -- rendering` starts none.
 */
import { readdirSync, readFileSync } from "node:fs";
import { BrowserPool, PAGES_AT_ONCE } from "../src/detection/fetch/browser.js";
import { PageRenderer } from "../src/detection/fetch/render.js";
import { createHttpClient } from "../src/lib/http-client.js";
import { FixtureSite } from "../test/fakes/fixture-site.js";
import { serveJsPricing } from "../test/fakes/js-pricing-site.js";
import { fixed } from "./report.js";
import { forEachConcurrent, median, progress } from "./util.js";

const ROUNDS = 20;

export interface RenderingSample {
  page: string;
  ms: number;
}

export interface RenderingResult {
  /** First page: launching the browser included. */
  coldMs: number;
  /** One page at a time, each fixture ROUNDS times. */
  sequential: RenderingSample[];
  /** PAGES_AT_ONCE at a time: wall time per page. */
  concurrentMsPerPage: number;
  /** A plan card's screenshot, on an open page. */
  screenshotMs: number[];
  /** The client-rendered page over http (what a `http` source costs), for comparison. */
  httpMs: number[];
  /** Largest memory (PSS) of the browser's processes seen while pages rendered (MB), null without /proc. */
  peakRssMb: number | null;
}

export async function measureRendering(): Promise<RenderingResult> {
  const site = await new FixtureSite().start();
  const port = new URL(site.baseUrl).port;
  const js = serveJsPricing(site, "/spa", 1);
  site.serveFixture("/static/pricing", "pricing-v1.html").serveFixture("/static/careers", "careers-v1.html");
  const pages = [js, "/static/pricing", "/static/careers"];
  const url = (page: string) => `http://site.test:${port}${page}`;
  const lookup = async () => [{ address: "127.0.0.1", family: 4 as const }];
  const pool = new BrowserPool({ executablePath: process.env.CHROMIUM_PATH || null, heapMb: 256 });
  const renderer = new PageRenderer({
    pool,
    network: { allowPrivateTargets: false, allowHosts: ["site.test"], lookup },
    timeoutMs: 20_000,
  });
  const http = createHttpClient({ allowPrivateTargets: false, allowHosts: ["site.test"], lookup });
  try {
    progress("rendering: first page (browser launch included)");
    let started = performance.now();
    await (await renderer.render(url(js))).close();
    const coldMs = performance.now() - started;

    progress(`rendering: ${pages.length} fixture pages × ${ROUNDS}, one at a time`);
    const sequential: RenderingSample[] = [];
    const screenshotMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const page of pages) {
        started = performance.now();
        const rendered = await renderer.render(url(page));
        sequential.push({ page, ms: performance.now() - started });
        if (page === js) {
          const shotStarted = performance.now();
          const shot = await rendered.screenshot({ anchor: "Pro", hint: "49" });
          if (!shot?.region) throw new Error("the Pro card was not found on the rendered page");
          screenshotMs.push(performance.now() - shotStarted);
        }
        await rendered.close();
      }
    }

    progress(`rendering: the same pages, ${PAGES_AT_ONCE} at a time`);
    const batch = Array.from({ length: ROUNDS }, () => pages).flat();
    let peakRssMb: number | null = null;
    started = performance.now();
    await forEachConcurrent(batch, PAGES_AT_ONCE, async (page, index) => {
      const rendered = await renderer.render(url(page));
      // Sampled with pages open (every tenth, /proc is read whole): the browser at work, not idle.
      if (index % 10 === 0) {
        const rss = descendantRssMb(process.pid);
        if (rss !== null) peakRssMb = Math.max(peakRssMb ?? 0, rss);
      }
      await rendered.close();
    });
    const concurrentMsPerPage = (performance.now() - started) / batch.length;

    const httpMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      started = performance.now();
      await http.fetchPage(url(js));
      httpMs.push(performance.now() - started);
    }
    return { coldMs, sequential, concurrentMsPerPage, screenshotMs, httpMs, peakRssMb };
  } finally {
    await renderer.close();
    await pool.close();
    await http.close();
    await site.stop();
  }
}

/** Memory (PSS) of every process descending from `pid` (the browser and its renderers), in MB. */
function descendantRssMb(pid: number): number | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  const parentOf = new Map<number, number>();
  const rssOf = new Map<number, number>();
  for (const entry of entries) {
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      parentOf.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      // Proportional set size: memory shared between the browser's processes is counted once, not once each.
      const rollup = readFileSync(`/proc/${entry}/smaps_rollup`, "utf8");
      rssOf.set(Number(entry), Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0));
    } catch {
      // The process ended while being read.
    }
  }
  let total = 0;
  for (const [child] of parentOf) {
    for (let at = parentOf.get(child); at !== undefined && at !== 0; at = parentOf.get(at)) {
      if (at === pid) {
        total += rssOf.get(child) ?? 0;
        break;
      }
    }
  }
  return total / 1024;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** The summary rows: per page and overall. */
export function renderingRows(result: RenderingResult) {
  const byPage = new Map<string, number[]>();
  for (const sample of result.sequential) byPage.set(sample.page, [...(byPage.get(sample.page) ?? []), sample.ms]);
  const all = result.sequential.map((s) => s.ms);
  const line = (values: number[]) =>
    `median ${fixed(median(values))} ms, p95 ${fixed(percentile(values, 95))} ms, max ${fixed(Math.max(...values))} ms`;
  return [
    {
      measurement: `rendering, ms per page, one at a time (${all.length} renders of ${byPage.size} pages)`,
      value: line(all),
      target: "",
      met: null,
    },
    ...[...byPage].map(([page, values]) => ({
      measurement: `  ${page === "/spa/pricing" ? "client-rendered pricing page (script + API call)" : page}`,
      value: line(values),
      target: "",
      met: null,
    })),
    {
      measurement: `  ${PAGES_AT_ONCE} pages at a time, wall time per page`,
      value: `${fixed(result.concurrentMsPerPage)} ms`,
      target: "",
      met: null,
    },
    {
      measurement: "  first page, browser launch included",
      value: `${fixed(result.coldMs)} ms`,
      target: "",
      met: null,
    },
    {
      measurement: "  screenshot of a plan card",
      value: `median ${fixed(median(result.screenshotMs))} ms`,
      target: "",
      met: null,
    },
    {
      measurement: "  the same pricing page over http (no rendering)",
      value: `median ${fixed(median(result.httpMs), 1)} ms`,
      target: "",
      met: null,
    },
    {
      measurement: `  browser's memory (PSS) with ${PAGES_AT_ONCE} pages open, all its processes, largest sample`,
      value: result.peakRssMb === null ? "n/a" : `${fixed(result.peakRssMb)} MB`,
      target: "",
      met: null,
    },
  ];
}
