/**
 * HTML plumbing shared by the extractors: parsing (cheerio 1.2, parse5 underneath, so broken markup is repaired the
 * way a browser would), boilerplate removal, the choice of the main content and block-per-line text.
 */
import * as cheerio from "cheerio";
import type { Cheerio, CheerioAPI } from "cheerio";
import type { AnyNode, Element, Text } from "domhandler";
import { ElementIndex, removeNodes } from "./tree.js";

export type { AnyNode, Element };

/**
 * Deeper than any real page, and the depth browsers let their HTML parsers build. parse5 checks the stack of open
 * elements on most start tags, so its cost is the number of tags times the depth: at 2,000 levels, 200k headings
 * inside the deepest level took half a minute.
 */
const MAX_NESTING = 512;
const VOID_TAGS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
  // Tags whose end tag is optional: sloppy tables and lists must not look deep.
  "p",
  "li",
  "dt",
  "dd",
  "tr",
  "td",
  "th",
  "thead",
  "tbody",
  "tfoot",
  "colgroup",
  "caption",
  "option",
  "optgroup",
  "rt",
  "rp",
]);

/** Elements whose content parse5 reads as text, not tags (outside SVG and MathML, where they are ordinary). */
const RAW_TEXT_TAGS = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"]);
const RAW_TEXT_END = new Map([...RAW_TEXT_TAGS].map((name) => [name, new RegExp(`</${name}`, "gi")]));
const NO_TAGS = new Set<string>();
const COMMENT_END_HTML = /--!?>/g;
const COMMENT_END_XML = /-->/g;
/** One tag at a given position; its attributes stop at the next `<` as well as at `>` (see limitNesting). */
const TAG_AT = /<(\/?)([a-zA-Z][\w:-]*)[^<>]*?(\/?)>/y;

/**
 * Cuts the body where its (approximate) tag nesting passes `maxDepth`, in one pass. It follows the parsers: an end
 * tag closes the innermost open element of its name and those above it, and is ignored when none is open (a count
 * that any end tag lowered let `<div></span>` repeated build 20,000 levels); comments, CDATA sections (XML) and the
 * text of script, style and the like are skipped, not read as tags. A tag's attributes stop at the next `<` as well
 * as at `>`: otherwise every unclosed `<div` scanned the rest of the body, quadratic in its size (200 KB of them took
 * 9 s). An attribute value holding `<` is rare and only miscounts depth. In HTML, optional-close tags count as void;
 * XML names are compared case-sensitively, as htmlparser2 reads them.
 */
export function limitNesting(body: string, maxDepth = MAX_NESTING, mode: "html" | "xml" = "html"): string {
  const html = mode === "html";
  const voids = html ? VOID_TAGS : NO_TAGS;
  const open: string[] = [];
  const openCount = new Map<string, number>();
  const pop = (to: number): void => {
    for (const name of open.splice(to)) openCount.set(name, openCount.get(name)! - 1);
  };
  for (let at = body.indexOf("<"); at !== -1;) {
    const skipTo = skipped(body, at, html);
    if (skipTo !== null) {
      if (skipTo === -1) return body;
      at = body.indexOf("<", skipTo);
      continue;
    }
    TAG_AT.lastIndex = at;
    const tag = TAG_AT.exec(body);
    if (!tag) {
      at = body.indexOf("<", at + 1);
      continue;
    }
    let next = TAG_AT.lastIndex;
    const name = html ? tag[2]!.toLowerCase() : tag[2]!;
    if (tag[1]) {
      if (openCount.get(name)) pop(open.lastIndexOf(name));
    } else if (!tag[3] && !voids.has(name)) {
      open.push(name);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (open.length > maxDepth) return body.slice(0, at);
      const foreign = (openCount.get("svg") ?? 0) + (openCount.get("math") ?? 0) > 0;
      if (html && RAW_TEXT_TAGS.has(name) && !foreign) {
        const close = RAW_TEXT_END.get(name)!;
        close.lastIndex = next;
        if (!close.exec(body)) return body;
        next = close.lastIndex - name.length - 2;
      }
    }
    at = body.indexOf("<", next);
  }
  return body;
}

