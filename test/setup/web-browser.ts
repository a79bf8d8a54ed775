/**
 * Driving the web app (/app) in the packaged headless Chromium (browser.ts), the way a person uses it: pages are read
 * by role and accessible name (Testing Library's rule), every API response the app receives goes through the suite's
 * contract check (contract.ts), a Content-Security-Policy violation or a request leaving the service fails the test,
 * and axe-core checks each screen for serious and critical accessibility violations.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { checkResponse } from "./contract.js";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export interface AppPage {
  page: Page;
  context: BrowserContext;
  /** Waits for the responses seen so far to be checked, then asserts no CSP violation and no off-site request. */
  settle(): Promise<void>;
  /** axe-core on the current screen: no serious or critical violation. */
  axe(screen: string): Promise<void>;
  /** With WEB_SCREENSHOTS=1, saves the whole page as docs/screenshots/<name>.png (the README's pictures). */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Paths the app serves as documents (outside the contract); everything else it loads is an API operation. */
const isDocument = (pathname: string) => pathname === "/" || pathname === "/app" || pathname.startsWith("/app/");

export async function openApp(browser: Browser, base: string): Promise<AppPage> {
  // A real browser's locale (the packaged Chromium on a POSIX locale reports `en-US@posix`, which Intl refuses).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
  const page = await context.newPage();
  const problems: string[] = [];
  const checks: Promise<void>[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(base) && !url.startsWith("data:") && !url.startsWith("blob:"))
      problems.push(`off-site: ${url}`);
  });
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (!response.url().startsWith(base) || isDocument(url.pathname)) return;
    checks.push(
      (async () => {
        const headers = await response.allHeaders();
        const isJson = /application\/json/.test(headers["content-type"] ?? "");
        // Chromium drops a body once its page has moved on (a reload, a link followed while the request was in
        // flight): such a response has nothing left to check, where checking it as empty would fail on a good body.
        const text = isJson ? await response.text().catch(() => undefined) : "";
        if (text === undefined) return;
        checkResponse({
          method: response.request().method(),
          path: url.pathname + url.search,
          status: response.status(),
          headers,
          body: isJson && text ? JSON.parse(text) : undefined,
          text: isJson ? text : headers["content-type"] ? "(a body of another type)" : "",
        });
      })().catch((error: Error) => {
        problems.push(error.message);
      }),
    );
  });
  const settle = async () => {
    await Promise.all(checks.splice(0));
    expect(problems).toEqual([]);
  };
  return {
    page,
    context,
    settle,
    async axe(screen: string) {
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: any }).axe;
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return (result.violations as any[])
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(" ")).join(", ")}`);
      });
      expect(violations, `axe on ${screen}`).toEqual([]);
      await settle();
    },
    async shot(name: string) {
      if (process.env.WEB_SCREENSHOTS !== "1") return;
      await page.waitForTimeout(300);
      await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: true });
    },
    async close() {
      await settle();
      await context.close();
    },
  };
}
