/**
 * A real headless Chromium for tests that look at pages. By default the one shipped inside the npm package
 * `@sparticuz/chromium` (its binary is unpacked on first use, so a fresh machine needs nothing but `npm ci`);
 * `CHROMIUM_PATH` points at another build instead (for example Debian's `/usr/bin/chromium`).
 */
import packagedChromium from "@sparticuz/chromium";
import { chromium, type Browser } from "playwright-core";

/** Flags that keep the browser from reaching anything but the page under test. */
const OFFLINE_ARGS = [
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser(): Promise<Browser> {
  const override = process.env.CHROMIUM_PATH;
  if (override) {
    return chromium.launch({ executablePath: override, args: ["--no-sandbox", "--disable-gpu", ...OFFLINE_ARGS] });
  }
  return chromium.launch({
    executablePath: await packagedChromium.executablePath(),
    args: [...packagedChromium.args, ...OFFLINE_ARGS],
  });
}