/**
 * Where a comment (or, in XML, a CDATA section) starting at `at` ends: null when none starts there, -1 when it runs
 * to the end of the body. An HTML comment also ends at `--!>`, and `<!-->` and `<!--->` are whole comments.
 */
function skipped(body: string, at: number, html: boolean): number | null {
  if (body.startsWith("<!--", at)) {
    if (html && body.startsWith("<!-->", at)) return at + 5;
    if (html && body.startsWith("<!--->", at)) return at + 6;
    // One search for whichever end comes first: a second search for the other would scan to the end of the body
    // for every comment.
    const end = html ? COMMENT_END_HTML : COMMENT_END_XML;
    end.lastIndex = at + 4;
    return end.exec(body) ? end.lastIndex : -1;
  }
  if (!html && body.startsWith("<![CDATA[", at)) {
    const end = body.indexOf("]]>", at + 9);
    return end === -1 ? -1 : end + 3;
  }
  return null;
}

/** Parses an XML body (a feed, a sitemap) with its nesting cut, as pages are (limitNesting). */
export function loadXml(body: string): CheerioAPI {
  return cheerio.load(limitNesting(body, MAX_NESTING, "xml"), { xml: true });
}

export function loadHtml(body: string): CheerioAPI {
  return cheerio.load(limitNesting(body));
}

export function isElement(node: AnyNode | null | undefined): node is Element {
  return !!node && (node.type === "tag" || node.type === "script" || node.type === "style");
}

/** The next sibling of `el` that is an element, whatever text stands between. */
export function nextElementSibling(el: Element): Element | null {
  for (let next = el.next; next; next = next.next) if (isElement(next)) return next;
  return null;
}

/** The previous sibling of `el` that is an element, whatever text stands between. */
export function previousElementSibling(el: Element): Element | null {
  for (let previous = el.prev; previous; previous = previous.prev) if (isElement(previous)) return previous;
  return null;
}

/** Control characters and non-characters are binary junk, never page text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const JUNK_CHARS = /[\u0000-\u0008\u000e-\u001f\u007f\ufffe\uffff]/g;

/** Collapses every kind of whitespace (incl. NBSP and zero-width spaces) into single spaces. */
export function collapse(text: string | null | undefined): string {
  if (!text) return "";
  return text
    .replace(JUNK_CHARS, "")
    .replace(/[\s\u200b-\u200d\u2060\ufeff]+/g, " ")
    .trim();
}

export function tagName(el: Element): string {
  return el.name.toLowerCase();
}

export function classAndId(el: Element): string {
  return `${el.attribs.id ?? ""} ${el.attribs.class ?? ""}`.trim();
}

export function classTokens(el: Element): string[] {
  return (el.attribs.class ?? "").split(/\s+/).filter(Boolean);
}

/** True when `ancestor` contains `node` (or is it). */
export function contains(ancestor: AnyNode, node: AnyNode | null): boolean {
  for (let current: AnyNode | null = node; current; current = current.parent) {
    if (current === ancestor) return true;
  }
  return false;
}

/** Resolves `href` against the page URL; null for fragments-only-to-nowhere, javascript: and mailto: links. */
export function absoluteUrl(href: string | null | undefined, base: string): string | null {
  const value = collapse(href);
  if (!value || /^(?:javascript|mailto|tel|data):/i.test(value) || value === "#") return null;
  try {
    return new URL(value, base).toString();
  } catch {
    try {
      return new URL(value).toString();
    } catch {
      return null;
    }
  }
}

/**
 * Elements that start a new line in the text (one block per line, as `Extraction.text` in src/detection/types.ts has
 * it).
 */
const BLOCK_TAGS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "button",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "option",
  "p",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "ul",
]);

const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "head"]);

const END = Symbol("end-of-block");
/** A table cell starts: its lines are collected apart, to become one cell of its row. */
const CELL_START = Symbol("cell-start");
const CELL_END = Symbol("cell-end");
const ROW_END = Symbol("row-end");
type Marker = typeof END | typeof CELL_START | typeof CELL_END | typeof ROW_END;

