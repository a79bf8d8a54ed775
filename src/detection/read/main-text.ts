/**
 * The main text of a page (`Extraction.text`), without the furniture around it: menus outside <nav>, "related" and
 * "most read" lists, share bars, comment threads, subscription and paywall prompts (cookie banners are already gone:
 * stripBoilerplate in html.ts).
 *
 * A page that declares itself an article (og:type, a schema.org Article or BlogPosting in JSON-LD or microdata) is
 * read by Mozilla's Readability, on a light DOM (linkedom) built from the tree the engine already cleaned. Every other
 * page (pricing, homepage, careers, changelog) keeps the engine's main node (mainRoot in html.ts) less the elements
 * furnitureIn picks: Readability keeps one block, and on such a page the other blocks are content too. Readability's
 * pick is also filtered by furnitureIn, for the share bars and "related" boxes inside an article's column.
 *
 * Measured on the 181 real article pages of test/fixtures/real-pages/articles with the benchmark's own metric
 * (test/detection/main-text-corpus.ts, truth masked as the text is): the main node alone had precision 0.724 at
 * recall 0.993; less furnitureIn's picks 0.787 at 0.993; with Readability on the declared articles (174 of the 181)
 * 0.921 at 0.989. Readability.js alone on linkedom has 0.918 at 0.982 (defuddle 0.899 at 0.968), so Readability is
 * adopted where a page says it is an article, and the hand-written rules kept for every other page.
 *
 * Readability runs only when its cost is bounded (withinBounds). It walks the subtree of most elements it looks at
 * (text length, link density, conditional cleaning), so its time grows with the elements' depths and with the text
 * under them, not with their number: 10,000 paragraphs under 500 nested divs (1.3 MB) took 5 s, 1 MB of text in 500
 * nested items 1.4 s. It runs up to 10,000 elements, a depth sum of 300,000, a text-depth sum of 20 million and
 * 1.5 MB of markup (about 0.5 s on the worst shapes tried); the cleaned pages of the corpus have at most 1,331
 * elements, a depth sum of 15,000 and a text-depth sum of 0.83 million. Beyond, or on a failure, the main node less
 * its furniture is the main text.
 */
import { Readability } from "@mozilla/readability";
import type { CheerioAPI } from "cheerio";
import { parseHTML } from "linkedom";
import type { Text } from "domhandler";
import {
  allElements,
  blockLines,
  collapse,
  elementsIn,
  elementsNamed,
  isElement,
  loadHtml,
  tagName,
  textContent,
  type AnyNode,
  type Element,
} from "../parse/html.js";
import type { ElementIndex } from "../parse/tree.js";
import { typesOf, type JsonLd } from "./jsonld.js";

/** Above this many elements in the cleaned page, Readability is not run. */
export const MAX_ELEMENTS = 10_000;
/** Nor above this sum of the elements' depths (see the module comment). */
export const MAX_DEPTH_SUM = 300_000;
/**
 * Nor above this sum of each text's length times its depth: Readability measures the text under each element it
 * scores, so 1 MB of text inside 500 nested items cost it 1.4 s. The corpus's pages have at most 0.83 million.
 */
export const MAX_TEXT_DEPTH_SUM = 20_000_000;
/** Nor above this much cleaned markup: a page of a few huge text nodes has few elements but a costly DOM. */
export const MAX_HTML_CHARS = 1_500_000;
/**
 * Readability's pick is kept only when it has at least this much text: shorter, it is a caption or a teaser that
 * Readability settled for after its retries, not an article.
 */
const MIN_ARTICLE_CHARS = 250;
/** schema.org types of a page that is one article (NewsArticle, BlogPosting, TechArticle, Report and the like). */
const ARTICLE_TYPE = /(?:Article|BlogPosting|^Report|^LiveBlogPosting)$/;

/**
 * True when the subtree under `root` is within every bound above: elements, their depth sum, their text's depth sum,
 * and about MAX_HTML_CHARS of text and attribute values (measured before the tree is serialised for linkedom: a page
 * of 5 MB of text is not serialised only to be found too large).
 */
