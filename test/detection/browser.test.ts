/**
 * Pages that need a browser (docs/product-rules.md#rendered-pages, #javascript-shells): a client-rendered pricing
 * page on 127.0.0.1 (test/fixtures/js-pricing) fails an `http` fetch with the shell message and is read once
 * rendered; its change becomes a pricing event with a screenshot; discovery proposes `browser` for it. The renderer
 * holds the SSRF rule for every request a page makes (the target server never sees a connection) and its time
 * budget; the pool shares one browser, at most two pages at a time.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrowserPool, PAGES_AT_ONCE, RELAUNCH_AFTER_PAGES } from "../../src/detection/fetch/browser.js";
import { PageError } from "../../src/detection/fetch/page-text.js";
import { PageRenderer } from "../../src/detection/fetch/render.js";
import { FetchError } from "../../src/lib/http-client.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { serveJsPricing } from "../fakes/js-pricing-site.js";
import { CHROMIUM_PATH, chromiumEnv } from "../setup/browser.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

/** A server counting every TCP connection it accepts: "never received" means not even a connection. */
async function countingServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => res.end("secret"));
  server.on("connection", () => (connections += 1));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** Resolver double: the names listed resolve to 127.0.0.1 (src/lib/ssrf-guard.ts's Resolver). */
const fakeDns = (names: string[]) => async (hostname: string) => {
  if (!names.includes(hostname)) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return [{ address: "127.0.0.1", family: 4 as const }];
};

describe("the renderer", () => {
  let site: FixtureSite;
  let secret: Awaited<ReturnType<typeof countingServer>>;
  let pool: BrowserPool;
  let guarded: PageRenderer;
  let open: PageRenderer;
  beforeAll(async () => {
    [site, secret] = await Promise.all([new FixtureSite().start(), countingServer()]);
    pool = new BrowserPool({ executablePath: CHROMIUM_PATH, heapMb: 128 });
    // The guard on, as in production; `site.test` stands for the public site (it resolves to 127.0.0.1 and is
    // exempt, as test/lib/http-client.test.ts does), `internal.test` for a name that resolves to a private address.
    guarded = new PageRenderer({
      pool,
      network: {
        allowPrivateTargets: false,
        allowHosts: ["site.test"],
        lookup: fakeDns(["site.test", "internal.test"]),
      },
      timeoutMs: 10_000,
    });
    open = new PageRenderer({ pool, network: { allowPrivateTargets: true }, timeoutMs: 3_000 });
  });
  afterAll(async () => {
    await Promise.all([guarded?.close(), open?.close()]);
    await pool?.close();
    await site?.stop();
    secret?.server.closeAllConnections();
    secret?.server.close();
  });

  it("blocks every request of the page to a private address, so the target never sees a connection", async () => {
    const q = secret.port;
    site
      .set("/api/ok", { body: "allowed: public API answered", contentType: "text/plain" })
      .set("/go-private", { redirect: `http://127.0.0.1:${q}/secret/redirected` })
      .set(
        "/leaky",
        `<!doctype html><title>Leaky</title><h1>Prices</h1><div id="out">waiting</div>
        <img src="http://127.0.0.1:${q}/secret/img">
        <iframe src="http://internal.test:${q}/secret/frame"></iframe>
        <link rel="stylesheet" href="http://[::ffff:127.0.0.1]:${q}/secret/style.css">
        <script>
          fetch("/api/ok").then(function (r) { return r.text(); })
            .then(function (t) { document.getElementById("out").textContent = t; });
          fetch("http://127.0.0.1:${q}/secret/fetch").catch(function () {});
          fetch("http://internal.test:${q}/secret/named").catch(function () {});
          fetch("/go-private").catch(function () {});
          fetch("http://169.254.169.254/latest/meta-data/").catch(function () {});
          try { new WebSocket("ws://127.0.0.1:${q}/secret/ws"); } catch (e) {}
          try { new EventSource("http://127.0.0.1:${q}/secret/events"); } catch (e) {}
          navigator.sendBeacon && navigator.sendBeacon("http://127.0.0.1:${q}/secret/beacon", "x");
          var hint = document.createElement("link"); hint.rel = "preconnect"; hint.href = "http://127.0.0.1:${q}";
          document.head.appendChild(hint);
        </script>`,
      );
    const page = await guarded.render(`http://site.test:${new URL(site.baseUrl).port}/leaky`);
    try {
      // The page ran and what the guard allows reached it: the test could fail.
      expect(page.result.body).toContain("allowed: public API answered");
      expect(page.blocked).toEqual(
        expect.arrayContaining([
          `http://127.0.0.1:${q}/secret/img`,
          `http://internal.test:${q}/secret/frame`,
          `http://127.0.0.1:${q}/secret/fetch`,
          `http://internal.test:${q}/secret/named`,
          `http://site.test:${new URL(site.baseUrl).port}/go-private`,
          "http://169.254.169.254/latest/meta-data/",
        ]),
      );
    } finally {
      await page.close();
    }
    // Whatever escaped interception (the websocket, the preconnect) met the refusing proxy, not the target.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secret.connections()).toBe(0);
  });

  it("refuses a private document itself, before any browser work, as an http fetch would", async () => {
    const error = await guarded.render(`http://127.0.0.1:${secret.port}/secret/doc`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as FetchError).message).toBe("blocked: 127.0.0.1 is a private address");
    expect(secret.connections()).toBe(0);
  });

  it.each([
    ["a script that never ends", "<h1>Pricing</h1><script>while (true) {}</script>", {}],
    ["a script that never arrives", '<h1>Pricing</h1><script src="never.js"></script>', {}],
    [
      "a loop started after load",
      "<h1>Pricing</h1><script>setTimeout(function () { while (true) {} }, 0)</script>",
      {},
    ],
  ])("fails %s within the budget, with a message that says so", async (_name, body) => {
    const dir = `/budget-${Math.random().toString(36).slice(2)}`;
    site.set(`${dir}/page`, body).set(`${dir}/never.js`, { body: "", delayMs: 30_000 });
    const started = performance.now();
    const error = await open.render(site.url(`${dir}/page`)).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(PageError);
    expect((error as Error).message).toBe(
      "page did not finish rendering within 3 s (a script that never ends or a resource that never arrives)",
    );
    // The budget plus the time to close the page, with room for a slow CI machine; still well short of never.js's
    // 30 s and of a loop that never ends, so a budget that is not enforced fails here.
    expect(elapsed).toBeLessThan(3_000 + 17_000);
  });

  it("fails a page whose script sends it to a refused address, rather than reading the browser's error page", async () => {
    site.set(
      "/away",
      `<h1>Pricing</h1><script>location.href = "http://127.0.0.1:${secret.port}/secret/away";</script>`,
    );
    const error = await guarded.render(`http://site.test:${new URL(site.baseUrl).port}/away`).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "the page navigated to an address that could not be loaded (refused or unreachable)",
    );
    expect(secret.connections()).toBe(0);
  });

  it("fails a page that runs out of memory (the heap cap), and the next page renders", async () => {
    site
      .set(
        "/greedy",
        "<h1>Pricing</h1><script>var a = []; while (true) a.push(new Array(1e6).fill(Math.random()));</script>",
      )
      .set("/after-greedy", "<h1>Still rendering</h1>");
    const error = await open.render(site.url("/greedy")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PageError);
    expect((error as Error).message).toBe(
      "the page crashed the browser while rendering (it may have run out of memory)",
    );
    const next = await open.render(site.url("/after-greedy"));
    expect(next.result.body).toContain("Still rendering");
    await next.close();
  });

  it("renders the client-drawn plans and screenshots the changed card as a PNG", async () => {
    const page = await open.render(site.url(serveJsPricing(site, "/render")));
    try {
      expect(page.rendered).toBe(true);
      expect(page.result.body).toMatch(/<h3 class="plan-card__name">Pro<\/h3>/);
      expect(page.result.body).toContain("$49");
      const shot = await page.screenshot({ anchor: "Pro", hint: "49" });
      expect(shot?.png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(shot?.region?.text).toMatch(/^Pro For teams shipping every week\. \$49 ?\/month/);
      // A card, not the page: narrower than the viewport.
      expect(shot!.width).toBeLessThan(400);
      const top = await page.screenshot({ anchor: null, hint: null });
      expect(top).toMatchObject({ region: null, width: 1280 });
    } finally {
      await page.close();
    }
  });
});

