/**
 * A real headless Chromium for tests that look at pages, launched as the service launches it
 * (src/detection/fetch/browser.ts): by default the one shipped inside the npm package `@sparticuz/chromium` (its binary is
 * unpacked on first use, so a fresh machine needs nothing but `npm ci`); `CHROMIUM_PATH` points at another build
 * instead (for example Debian's `/usr/bin/chromium`). The service's launch flags already keep the browser from
 * reaching anything but the page under test (no background networking, updates, sync or QUIC).
 */
import type { Browser } from "playwright-core";
import { launchChromium } from "../../src/detection/fetch/browser.js";

/** The Chromium build the tests use: CHROMIUM_PATH, or null for the packaged one. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || null;

/** The same choice for a test app's environment. */
export const chromiumEnv = (): Record<string, string> => (CHROMIUM_PATH ? { CHROMIUM_PATH } : {});

export async function launchBrowser(): Promise<Browser> {
  return launchChromium({ executablePath: CHROMIUM_PATH });
}