/**
 * Text of a subtree, one block (paragraph, heading, list item, table row) per line, whitespace collapsed. A table row
 * is one line of its cells joined by " | ". Iterative, so a pathologically deep document cannot overflow the stack,
 * and linear: a row's cells are collected on the same stack rather than by a nested call per table, whose joins
 * copied the text of a table nested n deep n times. Reading stops once the lines hold `maxChars` characters.
 */
export function blockLines(
  root: AnyNode | AnyNode[],
  skip?: (el: Element) => boolean,
  maxChars = Number.POSITIVE_INFINITY,
): string[] {
  const sinks: string[][] = [[]];
  const rows: string[][] = [];
  let buffer = "";
  let chars = 0;
  const rawLimit = maxChars * 4;
  const flush = (): void => {
    const line = collapse(buffer);
    if (line) sinks[sinks.length - 1]!.push(line);
    chars += line.length;
    buffer = "";
  };
  const stack: (AnyNode | Marker)[] = Array.isArray(root) ? [...root].reverse() : [root];
  while (stack.length > 0 && chars < maxChars) {
    const node = stack.pop()!;
    if (typeof node === "symbol") {
      closeMarker(node);
      continue;
    }
    if (node.type === "text") {
      // With a limit, no more raw text is buffered than it could need (a line can be one text node of megabytes).
      buffer +=
        buffer.length + (node as Text).data.length > rawLimit
          ? (node as Text).data.slice(0, rawLimit)
          : (node as Text).data;
      if (buffer.length > rawLimit) flush();
      continue;
    }
    if (!isElement(node)) {
      if ("children" in node && Array.isArray(node.children)) {
        for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
      }
      continue;
    }
    const tag = tagName(node);
    if (SKIPPED_TAGS.has(tag) || skip?.(node)) continue;
    if (tag === "br" || tag === "tr" || tag === "pre" || BLOCK_TAGS.has(tag)) flush();
    if (tag === "br") continue;
    if (tag === "tr") {
      rows.push([]);
      stack.push(ROW_END);
      const cells = node.children.filter(isElement).filter((cell) => tagName(cell) === "td" || tagName(cell) === "th");
      for (let i = cells.length - 1; i >= 0; i -= 1) stack.push(CELL_END, cells[i]!, CELL_START);
      continue;
    }
    if (tag === "pre") {
      for (const line of textContent(node).split(/\r?\n/)) {
        const collapsed = collapse(line);
        if (collapsed) sinks[sinks.length - 1]!.push(collapsed);
        chars += collapsed.length;
      }
      continue;
    }
    if (BLOCK_TAGS.has(tag)) stack.push(END);
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
  }
  flush();
  return sinks[0]!;

  function closeMarker(marker: Marker): void {
    flush();
    if (marker === CELL_START) sinks.push([]);
    else if (marker === CELL_END) rows[rows.length - 1]!.push(concat(sinks.pop()!, " "));
    else if (marker === ROW_END) {
      const row = concat(rows.pop()!, " | ");
      if (row) sinks[sinks.length - 1]!.push(row);
    }
  }
}

/**
 * The non-empty `parts` joined by `separator`, by concatenation: V8 links the strings instead of copying them, so a
 * table nested n deep does not copy its text n times (Array#join would); the text is flattened once, when read.
 */
function concat(parts: string[], separator: string): string {
  let out = "";
  for (const part of parts) if (part) out = out ? out + separator + part : part;
  return out;
}

/** Raw text of a subtree (script and style contents excluded), iteratively. */
export function textContent(root: AnyNode): string {
  let out = "";
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "text") {
      out += (node as Text).data;
      continue;
    }
    if (isElement(node) && SKIPPED_TAGS.has(tagName(node)) && node !== root) continue;
    if ("children" in node && Array.isArray(node.children)) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  return out;
}

/** Collapsed text of an element with blocks separated by spaces ("Pro" + "$49" → "Pro $49", not "Pro$49"). */
export function blockText(el: AnyNode): string {
  return blockLines(el).join(" ");
}

/**
 * Every element of a document in document order, from one walk, kept until the tree changes. Each `$(selector)` walks
 * the whole page: a page of megabytes paid for each of a dozen queries (the readers of the head, of challenge markup,
 * of boilerplate). Tag and attribute questions filter this list instead. The functions here that remove nodes forget
 * it (`forgetElements`); nothing else changes a parsed tree.
 */
