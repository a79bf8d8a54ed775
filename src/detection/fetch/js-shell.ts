/**
 * Is a fetched HTML page an empty JavaScript app shell (docs/product-rules.md#javascript-shells)? Many SaaS pricing
 * pages are single-page apps: the server sends an empty root element and scripts, and the plans exist only once a
 * browser has run them. An http fetch of such a page would track nothing and say nothing; the fetch fails instead,
 * naming the shell and suggesting `fetch_method` `browser`, and discovery proposes `browser` for it.
 *
 * A page is a shell only when it says so unambiguously: almost no visible text (at most SHELL_TEXT_MAX characters
 * outside scripts, styles, templates and noscript) AND one of
 * - a noscript notice asking for JavaScript ("You need to enable JavaScript to run this app.");
 * - an app root left empty (`<div id="root">`, `#app`, `#__next`, `#__nuxt`, `#___gatsby`, `<app-root>`,
 *   `[ng-version]`, `[data-reactroot]`; empty or a lone "Loading…") and at least one script;
 * - no visible text at all and at least one external script.
 * A short page without those signs (a "coming soon" page, a redirect notice) is not one: a wrong suggestion is worse
 * than none. Runs in the parse pool (src/detection/parse/parse-tasks.ts), linear in the page.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { bodyOf, collapse, loadHtml, tagName, textContent } from "../parse/html.js";

/** Visible characters a shell may show (a header, a cookie line, "Loading…"); more is a page of its own. */
export const SHELL_TEXT_MAX = 200;

export interface ShellVerdict {
  /** What makes the page a shell, in words for the customer (`an empty <div id="root">`); null when it is not one. */
  sign: string | null;
  /** Visible characters of the page (scripts, styles, templates and noscript excluded). */
  textLength: number;
}

/** Ids the common frameworks give their root element (React, Vue, Next.js, Nuxt, Gatsby, Svelte, Ember, Angular). */
const ROOT_IDS = new Set(["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "ember-application", "app-root"]);
const ROOT_TAGS = new Set(["app-root"]);
const ROOT_ATTRIBUTES = ["ng-version", "data-reactroot", "ng-app", "data-v-app"];
/** What an app root may hold before its scripts ran and still be empty. */
const PLACEHOLDER = /^(?:loading|please wait|chargement|cargando|wird geladen|laden)?[.…\s]*$/i;
/** A noscript notice that the page needs JavaScript, in the wordings the frameworks' templates and sites use. */
const NEEDS_JAVASCRIPT =
  /\b(?:enable|turn on|activate|allow)\s+javascript\b|\bjavascript\s+(?:is\s+)?(?:required|disabled|needed|must be enabled)\b|\brequires?\s+javascript\b|\bwithout\s+javascript\b|\bjavascript\s+enabled\b|\bjavascript\s+to\s+(?:run|use|view|work)\b/i;
/** How much of one noscript element is read (its text is raw markup: parse5 treats it as text when scripting is on). */
const NOSCRIPT_READ = 2_000;
/** Script types that are data, not code. */
const DATA_SCRIPT = /json|text\/template|text\/x-template/i;

export function detectShell(body: string): ShellVerdict {
  const $ = loadHtml(body);
  const root = bodyOf($).get(0);
  const textLength = root ? collapse(textContent(root)).length : 0;
  if (textLength > SHELL_TEXT_MAX) return { sign: null, textLength };

  const notice = noscriptNotice($);
  if (notice !== null) return { sign: `its only message asks for JavaScript ("${notice}")`, textLength };
  const scripts = $("script")
    .toArray()
    .filter((el) => !DATA_SCRIPT.test(el.attribs.type ?? ""));
  if (scripts.length === 0) return { sign: null, textLength };
  const appRoot = emptyAppRoot($);
  if (appRoot !== null) return { sign: `an empty ${appRoot}`, textLength };
  if (textLength === 0 && scripts.some((el) => (el.attribs.src ?? "").trim() !== "")) {
    return { sign: "no text without its scripts", textLength };
  }
  return { sign: null, textLength };
}

/** The first noscript notice asking for JavaScript, collapsed and shortened; null when there is none. */
function noscriptNotice($: CheerioAPI): string | null {
  for (const el of $("noscript").toArray()) {
    const raw = textContent(el).slice(0, NOSCRIPT_READ);
    // The markup inside noscript arrives as text: its tags are dropped here, not interpreted.
    const text = collapse(raw.replace(/<[^<>]*>/g, " "));
    if (NEEDS_JAVASCRIPT.test(text)) return text.length > 100 ? `${text.slice(0, 99)}…` : text;
  }
  return null;
}

/** The first app root element that holds nothing but a placeholder, described as `<div id="root">`; else null. */
function emptyAppRoot($: CheerioAPI): string | null {
  const selector = [
    ...[...ROOT_IDS].map((id) => `[id="${id}"]`),
    ...ROOT_TAGS,
    ...ROOT_ATTRIBUTES.map((attribute) => `[${attribute}]`),
  ].join(", ");
  const found = $(selector)
    .toArray()
    .find((node): node is Element => node.type === "tag");
  if (!found) return null;
  if (!PLACEHOLDER.test(collapse(textContent(found)))) return null;
  return describe(found);
}

function describe(el: Element): string {
  const id = el.attribs.id;
  return id ? `<${tagName(el)} id="${id}">` : `<${tagName(el)}>`;
}

/**
 * The failure message of an http fetch that found a shell: what was seen, why an http fetch cannot read it, and what
 * to do (docs/product-rules.md#javascript-shells).
 */
export function shellMessage(verdict: ShellVerdict): string {
  return (
    `the page is a JavaScript app shell (${verdict.sign}; ${verdict.textLength} characters of text): its content is ` +
    `drawn by scripts, which an http fetch does not run; set fetch_method to "browser" to render it`
  );
}
