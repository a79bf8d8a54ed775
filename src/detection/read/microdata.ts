/**
 * HTML microdata (`itemscope` / `itemtype` / `itemprop` / `itemref`, WHATWG HTML §5) read from the parsed tree the
 * extractor already has, before anything is removed from it (`<meta itemprop>` and `<link itemprop>` in the body
 * are exactly what the boilerplate pass would drop). Items come out in the shape of JSON-LD nodes, so one reader
 * serves both syntaxes (offers.ts, jobs.ts): `{ "@type": ["http://schema.org/Offer"], "price": "119.99", … }`, a
 * property with several values as an array, nested items as nested objects.
 *
 * Not a general-purpose parser: a property's value is the `content` attribute when there is one (what sites put
 * the machine-readable price in, `<span itemprop="price" content="119.99">$119.99</span>`, whatever the element),
 * else what the HTML standard says for the element (meta `content`, link/a `href`, img `src`, time `datetime`,
 * data/meter `value`), else its text. No npm package fitted: microdata-node 2.0 parses the HTML again with
 * htmlparser2 4 (a second parse of a body up to 5 MB) and has not been released since 2020.
 *
 * Linear on hostile input: one walk of the tree; text values are read with a shared budget (an itemprop on the
 * body nested 500 deep would otherwise read the page 500 times), itemref with another.
 */
import type { AnyNode, Element, Text } from "domhandler";
import { collapse, isElement } from "../parse/html.js";
import type { JsonObject } from "./jsonld.js";

/** As many items as JSON-LD nodes are kept (jsonld.ts): more is not a page, it is an attack. */
const MAX_ITEMS = 5000;
/** Values of one property kept per item: a product lists a few images, not thousands. */
const MAX_VALUES = 200;
/** A text value longer than this is a description, never a price or a name we read. */
const MAX_TEXT = 2000;
/** Nodes visited to read text values, for the whole page. */
const TEXT_BUDGET = 2_000_000;
/** Nodes visited following itemref, for the whole page. */
const REF_BUDGET = 200_000;

/** Elements that hold no page content (template content is a separate fragment in parse5, so it is never visited). */
const SKIPPED = new Set(["script", "style", "template", "noscript"]);
const SRC_TAGS = new Set(["img", "audio", "video", "source", "embed", "iframe", "track"]);
const HREF_TAGS = new Set(["a", "area", "link"]);

interface Budget {
  text: number;
  refs: number;
}

/** The top-level items of the page (and items with an itemprop but no item above them), in document order. */
export function readMicrodata(root: AnyNode): JsonObject[] {
  const tops: JsonObject[] = [];
  const orphans = new Set<JsonObject>();
  const itemOf = new Map<Element, JsonObject>();
  const refs: [JsonObject, string[]][] = [];
  const budget: Budget = { text: TEXT_BUDGET, refs: REF_BUDGET };
  const stack: [AnyNode, JsonObject | null][] = [[root, null]];
  while (stack.length > 0) {
    const [node, owner] = stack.pop()!;
    let childOwner = owner;
    if (isElement(node)) {
      const tag = node.name.toLowerCase();
      if (SKIPPED.has(tag)) continue;
      const { attribs } = node;
      const names = propNames(attribs.itemprop);
      if (attribs.itemscope !== undefined && itemOf.size < MAX_ITEMS) {
        const item = newItem(node);
        itemOf.set(node, item);
        if (names.length > 0 && owner) addValue(owner, names, item);
        else {
          tops.push(item);
          if (names.length > 0) orphans.add(item);
        }
        const ids = (attribs.itemref ?? "").split(/\s+/).filter(Boolean);
        if (ids.length > 0) refs.push([item, ids]);
        childOwner = item;
      } else if (names.length > 0 && owner) {
        addValue(owner, names, valueOf(node, tag, budget));
      }
    }
    if ("children" in node && Array.isArray(node.children)) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push([node.children[i]!, childOwner]);
    }
  }
  if (refs.length === 0) return tops;
  const attached = followRefs(root, refs, itemOf, budget);
  // An item given an itemprop and reached only through itemref is a property, not an item of its own.
  return tops.filter((item) => !(orphans.has(item) && attached.has(item)));
}

