/**
 * JSON-LD (`<script type="application/ld+json">`) as published in the wild: single objects, arrays, `@graph`,
 * nodes referenced by `@id`, types with or without a schema.org prefix, and blocks that are not quite JSON
 * (HTML comments, CDATA wrappers, raw newlines inside strings, trailing commas). Invalid blocks are skipped.
 */
import type { CheerioAPI } from "cheerio";
import { collapse, textContent } from "./html.js";

export type JsonObject = Record<string, unknown>;

export interface JsonLd {
  /** Every typed object, in document order (pre-order, so a Product precedes its nested Offers). */
  nodes: JsonObject[];
  byId: Map<string, JsonObject>;
}

const MAX_NODES = 5000;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Types without their vocabulary prefix: "http://schema.org/Product" and "schema:Product" → "Product". */
export function typesOf(node: JsonObject): string[] {
  return asArray(node["@type"])
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.replace(/^.*[/#:]/, ""));
}

export function hasType(node: JsonObject, ...types: string[]): boolean {
  return typesOf(node).some((t) => types.includes(t));
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

export function readJsonLd($: CheerioAPI): JsonLd {
  const nodes: JsonObject[] = [];
  const byId = new Map<string, JsonObject>();
  $("script").each((_, el) => {
    const type = (el.attribs.type ?? "").toLowerCase().split(";")[0]!.trim();
    if (type !== "application/ld+json") return;
    const parsed = parseLenient(textContent(el));
    const stack: unknown[] = [parsed];
    while (stack.length > 0 && nodes.length < MAX_NODES) {
      const value = stack.pop();
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i -= 1) stack.push(value[i]);
        continue;
      }
      if (!isObject(value)) continue;
      if (value["@type"] !== undefined) nodes.push(value);
      const id = value["@id"];
      if (typeof id === "string" && (value["@type"] !== undefined || Object.keys(value).length > 1)) {
        if (!byId.has(id)) byId.set(id, value);
      }
      const children = Object.entries(value).filter(([key]) => key !== "@context");
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]![1]);
    }
  });
  return { nodes, byId };
}

/** Follows an `{ "@id": … }` reference to the full node when the document defines it. */
export function resolveRef(ld: JsonLd, value: unknown): unknown {
  if (isObject(value) && typeof value["@id"] === "string" && value["@type"] === undefined) {
    return ld.byId.get(value["@id"]) ?? value;
  }
  return value;
}