const elementLists = new WeakMap<AnyNode, { all: Element[]; byTag: Map<string, Element[]> }>();

function listsOf($: CheerioAPI): { all: Element[]; byTag: Map<string, Element[]> } {
  const root = $.root().get(0)!;
  let lists = elementLists.get(root);
  if (!lists) {
    lists = { all: [], byTag: new Map() };
    const stack: AnyNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node !== root && isElement(node)) {
        lists.all.push(node);
        const named = lists.byTag.get(node.name);
        if (named) named.push(node);
        else lists.byTag.set(node.name, [node]);
      }
      if ("children" in node && Array.isArray(node.children))
        for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
    elementLists.set(root, lists);
  }
  return lists;
}

export function allElements($: CheerioAPI): readonly Element[] {
  return listsOf($).all;
}

/** The elements of one tag name, in document order (`$("script")` without a walk of its own). */
export function elementsNamed($: CheerioAPI, tag: string): readonly Element[] {
  return listsOf($).byTag.get(tag) ?? [];
}

function forgetElements($: CheerioAPI): void {
  elementLists.delete($.root().get(0)!);
}

function removeFromPage($: CheerioAPI, nodes: Iterable<AnyNode>): void {
  // The element lists stay true when nothing was removed: rebuilding them is a walk of the whole page.
  if (removeNodes(nodes) > 0) forgetElements($);
}

/**
 * Script, style and other non-text content; removed first, before the text-level checks. So is the source's line
 * break between digits that each stand in an element of their own (an animated counter's `<span>1</span>\n
 * <span>9</span>`, laid out in a row): the visitor reads "19", and the text must not say "1 9", two prices.
 */
export function stripNonContent($: CheerioAPI): void {
  keepDrawnPrices($);
  removeFromPage(
    $,
    NON_CONTENT_TAGS.flatMap((tag) => elementsNamed($, tag)),
  );
  removeFromPage($, spacesBetweenDigits(allElements($)));
}

/** At most this many drawings are turned into their text: a page of thousands of drawn prices is not a pricing page. */
const MAX_DRAWN_PRICES = 200;

/**
 * A drawing whose text states a price (a card's header drawn as an SVG wave with `<text>$0.015</text><text>/Min.
 * </text>` on it) is replaced by its text, one line per `<text>`: the visitor reads that price. Other drawings (icons,
 * logos) go with the non-content.
 */
function keepDrawnPrices($: CheerioAPI): void {
  let kept = 0;
  for (const svg of elementsNamed($, "svg")) {
    if (kept >= MAX_DRAWN_PRICES) break;
    const texts = $(svg)
      .find("text")
      .toArray()
      .map((text) => collapse(textContent(text)))
      .filter(Boolean);
    if (!texts.some((text) => MONEY_RE.test(text))) continue;
    const lines = $("<span></span>");
    for (const text of texts) lines.append($("<span></span>").text(text), " ");
    $(svg).replaceWith(lines);
    kept++;
  }
  if (kept > 0) forgetElements($);
}

/**
 * An inline element whose only content is one digit. Cells and blocks are not: a row of cells "1 | 5 | 10" stays
 * three numbers.
 */
const isDigitElement = (node: AnyNode | null | undefined): boolean =>
  !!node &&
  isElement(node) &&
  INLINE_DIGIT_TAGS.has(tagName(node)) &&
  node.children.length === 1 &&
  node.children[0]!.type === "text" &&
  /^\s*\d\s*$/.test((node.children[0] as Text).data);

const INLINE_DIGIT_TAGS = new Set(["span", "b", "strong", "i", "em", "small", "sup", "sub", "font", "data", "output"]);

/** One digit of a number written a digit per element: a single-digit element beside another. */
export function inDigitRun(el: Element): boolean {
  if (!isDigitElement(el)) return false;
  // Past the whitespace between them, where stripNonContent has not removed it.
  const blank = (node: AnyNode | null): boolean => node?.type === "text" && /^\s*$/.test((node as Text).data);
  let before = el.prev;
  while (blank(before)) before = before!.prev;
  let after = el.next;
  while (blank(after)) after = after!.next;
  return isDigitElement(before) || isDigitElement(after);
}