function propNames(raw: string | undefined): string[] {
  if (!raw) return [];
  // Full-URL property names ("http://schema.org/price") mean the same as the short ones.
  return raw
    .split(/\s+/)
    .map((name) => name.replace(/^.*[/#]/, ""))
    .filter((name) => name.length > 0 && !name.startsWith("@"));
}

function newItem(el: Element): JsonObject {
  const item: JsonObject = {};
  const types = (el.attribs.itemtype ?? "").split(/\s+/).filter(Boolean);
  if (types.length > 0) item["@type"] = types;
  const id = collapse(el.attribs.itemid);
  if (id) item["@id"] = id;
  return item;
}

function addValue(item: JsonObject, names: string[], value: unknown): void {
  for (const name of names) {
    const existing = item[name];
    if (existing === undefined) item[name] = value;
    else if (Array.isArray(existing)) {
      if (existing.length < MAX_VALUES) existing.push(value);
    } else item[name] = [existing, value];
  }
}

/** A non-item property value: the `content` attribute first (see the file comment), then the element's own rule. */
function valueOf(el: Element, tag: string, budget: Budget): string {
  const { attribs } = el;
  if (attribs.content !== undefined) return collapse(attribs.content);
  if (tag === "meta") return "";
  if (HREF_TAGS.has(tag)) return collapse(attribs.href);
  if (SRC_TAGS.has(tag)) return collapse(attribs.src);
  if (tag === "object") return collapse(attribs.data);
  if ((tag === "data" || tag === "meter") && attribs.value !== undefined) return collapse(attribs.value);
  if (tag === "time" && attribs.datetime !== undefined) return collapse(attribs.datetime);
  return boundedText(el, budget);
}

/**
 * The element's text, up to MAX_TEXT characters and within the page's text budget. Raw text is taken up to four
 * times that (whitespace collapses), never a whole megabyte text node: each of 500 nested itemprops would copy it.
 */
function boundedText(el: Element, budget: Budget): string {
  let out = "";
  const rawLimit = MAX_TEXT * 4;
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && budget.text > 0 && out.length < rawLimit) {
    const node = stack.pop()!;
    budget.text -= 1;
    if (node.type === "text") {
      out += (node as Text).data.slice(0, rawLimit - out.length);
      continue;
    }
    if (isElement(node) && node !== el && SKIPPED.has(node.name.toLowerCase())) continue;
    if ("children" in node && Array.isArray(node.children)) {
      budget.text -= node.children.length;
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  return collapse(out).slice(0, MAX_TEXT);
}

/**
 * Adds to each item with an itemref the properties of the elements it names (as extruct does: an element with an
 * itemprop gives its value; one without, or an item without an itemprop, gives the properties inside it). Returns
 * the items that were attached as a property this way.
 */
function followRefs(
  root: AnyNode,
  refs: [JsonObject, string[]][],
  itemOf: Map<Element, JsonObject>,
  budget: Budget,
): Set<JsonObject> {
  const byId = new Map<string, Element>();
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node)) {
      const id = node.attribs.id;
      if (id && !byId.has(id)) byId.set(id, node);
    }
    if ("children" in node && Array.isArray(node.children)) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
  }
  const attached = new Set<JsonObject>();
  for (const [item, ids] of refs) {
    for (const id of ids) {
      const start = byId.get(id);
      if (!start) continue;
      const walk: AnyNode[] = [start];
      while (walk.length > 0 && budget.refs > 0) {
        const node = walk.pop()!;
        budget.refs -= 1;
        if (!isElement(node)) continue;
        const tag = node.name.toLowerCase();
        if (SKIPPED.has(tag)) continue;
        const names = propNames(node.attribs.itemprop);
        const nested = itemOf.get(node);
        // The item's own element, reached again through a reference to one of its ancestors, adds nothing.
        if (nested === item) continue;
        if (names.length > 0) {
          const value = nested ?? valueOf(node, tag, budget);
          addValue(item, names, value);
          if (nested) attached.add(nested);
        }
        if (nested && names.length > 0) continue;
        for (let i = node.children.length - 1; i >= 0; i -= 1) walk.push(node.children[i]!);
      }
    }
  }
  return attached;
}
