/**
 * The client-rendered pricing page of test/fixtures/js-pricing on a FixtureSite, under a directory of its own (its
 * URLs are relative, so tests sharing one site do not see each other's plans): `<dir>/pricing` is the empty shell,
 * `<dir>/assets/app.js` draws it from `<dir>/api/plans`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FixtureSite } from "./fixture-site.js";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/js-pricing");
const read = (name: string) => readFileSync(path.join(dir, name), "utf8");

/** Serves the page at `<prefix>/pricing` with the plans of `plans-v<version>.json`; returns the page's path. */
export function serveJsPricing(site: FixtureSite, prefix: string, version: 1 | 2 = 1): string {
  site
    .set(`${prefix}/pricing`, { body: read("index.html") })
    .set(`${prefix}/assets/app.js`, { body: read("app.js"), contentType: "application/javascript" })
    .set(`${prefix}/assets/app.css`, { body: read("app.css"), contentType: "text/css" })
    .set(`${prefix}/api/plans`, { body: read(`plans-v${version}.json`), contentType: "application/json" });
  return `${prefix}/pricing`;
}
