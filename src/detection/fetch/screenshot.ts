/**
 * Which part of a rendered page shows a change (docs/product-rules.md#screenshots): each event's evidence of a
 * rendered page includes a screenshot of the element holding the changed text (a plan card, a job title, the new
 * headline), or of the top of the page when the change has no visible text to find (a removed plan, a new page
 * title, a closed role).
 *
 * The target comes from the draft's own evidence (what classification read from the page); the element is found in
 * the live page by LOCATE_SCRIPT, whose work is bounded: at most MAX_TEXT_NODES text nodes read, MAX_CANDIDATES
 * elements tried, a few levels climbed from each.
 */
import type { EventDraft, PricingPlan } from "../types.js";

export interface ScreenshotTarget {
  /** Text the region must show (a plan name, an item title, the new headline); null: the top of the page. */
  anchor: string | null;
  /** A number the region must also show (a plan's amount, integer part), to tell the right card from a mention. */
  hint: string | null;
}

/** The region found in the page, in document coordinates, with the text it shows. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  text: string;
}

const ANCHOR_MAX = 120;

export function screenshotTarget(draft: EventDraft): ScreenshotTarget {
  const target = (anchor: string | null, hint: string | null = null): ScreenshotTarget => ({
    anchor: anchor && anchor.trim() !== "" ? anchor.trim().slice(0, ANCHOR_MAX) : null,
    hint,
  });
  const first = draft.evidence[0];
  const metadata = (first?.metadata ?? {}) as Record<string, unknown>;
  if (draft.subject.startsWith("pricing:plan:")) {
    const after = metadata.after as PricingPlan | null | undefined;
    // A removed plan is no longer on the page: its absence is shown by the top of the page.
    if (!after || typeof after.name !== "string") return target(null);
    return target(after.name, typeof after.amount === "number" ? String(Math.trunc(after.amount)) : null);
  }
  if (draft.subject.startsWith("hiring:opened:") || draft.subject.startsWith("product:item:")) {
    return target(typeof metadata.title === "string" ? metadata.title : (first?.title ?? null));
  }
  if (draft.subject === "narrative:text") {
    const added = draft.evidence.flatMap((e) => (Array.isArray(e.metadata.added) ? e.metadata.added : []));
    return target(typeof added[0] === "string" ? added[0] : null);
  }
  if (draft.subject.startsWith("narrative:")) {
    // The visible fields only: a new <title> or meta description is not on the page.
    const visible = draft.evidence.find((e) => ["h1", "hero", "h2"].includes(String(e.metadata.field)));
    const after = visible?.metadata.after;
    return target(typeof after === "string" ? after : null);
  }
  return target(null);
}

export const MAX_TEXT_NODES = 20_000;
export const MAX_CANDIDATES = 10;

/**
 * Runs in the page (a string, so that nothing the server's compiler adds to functions reaches the browser): the
 * region of the first visible element that shows `anchor` (and `hint` when given), grown to a block of some context,
 * in document coordinates; null when none does. Text is compared lowercased with whitespace collapsed, and numbers
 * without their thousands separators ("1,049" and "1 049" show 1049).
 */
export const LOCATE_SCRIPT = `(function (anchor, hint) {
  var MAX_TEXT_NODES = ${MAX_TEXT_NODES}, MAX_CANDIDATES = ${MAX_CANDIDATES};
  function norm(s) { return String(s || "").toLowerCase().replace(/\\s+/g, " ").trim(); }
  function numeric(s) { return norm(s).replace(/(\\d)[\\s,.'\\u2019\\u00a0\\u202f](?=\\d{3}(?!\\d))/g, "$1"); }
  function textOf(el) { return el.innerText || el.textContent || ""; }
  function isWordChar(c) { return !!c && /[a-z0-9]/.test(c); }
  /** "pro" in "pro plan" but not in "product": the key stands alone where it is found. */
  function holds(text, key) {
    for (var at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + 1)) {
      if (!isWordChar(text.charAt(at - 1)) && !isWordChar(text.charAt(at + key.length))) return true;
    }
    return false;
  }
  var SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, TITLE: 1 };
  var wanted = norm(anchor);
  if (!wanted || !document.body) return null;
  function find(key) {
    var found = [], seen = 0;
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node && seen < MAX_TEXT_NODES && found.length < MAX_CANDIDATES; node = walker.nextNode()) {
      seen++;
      var parent = node.parentElement;
      if (!parent || SKIP[parent.tagName]) continue;
      var text = norm(node.data);
      if (key.length < wanted.length ? text.indexOf(key) >= 0 : holds(text, key)) found.push(parent);
    }
    return found;
  }
  // A long anchor (a title) is looked for by its start; it may still span elements ("Pro" + "plan"), when its first
  // word of some length is the next best key.
  var candidates = find(wanted.length > 40 ? wanted.slice(0, 40) : wanted);
  if (candidates.length === 0) {
    var word = wanted.split(" ").filter(function (w) { return w.length >= 3; })[0];
    if (word && word !== wanted) candidates = find(word);
  }
  var best = null;
  for (var i = 0; i < candidates.length; i++) {
    var el = candidates[i], levels = 0;
    while (el.parentElement && levels < 6 && !holds(norm(textOf(el)), wanted)) { el = el.parentElement; levels++; }
    if (!holds(norm(textOf(el)), wanted)) continue;
    if (hint) {
      levels = 0;
      while (el.parentElement && levels < 6 && !holds(numeric(textOf(el)), hint)) { el = el.parentElement; levels++; }
      if (!holds(numeric(textOf(el)), hint)) continue;
    }
    var rect = el.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) continue;
    // A line alone says little: grow to its container while that stays a block (a card, a section row).
    levels = 0;
    while (el.parentElement && el.parentElement !== document.body && levels < 4 && rect.height < 80) {
      var outer = el.parentElement.getBoundingClientRect();
      if (outer.height > 700 || outer.width > 1300) break;
      el = el.parentElement; rect = outer; levels++;
    }
    // The smallest region that shows the change: the card rather than the section that mentions the plan again.
    if (!best || rect.width * rect.height < best.rect.width * best.rect.height) best = { el: el, rect: rect };
  }
  if (!best) return null;
  return {
    x: best.rect.left + window.scrollX, y: best.rect.top + window.scrollY,
    width: best.rect.width, height: best.rect.height,
    text: String(textOf(best.el)).replace(/\\s+/g, " ").trim().slice(0, 300)
  };
})`;
