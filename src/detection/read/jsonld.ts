/**
 * JSON-LD (`<script type="application/ld+json">`) as published in the wild: single objects, arrays, `@graph`,
 * nodes referenced by `@id`, types with or without a schema.org prefix, keys and types in any case (`Offers`,
 * `PriceCurrency`, `"@type": "product"`), and blocks that are not quite JSON (HTML comments, CDATA wrappers, raw
 * newlines inside strings, trailing commas). Invalid blocks are skipped.
 *
 * The same node list also carries the page's microdata items, converted to the same shape (microdata.ts, read by
 * offers.ts's readStructuredData): readers of `nodes` see schema.org data whatever syntax the page used.
 */
import type { CheerioAPI } from "cheerio";
import { collapse, elementsNamed, textContent } from "../parse/html.js";

export type JsonObject = Record<string, unknown>;

export interface JsonLd {
  /** Every typed object, in document order (pre-order, so a Product precedes its nested Offers). */
  nodes: JsonObject[];
  byId: Map<string, JsonObject>;
  /**
   * Product price meta tags (OpenGraph `og:price:*`, `product:price:*`, `product:sale_price:*`) with `og:title` and
   * the page title, as [name, content] pairs in document order; absent when not read (offers.ts's readProductMeta).
   */
  meta?: [string, string][];
}

const MAX_NODES = 5000;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Above this many keys an object's lowercase key map is built once rather than scanned per lookup. */
const SCAN_KEYS = 16;
const lowerKeys = new WeakMap<JsonObject, Map<string, string>>();

/**
 * A property whatever the case its publisher wrote the key in (`offers`, `Offers`, `OFFERS`): JSON-LD keys are
 * case-sensitive, but sites hand-write them, and a capitalised key means the same to every reader that matters.
 */
export function prop(node: JsonObject, key: string): unknown {
  const exact = node[key];
  if (exact !== undefined) return exact;
  const lower = key.toLowerCase();
  const keys = Object.keys(node);
  if (keys.length <= SCAN_KEYS) {
    for (const k of keys) if (k.toLowerCase() === lower) return node[k];
    return undefined;
  }
  let map = lowerKeys.get(node);
  if (!map) {
    map = new Map();
    for (const k of keys) if (!map.has(k.toLowerCase())) map.set(k.toLowerCase(), k);
    lowerKeys.set(node, map);
  }
  const found = map.get(lower);
  return found === undefined ? undefined : node[found];
}

/** Types without their vocabulary prefix: "http://schema.org/Product" and "schema:Product" → "Product". */
export function typesOf(node: JsonObject): string[] {
  return asArray(prop(node, "@type"))
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.trim().replace(/^.*[/#:]/, ""));
}

/** Whether the node has one of `types`, compared without case ("product" is a Product: published that way). */
export function hasType(node: JsonObject, ...types: string[]): boolean {
  const wanted = types.map((t) => t.toLowerCase());
  return typesOf(node).some((t) => wanted.includes(t.toLowerCase()));
}

/** A string property: strings and numbers as text, `{ "@value": … }` and `{ name }` objects unwrapped. */
export function textOf(value: unknown): string | null {
  for (const item of asArray(value)) {
    if (typeof item === "string" || typeof item === "number") {
      const text = collapse(String(item));
      if (text) return text;
    } else if (isObject(item)) {
      const inner = textOf(item["@value"] ?? item.name ?? item.value);
      if (inner) return inner;
    }
  }
  return null;
}

function parseLenient(raw: string): unknown {
  const stripped = raw
    .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, "")
    .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)\s*$/, "")
    .trim();
  if (!stripped) return undefined;
  try {
    return JSON.parse(stripped);
  } catch {
    // Common publishing mistakes: raw control characters inside strings, trailing commas.
    // eslint-disable-next-line no-control-regex -- raw control characters are exactly what breaks such blocks
    const repaired = stripped.replace(/[\u0000-\u001f]+/g, " ").replace(/,\s*([}\]])/g, "$1");
    try {
      return JSON.parse(repaired);
    } catch {
      return undefined;
    }
  }
}

/**
 * Adds the typed objects of one document (a parsed JSON-LD block, or a microdata item in the same shape) to `ld`,
 * pre-order, and indexes those with an `@id`. Iterative: a deeply nested document cannot overflow the stack. Parsed
 * JSON is a tree, but microdata items can be shared (itemref puts one item into many): `visited`, when given, makes
 * each object count once however many documents hold it.
 */
export function addDocument(ld: JsonLd, document: unknown, visited?: Set<object>): void {
  const { nodes, byId } = ld;
  const stack: unknown[] = [document];
  while (stack.length > 0 && nodes.length < MAX_NODES) {
    const value = stack.pop();
    if (visited && typeof value === "object" && value !== null) {
      if (visited.has(value)) continue;
      visited.add(value);
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push(value[i]);
      continue;
    }
    if (!isObject(value)) continue;
    const typed = prop(value, "@type") !== undefined;
    if (typed) nodes.push(value);
    const id = prop(value, "@id");
    if (typeof id === "string" && (typed || Object.keys(value).length > 1)) {
      if (!byId.has(id)) byId.set(id, value);
    }
    const children = Object.entries(value).filter(([key]) => key !== "@context");
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]![1]);
  }
}

export function readJsonLd($: CheerioAPI): JsonLd {
  const ld: JsonLd = { nodes: [], byId: new Map() };
  for (const el of elementsNamed($, "script")) {
    const type = (el.attribs.type ?? "").toLowerCase().split(";")[0]!.trim();
    if (type === "application/ld+json") addDocument(ld, parseLenient(textContent(el)));
  }
  return ld;
}

/** Follows an `{ "@id": … }` reference to the full node when the document defines it. */
export function resolveRef(ld: JsonLd, value: unknown): unknown {
  if (!isObject(value)) return value;
  const id = prop(value, "@id");
  if (typeof id === "string" && prop(value, "@type") === undefined) return ld.byId.get(id) ?? value;
  return value;
}
