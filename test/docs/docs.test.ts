/**
 * `/openapi.json` serves the contract and `/docs` an interactive reference built from local assets only, tried in a
 * real headless Chromium (the one npm installs, see test/setup/browser.ts).
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractOperations, openApiDocument } from "../../src/contract.js";
import { launchBrowser } from "../setup/browser.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

describe("GET /openapi.json", () => {
  it("serves the contract with this deployment as its server", async () => {
    const res = await app.http.get("/openapi.json").expect(200);
    expect(res.body.openapi).toMatch(/^3\.0\./);
    expect(Object.keys(res.body.paths)).toEqual(Object.keys(openApiDocument().paths ?? {}));
    expect(res.body.servers).toEqual([{ url: app.config.publicBaseUrl, description: "This deployment" }]);
  });
});

describe("GET /docs", () => {
  it("serves an HTML page whose scripts and styles are all local", async () => {
    const res = await app.http.get("/docs").expect(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    const references = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) {
      expect(reference.startsWith("/docs/assets/"), reference).toBe(true);
      const asset = await app.unchecked.get(reference).expect(200);
      expect(Number(asset.headers["content-length"] ?? asset.body.length)).toBeGreaterThan(1000);
    }
  });

  it("renders every operation in a real headless browser without reaching the network", async () => {
    const server = app.service.app!.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const offsite: string[] = [];
      page.on("request", (request) => {
        if (!request.url().startsWith(base) && !request.url().startsWith("data:")) offsite.push(request.url());
      });
      await page.goto(`${base}/docs`);
      await page.waitForSelector(".opblock", { timeout: 60_000 });
      const operationCount = await page.locator(".opblock").count();
      const expected = contractOperations().length;
      expect(operationCount).toBe(expected);
      expect(await page.locator(".info .title").innerText()).toContain("Rivalscope API");
      expect(offsite).toEqual([]);
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 120_000);
});
