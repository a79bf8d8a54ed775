/**
 * HTML plumbing shared by the extractors: parsing (cheerio 1.2, parse5 underneath, so broken markup is repaired the
 * way a browser would), boilerplate removal, the choice of the main content and block-per-line text.
 */
import * as cheerio from "cheerio";
import type { Cheerio, CheerioAPI } from "cheerio";
import type { AnyNode, Element, Text } from "domhandler";

export type { AnyNode, Element };

/** Deeper than any real page; parse5's cost grows with depth squared, so a hostile page could stall a worker. */
const MAX_NESTING = 2000;
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

/**
 * Cuts the body where its (approximate) tag nesting passes MAX_NESTING. Optional-close tags count as void. A tag's
 * attributes stop at the next `<` as well as at `>`: otherwise every unclosed `<div` scanned the rest of the body,
 * quadratic in its size (200 KB of them took 9 s). An attribute value holding `<` is rare and only miscounts depth.
 */
export function limitNesting(body: string, maxDepth = MAX_NESTING): string {
  let depth = 0;
  const tag = /<(\/?)([a-zA-Z][\w:-]*)[^<>]*?(\/?)>/g;
  for (let m = tag.exec(body); m; m = tag.exec(body)) {
    const name = m[2]!.toLowerCase();
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (!m[3] && !VOID_TAGS.has(name)) depth += 1;
    if (depth > maxDepth) return body.slice(0, m.index);
  }
  return body;
}

export function loadHtml(body: string): CheerioAPI {
  return cheerio.load(limitNesting(body));
}

export function isElement(node: AnyNode | null | undefined): node is Element {
  return !!node && (node.type === "tag" || node.type === "script" || node.type === "style");
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

/**
 * Text of a subtree, one block (paragraph, heading, list item, table row) per line, whitespace collapsed. Iterative,
 * so a pathologically deep document cannot overflow the stack.
 */
export function blockLines(root: AnyNode | AnyNode[], skip?: (el: Element) => boolean): string[] {
  const lines: string[] = [];
  let buffer = "";
  const flush = (): void => {
    const line = collapse(buffer);
    if (line) lines.push(line);
    buffer = "";
  };
  const stack: (AnyNode | typeof END)[] = Array.isArray(root) ? [...root].reverse() : [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === END) {
      flush();
      continue;
    }
    if (node.type === "text") {
      buffer += (node as Text).data;
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
    if (tag === "br") {
      flush();
      continue;
    }
    if (tag === "tr") {
      flush();
      const cells = node.children
        .filter(isElement)
        .filter((cell) => tagName(cell) === "td" || tagName(cell) === "th")
        .map((cell) => collapse(blockLines(cell, skip).join(" ")))
        .filter(Boolean);
      if (cells.length > 0) lines.push(cells.join(" | "));
      continue;
    }
    if (tag === "pre") {
      flush();
      for (const line of textContent(node).split(/\r?\n/)) {
        const collapsed = collapse(line);
        if (collapsed) lines.push(collapsed);
      }
      continue;
    }
    const block = BLOCK_TAGS.has(tag);
    if (block) {
      flush();
      stack.push(END);
    }
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
  }
  flush();
  return lines;
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

/** Script, style and other non-text content; removed first, before the text-level checks. */
export function stripNonContent($: CheerioAPI): void {
  $("script, style, noscript, template, svg, iframe, object, embed, canvas").remove();
}

/** Not "cmp": Adobe Experience Manager prefixes every component with `cmp-` (cmp-text, cmp-title). */
const CONSENT_RE = /cookie|consent|gdpr|onetrust|cookiebot|usercentrics|didomi|truste\b/i;
const PRIVACY_TEXT_RE = /cookie|consent|privacy|gdpr|tracking/i;

/**
 * Removes navigation, footers, sidebars, forms, hidden elements, cookie/consent banners and skip links
 * (docs/product-rules.md#extraction). Guards keep the page itself: never html/body/main, never an element holding the
 * main content, never a form that wraps most of the page (ASP.NET-style pages put everything in one form).
 */
export function stripBoilerplate($: CheerioAPI): void {
  $("nav, footer, aside, dialog, [role=navigation], [role=contentinfo], [role=complementary]").remove();
  const holdsPage = (el: Element): boolean =>
    ["html", "body", "main"].includes(tagName(el)) || $(el).find("main, [role=main], h1").length > 0;
  // A modal library may set aria-hidden on the whole app root while its dialog is open: keep the page then.
  $("[aria-hidden=true], [hidden]").each((_, el) => {
    if (!holdsPage(el)) $(el).remove();
  });
  $("[id], [class]").each((_, el) => {
    const names = classAndId(el);
    const consent = CONSENT_RE.test(names) || (/banner/i.test(names) && PRIVACY_TEXT_RE.test(textContent(el)));
    if (consent && el.parent && !holdsPage(el)) $(el).remove();
  });
  $("a").each((_, el) => {
    if (/\bskip\b/i.test(el.attribs.class ?? "") || /^\s*skip to\b/i.test(textContent(el))) $(el).remove();
  });
  const bodyLength = collapse(textContent($("body").get(0) ?? $.root().get(0)!)).length;
  $("form").each((_, el) => {
    if (collapse(textContent(el)).length <= bodyLength * 0.5) $(el).remove();
  });
}

/** The document body (or the root when the parser produced none). */
export function bodyOf($: CheerioAPI): Cheerio<AnyNode> {
  const body = $("body").first();
  return body.length > 0 ? body : $.root();
}

/**
 * The main content: <main>, [role=main] or a lone <article> when present and substantial (an empty <main> shell
 * of a client-rendered app must not hide the server-rendered body), else the body.
 */
export function mainRoot($: CheerioAPI): Cheerio<AnyNode> {
  const body = bodyOf($);
  const bodyNode = body.get(0);
  const bodyLength = bodyNode ? collapse(textContent(bodyNode)).length : 0;
  for (const selector of ["main", "[role=main]", "article"]) {
    const found = $(selector);
    if (found.length === 0 || (selector === "article" && found.length !== 1)) continue;
    const candidate = found.first();
    const length = collapse(textContent(candidate.get(0)!)).length;
    if (length > 0 && (length >= 200 || length >= bodyLength * 0.5)) return candidate;
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