/** The whitespace-only text nodes that stand between two single-digit elements. */
function spacesBetweenDigits(elements: readonly Element[]): AnyNode[] {
  const out: AnyNode[] = [];
  for (const el of elements) {
    const { children } = el;
    for (let i = 1; i + 1 < children.length; i++) {
      const child = children[i]!;
      if (child.type !== "text" || !/^\s*$/.test((child as Text).data)) continue;
      if (isDigitElement(children[i - 1]) && isDigitElement(children[i + 1])) out.push(child);
    }
  }
  return out;
}

const NON_CONTENT_TAGS = ["script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas"];

/** A money amount in text: "$49", "49 €", "USD 49", "£4.99". */
const MONEY_RE = /[$€£¥₹]\s?\d|\d\s?(?:€|£|zł|Kč|kr)|\b(?:USD|EUR|GBP|CHF)\s?\d|\d\s?(?:USD|EUR|GBP|CHF)\b/;

/** Not "cmp": Adobe Experience Manager prefixes every component with `cmp-` (cmp-text, cmp-title). */
const CONSENT_RE = /cookie|consent|gdpr|onetrust|cookiebot|usercentrics|didomi|truste\b/i;
const PRIVACY_TEXT_RE = /cookie|consent|privacy|gdpr|tracking/i;

/**
 * Removes navigation, footers, sidebars, forms, hidden elements, cookie/consent banners and skip links
 * (docs/product-rules.md#extraction). Guards keep the page itself: never html/body/main, never an element holding the
 * main content, never a form that wraps most of the page (ASP.NET-style pages put everything in one form).
 *
 * Each pass decides on the tree as the previous passes left it, with one index of the tree (src/detection/read/
 * tree.ts) instead of a search per element; an element inside one already removed is not looked at again.
 */
export function stripBoilerplate($: CheerioAPI): void {
  // A footer belongs to its nearest sectioning element: the page's own footer is boilerplate, a section's or an
  // article's footer (a plan card's "Contact us" button row) is content.
  const pageFooters = elementsNamed($, "footer").filter(
    (el) => $(el).parents("article, section, aside, nav").length === 0,
  );
  // Read before the page's navigation goes: the tabs that show a pane may stand in it.
  const unreachablePanes = panesNothingShows(allElements($));
  removeFromPage($, [
    ...allElements($).filter((el) => BOILERPLATE_TAGS.has(el.name) || BOILERPLATE_ROLES.has(el.attribs.role ?? "")),
    ...pageFooters,
  ]);
  const index = new ElementIndex($.root().get(0)!);
  // The candidates of each pass below, sorted out in one walk of the elements.
  const candidates = {
    main: [] as Element[],
    hidden: [] as Element[],
    hiddenForGood: [] as Element[],
    screenReader: [] as Element[],
    named: [] as Element[],
    links: [] as Element[],
  };
  for (const el of index.elements) {
    const { attribs } = el;
    if (el.name === "main" || el.name === "h1" || attribs.role === "main") candidates.main.push(el);
    if (attribs["aria-hidden"] === "true" || attribs.hidden !== undefined) candidates.hidden.push(el);
    if (attribs.id !== undefined || attribs.class !== undefined) {
      candidates.named.push(el);
      if (neverShown(el)) candidates.hiddenForGood.push(el);
      if (attribs.class !== undefined && SCREEN_READER_CLASS_RE.test(attribs.class)) candidates.screenReader.push(el);
    }
    if (el.name === "a") candidates.links.push(el);
  }
  const holdsMain = index.holdsAny(candidates.main);
  // Removing an element never changes whether another holds main content: only elements holding none are removed.
  const holdsPage = (el: Element): boolean => ["html", "body", "main"].includes(tagName(el)) || holdsMain(el);
  const removed: Element[] = [];
  // A modal library may set aria-hidden on the whole app root while its dialog is open: keep the page then. A hidden
  // block that states prices is the other pane of a monthly/annual switch: in the markup, so read
  // (docs/real-pages.md#a-period-switch-is-not-a-price-change). A few words hidden from screen readers only, beside a
  // price (`$50<span aria-hidden="true">/mo</span>` after an sr-only "per month"), are shown on screen: its period.
  const statesPrice = index.textMatches(MONEY_RE);
  const besidePrice = (el: Element): boolean =>
    el.attribs["aria-hidden"] === "true" &&
    index.visibleChars(el) <= 20 &&
    el.parent !== null &&
    isElement(el.parent) &&
    statesPrice(el.parent);
  removeEach(index, removed, candidates.hidden, (el) => !holdsPage(el) && !statesPrice(el) && !besidePrice(el));
  removeEach(index, removed, unreachablePanes, (el) => !holdsPage(el));
  removeEach(index, removed, candidates.hiddenForGood, (el) => !holdsPage(el));
  removeEach(index, removed, candidates.screenReader, (el) => statesPrice(el) && restatesPriceBeside(el, index));
  const privacyText = index.textMatches(PRIVACY_TEXT_RE);
  removeEach(index, removed, candidates.named, (el) => {
    const names = classAndId(el);
    const consent = CONSENT_RE.test(names) || (/banner/i.test(names) && privacyText(el));
    return consent && !holdsPage(el);
  });
  removeEach(
    index,
    removed,
    candidates.links,
    (el) => /\bskip\b/i.test(el.attribs.class ?? "") || /^\s*skip to\b/i.test(textContent(el)),
  );
  removeFromPage($, removed);
  const forms = elementsNamed($, "form");
  if (forms.length === 0) return;
  const bodyLength = collapse(textContent(bodyOf($).get(0)!)).length;
  // A form that states prices is a plan chooser (prices inside its buttons), not a newsletter box.
  removeFromPage(
    $,
    forms.filter((el) => collapse(textContent(el)).length <= bodyLength * 0.5 && !MONEY_RE.test(textContent(el))),
  );
}

