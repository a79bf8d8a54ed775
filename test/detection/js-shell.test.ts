/**
 * The JavaScript-shell check (src/detection/fetch/js-shell.ts, docs/product-rules.md#javascript-shells) on the index pages
 * real frameworks generate (test/fixtures/js-shells, with their origin) and on pages that are not shells: the
 * tracked-page fixtures, the client-rendered pricing page once rendered, and short pages without a shell's signs.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { detectShell, shellMessage, SHELL_TEXT_MAX } from "../../src/detection/fetch/js-shell.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures");
const read = (...parts: string[]) => readFileSync(path.join(fixtures, ...parts), "utf8");

describe("detectShell", () => {
  it.each([
    ["cra.html", 'its only message asks for JavaScript ("You need to enable JavaScript to run this app.")'],
    [
      "vue-cli.html",
      "its only message asks for JavaScript (\"We're sorry but acme-pricing doesn't work properly without JavaScript enabled. Please enable it to …\")",
    ],
    ["angular.html", "an empty <app-root>"],
    ["vite-react.html", 'its only message asks for JavaScript ("You need to enable JavaScript to run this app.")'],
  ])("recognises the %s shell", (file, sign) => {
    expect(detectShell(read("js-shells", file)).sign).toBe(sign);
  });

  it("recognises the client-rendered pricing page as served, and says what to do", () => {
    const verdict = detectShell(read("js-pricing", "index.html"));
    expect(verdict.sign).not.toBeNull();
    expect(shellMessage(verdict)).toBe(
      'the page is a JavaScript app shell (its only message asks for JavaScript ("You need to enable JavaScript to ' +
        'run this app."); 0 characters of text): its content is drawn by scripts, which an http fetch does not run; ' +
        'set fetch_method to "browser" to render it',
    );
  });

  it("recognises an empty app root with scripts, a Next.js root and a bare script page", () => {
    expect(detectShell('<div id="__next"></div><script src="/_next/main.js"></script>').sign).toBe(
      'an empty <div id="__next">',
    );
    expect(detectShell('<body><div id="app">Loading…</div><script src="/app.js"></script></body>').sign).toBe(
      'an empty <div id="app">',
    );
    expect(detectShell('<body><div class="container"></div><script src="/bundle.js"></script></body>').sign).toBe(
      "no text without its scripts",
    );
  });

  it.each(readdirSync(path.join(fixtures, "sites")).filter((file) => file.endsWith(".html")))(
    "leaves the page %s alone",
    (file) => {
      expect(detectShell(read("sites", file)).sign).toBeNull();
    },
  );

  it("leaves short pages without a shell's signs alone", () => {
    // A coming-soon page: little text, a script, but its root holds words of its own.
    expect(detectShell('<div id="root"><h1>Coming soon</h1></div><script src="/a.js"></script>').sign).toBeNull();
    // An empty root but no script: nothing would ever draw it, so "render it" would be wrong advice.
    expect(detectShell('<div id="root"></div>').sign).toBeNull();
    // A server-rendered app: its root is full, its noscript notice is one line among many.
    const rendered = `<noscript>Please enable JavaScript.</noscript><div id="root">${"<p>Plans and prices for teams.</p>".repeat(20)}</div><script src="/a.js"></script>`;
    expect(detectShell(rendered).sign).toBeNull();
    // Inline data scripts are not code that draws a page.
    expect(detectShell('<div id="root"></div><script type="application/ld+json">{}</script>').sign).toBeNull();
  });

  it("counts only visible text against the limit", () => {
    const padded = `<div id="root"></div><script src="/a.js">${"x".repeat(10_000)}</script><style>${"p{}".repeat(1000)}</style>`;
    expect(detectShell(padded)).toEqual({ sign: 'an empty <div id="root">', textLength: 0 });
    const wordy = `<div id="root"></div><script src="/a.js"></script><p>${"word ".repeat(SHELL_TEXT_MAX)}</p>`;
    expect(detectShell(wordy).sign).toBeNull();
  });
});