export function withinBounds(root: AnyNode): boolean {
  let elements = 0;
  let depthSum = 0;
  let chars = 0;
  let textDepthSum = 0;
  const stack: [AnyNode, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!("children" in node) || !Array.isArray(node.children)) continue;
    for (const child of node.children) {
      if (child.type === "text") {
        chars += (child as Text).data.length;
        textDepthSum += (child as Text).data.length * (depth + 1);
      } else if (isElement(child)) {
        elements += 1;
        depthSum += depth + 1;
        for (const name in child.attribs) chars += name.length + child.attribs[name]!.length;
        stack.push([child, depth + 1]);
      }
      if (elements > MAX_ELEMENTS || depthSum > MAX_DEPTH_SUM) return false;
      if (chars > MAX_HTML_CHARS || textDepthSum > MAX_TEXT_DEPTH_SUM) return false;
    }
  }
  return true;
}

/** True when the page says it is an article: og:type, JSON-LD or microdata. */
export function declaresArticle($: CheerioAPI, ld: JsonLd): boolean {
  const ogType = elementsNamed($, "meta").some(
    (el) => el.attribs.property === "og:type" && collapse(el.attribs.content).toLowerCase() === "article",
  );
  if (ogType) return true;
  if (ld.nodes.some((node) => typesOf(node).some((type) => ARTICLE_TYPE.test(type)))) return true;
  return allElements($).some(
    (el) => el.attribs.itemprop === "articleBody" || /(?:Article|BlogPosting)\b/.test(el.attribs.itemtype ?? ""),
  );
}

/**
 * The article's lines as Readability finds them, or null: when the page does not declare itself an article, is past
 * the bounds, or Readability finds less than MIN_ARTICLE_CHARS of text.
 */
function readabilityLines($: CheerioAPI, ld: JsonLd): string[] | null {
  if (!declaresArticle($, ld) || !withinBounds($.root().get(0)!)) return null;
  const html = $.html();
  if (html.length > MAX_HTML_CHARS) return null;
  // linkedom's Document is a structural match for what Readability reads, not the DOM lib's type.
  const doc = parseHTML(html).document as unknown as Document;
  const article = new Readability(doc, {
    disableJSONLD: true,
    maxElemsToParse: MAX_ELEMENTS,
    keepClasses: true,
  }).parse();
  if (!article?.content) return null;
  const root = loadHtml(article.content).root().get(0)!;
  const furniture = furnitureIn(root);
  const lines = blockLines(root, (el) => furniture.has(el));
  return lines.reduce((sum, line) => sum + line.length, 0) >= MIN_ARTICLE_CHARS ? lines : null;
}

// Furniture, by an element's class, id, role or label: menus outside <nav>, link lists ("related", "most read",
// "trending"), share bars, comment threads, subscription, paywall and advertising prompts, breadcrumbs. What a name
// alone would also catch on a pricing or landing page is held back by a second condition: a "most-popular" plan card
// or a "social-proof" band is not a list of links, and a "subscribe" box that quotes a price is a plan.

/**
 * A name among the words of a class, id, role or label, words being split at spaces, "-" and "_" ("plan--popular"
 * holds "popular"). Tested on the attributes as they are, without splitting them: a 5 MB class attribute costs one
 * scan.
 */
