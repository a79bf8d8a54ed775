/**
 * How a page presents the company (Narrative): <title>, meta description, the h1s, the first h2s and the hero copy.
 * Every field is masked, so a title carrying today's date does not read as a repositioning.
 */
import type { CheerioAPI } from "cheerio";
import type { Narrative } from "../types.js";
import { collapse, isElement, tagName, textContent, type AnyNode, type Element } from "../parse/html.js";
import { maskVolatile } from "../parse/mask.js";
import { ElementIndex } from "../parse/tree.js";

const MAX_H2 = 10;
const HERO_MIN_CHARS = 40;

export interface HeadFields {
  title: string | null;
  meta_description: string | null;
}

const masked = (text: string | null | undefined): string | null => maskVolatile(collapse(text)) || null;

/** Read before boilerplate removal: the head is never boilerplate, but an inline <svg><title> is not the title. */
export function readHead($: CheerioAPI): HeadFields {
  const title = $("title")
    .toArray()
    .find((el) => $(el).closest("svg").length === 0);
  const meta = (attr: "name" | "property", value: string): string | null => {
    const found = $("meta")
      .toArray()
      .find((el) => (el.attribs[attr] ?? "").trim().toLowerCase() === value && collapse(el.attribs.content));
    return found ? collapse(found.attribs.content) : null;
  };
  return {
    title: title ? masked(textContent(title)) : null,
    meta_description: masked(
      meta("name", "description") ?? meta("property", "og:description") ?? meta("name", "twitter:description"),
    ),
  };
}

/**
 * The first `limit` distinct texts of the `tag` headings. At most ten times `limit` headings are read: a page of
 * thousands of repeated or nested headings would otherwise have each one's text read in full.
 */
function headingTexts(index: ElementIndex, tag: string, limit: number): string[] {
  const out: string[] = [];
  let read = 0;
  for (const el of index.elements) {
    if (tagName(el) !== tag || index.visibleChars(el) === 0) continue;
    if (++read > limit * 10) break;
    const text = masked(textContent(el));
    if (text && !out.includes(text)) out.push(text);
    if (out.length >= limit) break;
  }
  return out;
}

/** Own text of an element (its text children only), for hero copy that sits in a <div class="subtitle">. */
function ownText(el: Element): string {
  return collapse(
    el.children
      .filter((child) => child.type === "text" || (isElement(child) && /^(?:a|b|strong|em|i|br)$/.test(tagName(child))))
      .map((child) => textContent(child))
      .join(" "),
  );
}

function directText(el: Element): string {
  return collapse(
    el.children
      .filter((child) => child.type === "text")
      .map((child) => textContent(child))
      .join(" "),
  );
}

/** Hero copy: the first paragraph of the main content with at least 40 characters, else the first such text block. */
function heroOf(index: ElementIndex, main: AnyNode): string | null {
  const elements = index.at(main) === -1 ? index.elements : index.inside(main as Element);
  // At least 40 visible characters is at least 40 collapsed ones; only shorter paragraphs are measured.
  const paragraph = elements.find(
    (el) =>
      tagName(el) === "p" &&
      (index.visibleChars(el) >= HERO_MIN_CHARS ||
        (index.visibleChars(el) > 0 && collapse(textContent(el)).length >= HERO_MIN_CHARS)),
  );
  if (paragraph) return masked(textContent(paragraph));
  const isControl = (el: AnyNode): boolean => isElement(el) && /^(?:a|button|li|td|th)$/.test(tagName(el));
  const inControl = index.insideAny(index.elements.filter(isControl));
  // The indexed root (the body) and what holds it are every element's ancestors too.
  let controlAbove = false;
  for (let current: AnyNode | null = index.root; current; current = current.parent) controlAbove ||= isControl(current);
  const block = elements.find(
    (el) =>
      directText(el).length >= HERO_MIN_CHARS / 2 &&
      ownText(el).length >= HERO_MIN_CHARS &&
      !/^(?:h[1-6]|li|td|th|a|button|label)$/.test(tagName(el)) &&
      !inControl(el) &&
      !controlAbove,
  );
  return block ? masked(ownText(block)) : null;
}

/** h1/h2 come from the whole cleaned body (a hero <h1> may sit in a <header> outside <main>); hero from main. */
export function extractNarrative(
  head: HeadFields,
  body: AnyNode,
  main: AnyNode,
  index = new ElementIndex(body),
): Narrative {
  return {
    title: head.title,
    meta_description: head.meta_description,
    h1: headingTexts(index, "h1", 20),
    h2: headingTexts(index, "h2", MAX_H2),
    hero: heroOf(index, main),
  };
}