describe("the browser pool", () => {
  /** A stand-in browser: contexts that close, a `disconnected` event, and a count of what happened. */
  function fakeLauncher() {
    const launched: { browser: Browser; contexts: number; closed: boolean; emit: (event: string) => void }[] = [];
    const launch = async () => {
      const listeners = new Map<string, (() => void)[]>();
      const record = { browser: null as unknown as Browser, contexts: 0, closed: false, emit: (_: string) => {} };
      record.emit = (event) => (listeners.get(event) ?? []).forEach((listener) => listener());
      record.browser = {
        on: (event: string, listener: () => void) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        newContext: async () => {
          record.contexts += 1;
          return { close: async () => {} };
        },
        close: async () => {
          record.closed = true;
        },
      } as unknown as Browser;
      launched.push(record);
      return record.browser;
    };
    return { launched, launch };
  }

  it(`gives at most ${PAGES_AT_ONCE} pages at a time, the next one when a page is released`, async () => {
    const { launched, launch } = fakeLauncher();
    const pool = new BrowserPool({ heapMb: 64, launch });
    const first = await pool.acquire({});
    const second = await pool.acquire({});
    let thirdGiven = false;
    const third = pool.acquire({}).then((lease) => {
      thirdGiven = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(thirdGiven).toBe(false);
    await first.release();
    await (await third).release();
    expect(thirdGiven).toBe(true);
    await second.release();
    expect(launched).toHaveLength(1); // one browser shared
    await pool.close();
    expect(launched[0]!.closed).toBe(true);
  });

  it("relaunches after a crash, after a page that would not close, and after many pages", async () => {
    const { launched, launch } = fakeLauncher();
    const pool = new BrowserPool({ heapMb: 64, launch });
    await (await pool.acquire({})).release();
    launched[0]!.emit("disconnected");
    await (await pool.acquire({})).release();
    expect(launched).toHaveLength(2);
    await (await pool.acquire({})).release(true);
    expect(launched[1]!.closed).toBe(true);
    // The third browser serves RELAUNCH_AFTER_PAGES pages; the next page gets a fourth.
    for (let i = 0; i < RELAUNCH_AFTER_PAGES; i++) await (await pool.acquire({})).release();
    expect(launched).toHaveLength(3);
    await (await pool.acquire({})).release();
    expect(launched).toHaveLength(4);
    expect(launched[2]!.closed).toBe(true);
    await pool.close();
  });
});

describe("browser sources in the pipeline", () => {
  let app: TestApp;
  let site: FixtureSite;
  beforeAll(async () => {
    [app, site] = await Promise.all([
      startTestApp({ BROWSER_TIMEOUT_MS: "10000", ...chromiumEnv() }),
      new FixtureSite().start(),
    ]);
  });
  afterAll(async () => {
    await app?.stop();
    await site?.stop();
  });

  let counter = 0;
  async function track(fetchMethod: "http" | "browser", prefix = `/c${++counter}`) {
    const member = await createWorkspace(app, { plan: "growth" });
    const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
    const page = serveJsPricing(site, prefix, 1);
    const res = await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ source_type: "pricing", url: site.url(page), fetch_method: fetchMethod })
      .expect(201);
    return { member, competitorId: competitor.id, sourceId: res.body.id as string, prefix };
  }
  const knex = () => app.service.services.knex;
  const fetchNow = (sourceId: string) => app.service.pipeline.fetchSource(sourceId);
  const events = async (member: TestMember) =>
    (await app.http.get("/events").set("Authorization", member.bearer).expect(200)).body as {
      id: string;
      title: string;
      event_type: string;
    }[];

  it("fails an http fetch of the shell, saying so and suggesting browser, with no snapshot or event", async () => {
    const t = await track("http");
    const outcome = await fetchNow(t.sourceId);
    const message =
      'the page is a JavaScript app shell (its only message asks for JavaScript ("You need to enable JavaScript to ' +
      'run this app."); 0 characters of text): its content is drawn by scripts, which an http fetch does not run; ' +
      'set fetch_method to "browser" to render it';
    expect(outcome).toEqual({ kind: "failed", message, retryable: false });
    const source = await app.http.get(`/competitors/${t.competitorId}/sources`).set("Authorization", t.member.bearer);
    expect(source.body[0]).toMatchObject({ fetch_method: "http", error_message: message });
    expect(await knex()("snapshots").where({ source_id: t.sourceId })).toEqual([]);
  });

  it("reads the rendered plans once the source is switched to browser, and reports a price rise with a screenshot", async () => {
    const t = await track("http");
    await fetchNow(t.sourceId);
    await app.http
      .patch(`/sources/${t.sourceId}`)
      .set("Authorization", t.member.bearer)
      .send({ fetch_method: "browser" })
      .expect(200);

    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "changed", events: 0 });
    const [snapshot] = await knex()("snapshots").where({ source_id: t.sourceId });
    const plans = snapshot.extraction.pricing.map((p: { name: string; amount: number }) => [p.name, p.amount]);
    expect(plans).toEqual(
      expect.arrayContaining([
        ["Free", 0],
        ["Pro", 49],
        ["Business", 99],
      ]),
    );
    expect(
      (await app.http.get(`/competitors/${t.competitorId}/sources`).set("Authorization", t.member.bearer)).body[0],
    ).toMatchObject({ fetch_method: "browser", error_message: null });

    serveJsPricing(site, t.prefix, 2);
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "changed" });
    const raise = (await events(t.member)).find((e) => e.title === "Acme raised Pro from $49 to $59/month");
    expect(raise, JSON.stringify(await events(t.member))).toMatchObject({ event_type: "pricing_change" });
    const detail = await app.http.get(`/events/${raise!.id}`).set("Authorization", t.member.bearer).expect(200);
    // The classification's evidence first (the before/after prices), the screenshot last.
    expect(detail.body.evidence.map((e: { evidence_type: string }) => e.evidence_type)).toEqual([
      "before_after",
      "screenshot",
    ]);
    const screenshot = detail.body.evidence.at(-1);
    expect(screenshot).toMatchObject({
      title: "Screenshot of the changed region",
      source_url: site.url(`${t.prefix}/pricing`),
      metadata_json: { content_type: "image/png", region_found: true, page_url: site.url(`${t.prefix}/pricing`) },
    });
    expect(screenshot.excerpt).toMatch(/^Pro For teams shipping every week\. \$59/);
    expect(screenshot.asset_object_key).toMatch(
      new RegExp(`^screenshots/${t.member.workspaceId}/${t.sourceId}/[0-9a-f-]{36}\\.png$`),
    );
    const file = path.join(app.config.dataDir, "assets", ...screenshot.asset_object_key.split("/"));
    expect(readFileSync(file).subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  });

  it("starts a new baseline when a source switches to browser: what rendering adds is not a change", async () => {
    const t = await track("http");
    // Served as HTML with two plans; its script adds a third, which only a rendered read sees.
    const card = (name: string, price: number) =>
      `<div class="plan-card"><h3 class="plan-card__name">${name}</h3><div class="plan-card__price">` +
      `<span class="price-amount">$${price}</span><span class="price-period">/month</span></div>` +
      `<ul class="plan-card__features"><li>${name} support</li></ul></div>`;
    site.set(
      `${t.prefix}/pricing`,
      `<title>Pricing</title><main><h1>Plans for every team</h1><p>Pick the plan that fits your team today.</p>` +
        `<div class="plan-grid">${card("Starter", 19)}${card("Team", 49)}</div></main>` +
        `<script>document.querySelector(".plan-grid").insertAdjacentHTML("beforeend", ${JSON.stringify(card("Scale", 99))});</script>`,
    );
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "changed", events: 0 });
    await app.http
      .patch(`/sources/${t.sourceId}`)
      .set("Authorization", t.member.bearer)
      .send({ fetch_method: "browser" })
      .expect(200);
    expect(await fetchNow(t.sourceId)).toMatchObject({ kind: "changed", events: 0 });
    const snapshots = await knex()("snapshots").where({ source_id: t.sourceId }).orderBy("fetched_at");
    expect(snapshots.map((row) => row.extraction.pricing.length)).toEqual([2, 3]);
    expect(await knex()("diffs").where({ source_id: t.sourceId })).toEqual([]);
    expect(await events(t.member)).toEqual([]);
  });

  it("fails a browser source whose scripts draw nothing, saying it stayed empty", async () => {
    const t = await track("browser");
    site.set(`${t.prefix}/assets/app.js`, { status: 404, body: "not found" });
    const outcome = await fetchNow(t.sourceId);
    expect(outcome).toMatchObject({ kind: "failed", retryable: false });
    expect((outcome as { message: string }).message).toBe(
      'the page still showed no content after rendering (its only message asks for JavaScript ("You need to enable ' +
        'JavaScript to run this app."); 0 characters of text): its scripts did not draw it within 10 s',
    );
  });

  it("has discovery track a shell with browser, and profile propose it so", async () => {
    const member = await createWorkspace(app, { plan: "starter" });
    const competitor = await createCompetitor(app, member, { name: "Acme", domain: "acme.test" });
    serveJsPricing(site, "/disco", 1);
    site.set(
      "/disco/home",
      '<title>Acme</title><nav><a href="/disco/pricing">Pricing</a> <a href="/disco/careers">Careers</a></nav><h1>Acme</h1>',
    );
    site.set("/disco/careers", "<title>Careers</title><h1>Open roles</h1><p>Engineers, designers.</p>");
    await app.http
      .post(`/competitors/${competitor.id}/sources`)
      .set("Authorization", member.bearer)
      .send({ source_type: "homepage", url: site.url("/disco/home") })
      .expect(201);

    const profile = await app.http
      .post(`/competitors/${competitor.id}/profile`)
      .set("Authorization", member.bearer)
      .expect(200);
    const proposals = profile.body.recommendations
      .filter((r: { type: string }) => r.type === "track_source")
      .map((r: Record<string, string>) => [r.source_type, r.fetch_method]);
    expect(proposals).toEqual([
      ["pricing", "browser"],
      ["careers", "http"],
    ]);

    const created = await app.http
      .post(`/competitors/${competitor.id}/discover-sources`)
      .set("Authorization", member.bearer)
      .expect(200);
    expect(created.body.map((s: Record<string, string>) => [s.source_type, s.fetch_method])).toEqual([
      ["pricing", "browser"],
      ["careers", "http"],
    ]);
  });
});