const named = (names: string): RegExp => new RegExp(`(?:^|[\\s_-])(?:${names})(?=$|[\\s_-])`, "i");
const LINK_LIST = named(
  "related|recommended|recommendations|popular|trending|latest|outbrain|taboola|more[-_]?stories|read[-_]?next|most[-_]?(?:read|popular|viewed|shared|commented)",
);
const MENU = named(
  "menu|menus|submenu|mega[-_]?menu|navbar|nav|navigation|topbar|top[-_]?bar|header[-_]?links|site[-_]?header|masthead|dropdown",
);
const SHARE = named(
  "share|shares|sharing|sharebar|share[-_]?(?:bar|buttons|tools|links)|social[-_]?(?:share|sharing|links|icons|buttons)|addthis|sharethis|sharedaddy",
);
/** "social" alone also names a social-proof band or an embedded post ("social-media-embed"): only its links go. */
const SOCIAL = named("social");
const EMBED = named("embed");
const COMMENTS = named("comment|comments|commentlist|comment[-_]?list|disqus|disqus[-_]?thread");
const PROMPT = named(
  "newsletter|subscribe|paywall|advert|advertisement|ad[-_]?slot|ad[-_]?container|sponsored|breadcrumb|breadcrumbs|pagination|pager",
);
/** Headings that open a list of other pages. */
const LINK_LIST_HEADING =
  /^\s*(?:related(?:\s+(?:articles|posts|stories|content|reading|coverage))?|you\s+(?:may|might)\s+(?:also\s+)?like|more\s+(?:from|on|stories|news|like\s+this|to\s+(?:read|explore))|most\s+(?:read|popular|viewed|shared)|trending(?:\s+now)?|popular(?:\s+(?:posts|stories|articles|now))?|recommended(?:\s+for\s+you)?|read\s+(?:next|more)|latest\s+(?:news|posts|stories)|don'?t\s+miss|see\s+(?:also|more))\b/i;
/** A currency symbol or code; with a digit in the same element, the element quotes a price. */
const CURRENCY = /[$€£¥₹]|\b(?:USD|EUR|GBP)\b/;
/** A share bar is short: its text is button labels and counts. */
const SHARE_MAX_CHARS = 120;
/** A prompt is a few sentences at most. */
const PROMPT_MAX_CHARS = 600;
/** Share of an element's text inside links above which it is a list of links. */
const LINK_DENSITY = 0.5;
/** Longest heading read as the title of a list ("Related", "More from the newsroom"). */
const HEADING_MAX_CHARS = 60;

/** The words furniture is named by: class, id, role and label. */
function namesOf(el: Element): string {
  const { id, class: className, role } = el.attribs;
  const label = el.attribs["aria-label"];
  return !id && !className && !role && !label ? "" : `${id ?? ""} ${className ?? ""} ${role ?? ""} ${label ?? ""}`;
}

/** Characters of `text` other than whitespace (as collapse() reads it, near enough for a share of link text). */
function visibleLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 32 && code !== 160) count += 1;
  }
  return count;
}

const HOLDS_PAGE = new Set(["h1", "main", "article"]);

/**
 * The elements under `main` in document order, and each one's position among them (-1 for any other node): read off
 * the page's index when it holds `main` (no walk of the page of its own), else found here.
 */
function positions(
  main: AnyNode,
  index: ElementIndex | undefined,
): { elements: Element[]; positionOf: (node: AnyNode | null) => number } {
  if (index && (main === index.root || index.at(main) !== -1)) {
    const elements = main === index.root ? index.elements : index.inside(main as Element);
    const start = main === index.root ? 0 : index.at(main) + 1;
    const end = start + elements.length;
    return {
      elements,
      positionOf: (node) => {
        const i = index.at(node);
        return i >= start && i < end ? i - start : -1;
      },
    };
  }
  const elements = elementsIn(main);
  // Each element's position, kept on the element under a key of this call's own (faster than a Map of 200k).
  const key = Symbol("position");
  elements.forEach((el, i) => ((el as unknown as Record<symbol, number>)[key] = i));
  return {
    elements,
    positionOf: (node) => (node as unknown as Record<symbol, number> | null)?.[key] ?? -1,
  };
}

/**
 * The elements under `main` to leave out of its text (see the patterns above), decided in linear passes: the elements
 * in document order, their sizes bottom-up (non-space characters, those inside links, subtree size, whether they quote
 * a price or hold the page), then the decision top-down, skipping the inside of an element already left out. An
 * element that holds the page's <h1>, a <main>, an <article> or the articleBody is never left out, nor is `main`.
 */