/**
 * Elements a site builder hides for good, never toggled by a script: Webflow's `w-condition-invisible` (a CMS item's
 * block whose condition is false: the "$999" of an item that shows "Contact sales") and Elementor's element hidden on
 * desktop, tablet and mobile alike. A hidden element a switch may show (`hidden`, `d-none`, aria-hidden) is not one.
 */
function neverShown(el: Element): boolean {
  const classes = el.attribs.class;
  if (!classes || !(classes.includes("w-condition-invisible") || classes.includes("elementor-hidden-mobile")))
    return false;
  const tokens = classes.split(/\s+/);
  return (
    tokens.includes("w-condition-invisible") ||
    (tokens.includes("elementor-hidden-desktop") &&
      tokens.includes("elementor-hidden-tablet") &&
      tokens.includes("elementor-hidden-mobile"))
  );
}

/** The utility classes that hide an element on screen and leave it to screen readers (WordPress, Bootstrap, Tailwind…). */
const SCREEN_READER_CLASS_RE =
  /(?:^|\s)(?:sr-only|screen-reader-text|visually-hidden|visuallyhidden|screenreader-only)(?:\s|$)/;

/**
 * Text for screen readers only that restates prices shown beside it (WooCommerce's "Original price was: $39.00." after
 * the struck $39.00): the visitor sees each price once, so it is read once. Screen-reader text that says more (a
 * "per month" the screen shows as "/mo") stays.
 */
function restatesPriceBeside(el: Element, index: ElementIndex): boolean {
  // Beside a price is within a short element: the text of a long one is not compared (that would cost the page's
  // length per element).
  if (!el.parent || !isElement(el.parent) || index.visibleChars(el.parent) > 1000) return false;
  const text = textContent(el);
  const numbers = text.match(/\d[\d.,]*\d|\d/g) ?? [];
  const around = el.parent.children
    .filter((child) => child !== el)
    .map((child) => textContent(child))
    .join(" ");
  return numbers.length > 0 && numbers.every((number) => around.includes(number));
}

/**
 * Tab panes (Bootstrap's `.tab-content > .tab-pane`: hidden unless `active`) that are not shown and that no tab, link
 * or handler on the page targets by id: a theme's sample pane left in the markup, which no visitor can ever open. A
 * pane some tab targets is the other side of a switch, and read.
 */
