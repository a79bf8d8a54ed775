/**
 * The web app's committed build (web/dist, web/vite.config.ts) and how the service serves it: the build is what
 * web/src makes today, the pages carry a strict Content-Security-Policy and no inline script, and the first screen's
 * JavaScript stays within its budget (README: Web app).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEB_DIST } from "../../src/web/serve.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

function files(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(root, full) : [path.relative(root, full)];
  });
}

/** The JavaScript a page loads before it can draw: its module script and the modules it preloads. */
export function firstScreenScripts(html: string): string[] {
  return [...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="\/app\/([^"]+\.js)"/g)].map(
    (m) => m[1]!,
  );
}

describe("the web app's build", () => {
  it("is what npm run build:web makes from web/src (run it after changing web/)", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "rivalscope-web-"));
    // Vite picks React's production build from NODE_ENV, which vitest sets to `test`.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = "production";
    try {
      await build({
        configFile: path.resolve("web/vite.config.ts"),
        logLevel: "silent",
        build: { outDir: out, emptyOutDir: true },
      });
      expect(files(WEB_DIST).sort()).toEqual(files(out).sort());
      for (const file of files(out)) {
        expect(readFileSync(path.join(WEB_DIST, file)).equals(readFileSync(path.join(out, file))), file).toBe(true);
      }
    } finally {
      process.env.NODE_ENV = nodeEnv;
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("keeps the first screen's JavaScript under 200 KB gzipped", () => {
    for (const page of ["index.html", "home.html"]) {
      const scripts = firstScreenScripts(readFileSync(path.join(WEB_DIST, page), "utf8"));
      expect(scripts.length).toBeGreaterThan(0);
      const gzipped = scripts.reduce(
        (sum, s) => sum + gzipSync(readFileSync(path.join(WEB_DIST, s)), { level: 9 }).length,
        0,
      );
      expect(gzipped, page).toBeLessThan(200 * 1024);
    }
  });
});

describe("serving the web app", () => {
  it("serves the dashboard on every path under /app and the home page at /, with a strict CSP and no inline script", async () => {
    for (const url of ["/", "/app", "/app/events", "/app/events/0b6f5c1e-9d7a-4a51-8f0e-3c2b1a0d9e8f"]) {
      const res = await app.unchecked.get(url).expect(200);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      const csp = res.headers["content-security-policy"];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.text).not.toMatch(/\son[a-z]+=/i);
      for (const asset of res.text.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)) {
        const served = await app.unchecked.get(asset[1]!).expect(200);
        expect(served.headers["cache-control"]).toContain("immutable");
      }
    }
  });

  it("answers a missing asset with the JSON 404, not the app's page", async () => {
    const res = await app.http.get("/app/assets/nothing-here.js").expect(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });
});