export function furnitureIn(main: AnyNode, index?: ElementIndex): Set<Element> {
  const { elements, positionOf } = positions(main, index);
  const n = elements.length;
  const parentOf = new Int32Array(n).fill(-1);
  const chars = new Float64Array(n);
  const linkChars = new Float64Array(n);
  const size = new Int32Array(n).fill(1);
  const currency = new Uint8Array(n);
  const digit = new Uint8Array(n);
  const holdsPage = new Uint8Array(n);
  // Children come after their parent in document order: in a reverse pass each element's children are done (and
  // added to it) before it is, so its figures are complete once its own text is added.
  for (let i = n - 1; i >= 0; i -= 1) {
    const el = elements[i]!;
    let own = 0;
    for (const child of el.children) {
      if (child.type !== "text") continue;
      const data = (child as Text).data;
      own += visibleLength(data);
      if (!currency[i] && CURRENCY.test(data)) currency[i] = 1;
      if (!digit[i] && /\d/.test(data)) digit[i] = 1;
    }
    const total = chars[i]! + own;
    chars[i] = total;
    // Everything inside a link is link text, once (a link inside a link is not counted again).
    if (tagName(el) === "a") linkChars[i] = total;
    if (HOLDS_PAGE.has(tagName(el)) || el.attribs.itemprop === "articleBody") holdsPage[i] = 1;
    const parent = positionOf(el.parent);
    parentOf[i] = parent;
    if (parent === -1) continue;
    chars[parent] = chars[parent]! + total;
    linkChars[parent] = linkChars[parent]! + linkChars[i]!;
    size[parent] = size[parent]! + size[i]!;
    currency[parent] = currency[parent]! | currency[i]!;
    digit[parent] = digit[parent]! | digit[i]!;
    holdsPage[parent] = holdsPage[parent]! | holdsPage[i]!;
  }
  const density = (i: number): number => (chars[i]! > 0 ? linkChars[i]! / chars[i]! : 0);
  const quotesPrice = (i: number): boolean => currency[i] === 1 && digit[i] === 1;

  const furniture = new Set<Element>();
  /** The list a "Related"-style heading opens: the first container above it that holds more than the heading. */
  const listOf = (heading: number): number => {
    let at = heading;
    for (let up = 0; up < 4; up += 1) {
      if (parentOf[at] === -1) return -1;
      at = parentOf[at]!;
      if (chars[at]! > chars[heading]! * 1.5) return at;
    }
    return -1;
  };
  for (let i = 0; i < n; i += 1) {
    const el = elements[i]!;
    let out = -1;
    const names = holdsPage[i] ? "" : namesOf(el);
    if (names) {
      if (LINK_LIST.test(names) || MENU.test(names)) out = density(i) >= LINK_DENSITY ? i : -1;
      else if (COMMENTS.test(names)) out = i;
      else if (SHARE.test(names))
        out = (density(i) >= LINK_DENSITY || chars[i]! <= SHARE_MAX_CHARS) && !quotesPrice(i) ? i : -1;
      else if (SOCIAL.test(names) && !EMBED.test(names)) out = density(i) >= LINK_DENSITY ? i : -1;
      else if (PROMPT.test(names)) out = chars[i]! <= PROMPT_MAX_CHARS && !quotesPrice(i) ? i : -1;
    }
    if (
      out === -1 &&
      /^h[2-6]$/.test(tagName(el)) &&
      chars[i]! <= HEADING_MAX_CHARS &&
      LINK_LIST_HEADING.test(textContent(el))
    ) {
      const list = listOf(i);
      if (list !== -1 && !holdsPage[list] && density(list) >= LINK_DENSITY) furniture.add(elements[list]!);
      // The list holds the heading: what follows the heading inside it is skipped with it by blockLines.
      continue;
    }
    if (out === -1) continue;
    furniture.add(el);
    i += size[i]! - 1;
  }
  return furniture;
}

/**
 * The page's main text, one block per line (unmasked: the caller masks). `$` is the cleaned document (after
 * stripNonContent and stripBoilerplate) and `mainNode` its main node; neither is changed. Readability is asked only
 * when the page `mayBeArticle` (it declares itself one and states no plans).
 */
export function mainTextLines(
  $: CheerioAPI,
  mainNode: AnyNode,
  ld: JsonLd,
  mayBeArticle = true,
  index?: ElementIndex,
): string[] {
  try {
    const lines = mayBeArticle ? readabilityLines($, ld) : null;
    if (lines) return lines;
  } catch {
    // Readability throws on a page past maxElemsToParse, and may on markup linkedom builds oddly: the main node
    // still has the text.
  }
  const furniture = furnitureIn(mainNode, index);
  return blockLines(mainNode, (el) => furniture.has(el));
}
