/**
 * How a page presents the company (Narrative): <title>, meta description, the h1s, the first h2s and the hero copy.
 * Every field is masked, so a title carrying today's date does not read as a repositioning.
 */
import type { CheerioAPI } from "cheerio";
import type { Narrative } from "../types.js";
import { collapse, elementsIn, isElement, tagName, textContent, type AnyNode, type Element } from "./html.js";
import { maskVolatile } from "./mask.js";

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

function headingTexts(root: AnyNode, tag: string, limit: number): string[] {
  const out: string[] = [];
  for (const el of elementsIn(root)) {
    if (tagName(el) !== tag) continue;
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

function insideTag(el: Element, tags: RegExp): boolean {
  for (let current = el.parent; current; current = current.parent) {
    if (isElement(current) && tags.test(tagName(current))) return true;
  }
  return false;
}

/** Hero copy: the first paragraph of the main content with at least 40 characters, else the first such text block. */
function heroOf(main: AnyNode): string | null {
  const elements = elementsIn(main);
  const paragraph = elements.find((el) => tagName(el) === "p" && collapse(textContent(el)).length >= HERO_MIN_CHARS);
  if (paragraph) return masked(textContent(paragraph));
  const block = elements.find(
    (el) =>
      directText(el).length >= HERO_MIN_CHARS / 2 &&
      ownText(el).length >= HERO_MIN_CHARS &&
      !/^(?:h[1-6]|li|td|th|a|button|label)$/.test(tagName(el)) &&
      !insideTag(el, /^(?:a|button|li|td|th)$/),
  );
  return block ? masked(ownText(block)) : null;
}

/** h1/h2 come from the whole cleaned body (a hero <h1> may sit in a <header> outside <main>); hero from main. */
export function extractNarrative(head: HeadFields, body: AnyNode, main: AnyNode): Narrative {
  return {
    title: head.title,
    meta_description: head.meta_description,
    h1: headingTexts(body, "h1", 20),
    h2: headingTexts(body, "h2", MAX_H2),
    hero: heroOf(main),
  };
}