function panesNothingShows(elements: readonly Element[]): Element[] {
  const panes = elements.filter((el) => {
    if (!el.attribs.class?.includes("tab-pane")) return false;
    const classes = classTokens(el);
    if (!classes.includes("tab-pane") || classes.includes("active") || classes.includes("show")) return false;
    return el.parent !== null && isElement(el.parent) && classTokens(el.parent).includes("tab-content");
  });
  if (panes.length === 0) return [];
  const targeted = new Set<string>();
  for (const el of elements) {
    const { href, "data-target": target, "data-bs-target": bsTarget, "aria-controls": controls, onclick } = el.attribs;
    for (const value of [href, target, bsTarget]) if (value?.startsWith("#")) targeted.add(value.slice(1));
    if (controls) for (const id of controls.split(/\s+/)) targeted.add(id);
    if (onclick) for (const [, id] of onclick.matchAll(/['"]([\w-]+)['"]/g)) targeted.add(id!);
  }
  return panes.filter((el) => !el.attribs.id || !targeted.has(el.attribs.id));
}

const BOILERPLATE_TAGS = new Set(["nav", "aside", "dialog"]);
const BOILERPLATE_ROLES = new Set(["navigation", "contentinfo", "complementary"]);

/** Adds to `removed` each of `elements` (in document order) that `remove` picks, skipping those already inside one. */
function removeEach(
  index: ElementIndex,
  removed: Element[],
  elements: Element[],
  remove: (el: Element) => boolean,
): void {
  const gone = index.insideAny(removed);
  let goneUntil: Element | null = null;
  for (const el of elements) {
    if (gone(el) || (goneUntil && index.contains(goneUntil, el))) continue;
    if (!remove(el)) continue;
    removed.push(el);
    goneUntil = el;
  }
}

/** The document body (or the root when the parser produced none). */
export function bodyOf($: CheerioAPI): Cheerio<AnyNode> {
  // parse5 always builds html > body: found among children, not by searching the whole document each time.
  const body = $.root().children("html").children("body").first();
  if (body.length > 0) return body;
  const anywhere = $("body").first();
  return anywhere.length > 0 ? anywhere : $.root();
}

/**
 * The main content: <main>, [role=main] or a lone <article> when present and substantial (an empty <main> shell
 * of a client-rendered app must not hide the server-rendered body), else the body.
 */
export function mainRoot($: CheerioAPI): Cheerio<AnyNode> {
  const body = bodyOf($);
  const bodyNode = body.get(0);
  // The body's text is measured only when a short candidate needs comparing with it: it is the whole page.
  let bodyLength: number | null = null;
  const halfTheBody = (length: number): boolean =>
    length >= (bodyLength ??= bodyNode ? collapse(textContent(bodyNode)).length : 0) * 0.5;
  const elements = allElements($);
  for (const [test, lone] of [
    [(el: Element) => el.name === "main", false],
    [(el: Element) => el.attribs.role === "main", false],
    [(el: Element) => el.name === "article", true],
  ] as const) {
    const found = elements.filter(test);
    if (found.length === 0 || (lone && found.length !== 1)) continue;
    const candidate = found[0]!;
    const length = collapse(textContent(candidate)).length;
    if (length > 0 && (length >= 200 || halfTheBody(length))) return $(candidate);
  }
  return body;
}

/** All elements under `root` in document order (root excluded). */
export function elementsIn(root: AnyNode): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [];
  const pushChildren = (node: AnyNode): void => {
    if ("children" in node && Array.isArray(node.children)) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  };
  pushChildren(root);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    out.push(node);
    pushChildren(node);
  }
  return out;
}

export const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

export function isHeading(el: Element): boolean {
  return HEADING_TAGS.has(tagName(el));
}

/** Cuts `text` to about `limit` characters at a word boundary, with an ellipsis when cut. */
export function truncate(text: string, limit = 300): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(" ");
  return `${(space > limit * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.–—-]+$/, "")}…`;
}

/** Collapsed text of `el` when it has at most `limit` characters, else null (long text is never read in full). */
export function shortText(index: ElementIndex, el: Element, limit: number): string | null {
  if (index.visibleChars(el) > limit) return null;
  const text = collapse(textContent(el));
  return text.length <= limit ? text : null;
}
