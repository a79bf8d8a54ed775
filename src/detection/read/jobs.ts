/**
 * Open jobs. A structured-data JobPosting (JSON-LD or microdata, read into the same nodes: offers.ts's
 * readStructuredData) when the page publishes one (the structured data Google for Jobs reads, so it is usually
 * complete); otherwise the visible job list: Lever-style `.posting`, Greenhouse-style `.opening`, elements
 * classed job/position/opening/role/career, list items under an "Open positions" heading, and links to applicant
 * tracking systems. Both sources are never mixed: their keys differ, so mixing would count every job twice.
 */
import type { JobPosting } from "../types.js";
import {
  absoluteUrl,
  blockLines,
  classTokens,
  collapse,
  isElement,
  isHeading,
  nextElementSibling,
  tagName,
  textContent,
  type AnyNode,
  type Element,
  shortText,
} from "../parse/html.js";
import { asArray, hasType, isObject, prop, resolveRef, textOf, type JsonLd, type JsonObject } from "./jsonld.js";
import { ElementIndex } from "../parse/tree.js";

function jobKey(id: string | null, url: string | null, title: string, location: string | null): string {
  return id ?? url ?? `${title}|${location ?? ""}`.toLowerCase();
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-LD

function addressText(ld: JsonLd, value: unknown): string | null {
  const address = resolveRef(ld, value);
  if (typeof address === "string") return collapse(address) || null;
  if (!isObject(address)) return null;
  const parts: string[] = [];
  for (const field of [
    prop(address, "addressLocality"),
    prop(address, "addressRegion"),
    prop(address, "addressCountry"),
  ]) {
    const text = textOf(field);
    if (text && !parts.includes(text)) parts.push(text);
  }
  return parts.length > 0 ? parts.join(", ") : null;
}

function locationOf(ld: JsonLd, posting: JsonObject): string | null {
  const locations: string[] = [];
  for (const raw of asArray(prop(posting, "jobLocation"))) {
    const place = resolveRef(ld, raw);
    const text = isObject(place)
      ? (addressText(ld, prop(place, "address")) ?? textOf(prop(place, "name")))
      : addressText(ld, place);
    if (text && !locations.includes(text)) locations.push(text);
  }
  const remote = asArray(prop(posting, "jobLocationType")).some(
    (type) => typeof type === "string" && /telecommute/i.test(type),
  );
  if (remote && !locations.includes("Remote")) locations.push("Remote");
  return locations.length > 0 ? locations.join(" / ") : null;
}

/** occupationalCategory (a name or "15-1252.00 Software Developers" O*NET code) or the non-standard department. */
function departmentOf(posting: JsonObject): string | null {
  const category = textOf(prop(posting, "occupationalCategory")) ?? textOf(prop(posting, "department"));
  if (!category) return null;
  return collapse(category.replace(/^\d{2}-\d{4}(?:\.\d{2})?\s*/, "")) || category;
}

function identifierOf(value: unknown): string | null {
  for (const item of asArray(value)) {
    if (typeof item === "string" || typeof item === "number") return collapse(String(item)) || null;
    if (isObject(item)) {
      const text = textOf(prop(item, "value") ?? prop(item, "@id"));
      if (text) return text;
    }
  }
  return null;
}

export function jobsFromJsonLd(ld: JsonLd, baseUrl: string): JobPosting[] {
  const jobs: JobPosting[] = [];
  for (const node of ld.nodes) {
    if (!hasType(node, "JobPosting")) continue;
    const title = textOf(prop(node, "title")) ?? textOf(prop(node, "name"));
    if (!title) continue;
    const url = absoluteUrl(textOf(prop(node, "url")), baseUrl);
    const location = locationOf(ld, node);
    jobs.push({
      key: jobKey(identifierOf(prop(node, "identifier")), url, title, location),
      title,
      location,
      department: departmentOf(node),
      url,
      origin: "jsonld",
    });
  }
  return jobs;
}

// ---------------------------------------------------------------------------------------------------------------
// Visible lists

/** A class token naming one job: "job", "job-card", "opening", "posting", "careers__job-row" ("position-relative" is not). */
const JOB_TOKEN_RE =
  /^(?:[a-z0-9]+(?:-|_|__))*(?:job|jobs|posting|opening|position|role|vacancy|career)(?:(?:-|_|__)(?:item|card|row|listing|entry|link|post|tile))?$/i;
const OPEN_POSITIONS_RE =
  /\b(?:open\s+(?:positions|roles|jobs|vacancies)|current\s+(?:openings|opportunities|positions|vacancies)|job\s+openings|all\s+(?:jobs|positions|openings)|we(?:'re|\s+are)\s+hiring|join\s+(?:us|our\s+team))\b/i;
const ATS_LINK_RE =
  /(?:jobs\.lever\.co|boards\.greenhouse\.io|job-boards\.greenhouse\.io|jobs\.ashbyhq\.com|apply\.workable\.com|\.recruitee\.com\/o\/|\.jobs\.personio\.|jobs\.smartrecruiters\.com|\.bamboohr\.com\/careers\/\d|\/(?:jobs|careers|positions|openings)\/[^/?#]+)/i;
const GENERIC_LINK_TEXT_RE =
  /^(?:apply(?: now)?|view (?:all )?(?:jobs|openings|positions|roles)|see (?:all )?(?:jobs|openings|positions|roles)|learn more|read more|details|more)$/i;
const GROUP_CLASS_RE = /category-title|category-header|large-category|department|group-title|team-title|team-name/i;

function firstText(index: ElementIndex, el: Element, predicate: (inner: Element) => boolean): string | null {
  for (const inner of index.inside(el)) {
    if (!predicate(inner) || index.visibleChars(inner) === 0) continue;
    const text = collapse(textContent(inner));
    if (text) return text;
  }
  return null;
}

const classMatches = (el: Element, re: RegExp): boolean => re.test(el.attribs.class ?? "");

function titleOf(
  index: ElementIndex,
  item: Element,
  location: string | null,
  department: string | null,
): string | null {
  const qa = firstText(index, item, (el) => el.attribs["data-qa"] === "posting-name");
  if (qa) return qa;
  const heading = firstText(index, item, (el) => isHeading(el));
  if (heading) return heading;
  const titled = firstText(index, item, (el) => classTokens(el).some((t) => /(?:^|[-_])(?:title|name)$/i.test(t)));
  if (titled && titled.length <= 120) return titled;
  const link = tagName(item) === "a" ? item : index.findInside(item, (el) => tagName(el) === "a");
  const source = link ? collapse(blockLines(link)[0] ?? "") : collapse(blockLines(item)[0] ?? "");
  let title = source;
  for (const extra of [location, department]) {
    if (extra && title.endsWith(extra)) title = collapse(title.slice(0, -extra.length));
  }
  title = title.replace(/[\s–—|·•,-]+$/, "");
  return title && title.length <= 120 ? title : null;
}

function urlOf(index: ElementIndex, item: Element, baseUrl: string): string | null {
  const links = tagName(item) === "a" ? [item] : index.inside(item).filter((el) => tagName(el) === "a");
  // The posting's own link before an "Apply" button's (Lever puts .posting-apply first).
  const generic = new Map(links.map((link) => [link, GENERIC_LINK_TEXT_RE.test(collapse(textContent(link)))]));
  links.sort((a, b) => Number(generic.get(a)) - Number(generic.get(b)));
  for (const link of links) {
    const url = absoluteUrl(link.attribs.href, baseUrl);
    if (url) return url;
  }
  for (let current = item.parent; current; current = current.parent) {
    if (isElement(current) && tagName(current) === "a") return absoluteUrl(current.attribs.href, baseUrl);
  }
  return null;
}

/** Headings longer than this are sections, not an "Open positions" heading; their text is not read in full. */
const MAX_HEADING_CHARS = 1000;

/** List items with a link, in the sections under "Open positions" headings. */
function itemsUnderHeadings(index: ElementIndex): Element[] {
  const holdsLink = index.holdsAny(index.elements.filter((el) => tagName(el) === "a" && el.attribs.href));
  const found = new Set<Element>();
  for (const heading of index.elements) {
    if (!isHeading(heading)) continue;
    const text = shortText(index, heading, MAX_HEADING_CHARS);
    if (text === null || !OPEN_POSITIONS_RE.test(text)) continue;
    const level = Number(tagName(heading).slice(1));
    // The heading may sit in its own wrapper (<div class="section-head"><h2>…</h2></div><ul>…): start after it.
    let anchor: Element = heading;
    for (let hops = 0; hops < 3 && !nextElementSibling(anchor) && isElement(anchor.parent); hops += 1)
      anchor = anchor.parent;
    for (let next = anchor.next; next; next = next.next) {
      if (!isElement(next)) continue;
      if (isHeading(next) && Number(tagName(next).slice(1)) <= level) break;
      for (const el of [next, ...index.inside(next)]) {
        if (tagName(el) === "li" && holdsLink(el)) found.add(el);
      }
    }
  }
  const innermost = new Set(index.innermost(found));
  return [...found].filter((el) => innermost.has(el));
}

/** Candidates, in priority order: class-named job items; list items under "Open positions"; links to an ATS. */
function jobItems(index: ElementIndex): Element[] {
  const all = index.elements;
  const classed = all.filter((el) => classTokens(el).some((token) => JOB_TOKEN_RE.test(token)));
  const usable = index.innermost(classed).filter((el) => {
    const text = shortText(index, el, 400);
    return text !== null && text.length > 0;
  });
  if (usable.length > 0) return usable;

  const underHeading = itemsUnderHeadings(index);
  if (underHeading.length > 0) return underHeading;

  return all.filter((el) => {
    if (tagName(el) !== "a" || !ATS_LINK_RE.test(el.attribs.href ?? "")) return false;
    const text = collapse(textContent(el));
    return !GENERIC_LINK_TEXT_RE.test(text) && text.length > 2;
  });
}

/** The group heading before an item (Greenhouse department <h3>, Lever `.posting-category-title`). */
function groupHeadings(index: ElementIndex, items: Element[]): Map<Element, string> {
  const out = new Map<Element, string>();
  let current: string | null = null;
  const itemSet = new Set(items);
  const insideItems = index.insideAny(items);
  // Only headings inside the smallest container of all items count: a hero <h1> is not a department.
  let scope: AnyNode | null = items[0] ?? null;
  while (scope && !items.every((item) => index.contains(scope!, item))) scope = scope.parent;
  // A scope the index does not hold is the root or above it: every element is in it.
  const inScope = (el: Element): boolean => !!scope && (index.at(scope) === -1 || index.contains(scope, el));
  for (const el of index.elements) {
    if (itemSet.has(el)) {
      if (current) out.set(el, current);
      continue;
    }
    if (!inScope(el) || insideItems(el)) continue;
    if ((isHeading(el) && tagName(el) !== "h1") || classMatches(el, GROUP_CLASS_RE)) {
      const text = shortText(index, el, MAX_HEADING_CHARS);
      if (text && text.length <= 80 && !OPEN_POSITIONS_RE.test(text)) current = text;
      else if (text && OPEN_POSITIONS_RE.test(text)) current = null;
    }
  }
  return out;
}

export function jobsFromList(root: AnyNode, baseUrl: string, index = new ElementIndex(root)): JobPosting[] {
  const items = jobItems(index).slice(0, 500);
  const groups = groupHeadings(index, items);
  const jobs: JobPosting[] = [];
  for (const item of items) {
    const location = firstText(index, item, (el) => classMatches(el, /location|office|city/i));
    const department =
      firstText(index, item, (el) => classMatches(el, /department|(?:^|[\s-])team\b|sort-by-team/i)) ??
      groups.get(item) ??
      null;
    const title = titleOf(index, item, location, department);
    if (!title) continue;
    const url = urlOf(index, item, baseUrl);
    if (!url && !location) continue;
    jobs.push({ key: jobKey(null, url, title, location), title, location, department, url, origin: "list" });
  }
  return jobs;
}

/** JSON-LD postings when there are any, else the visible list; deduplicated by key, first wins. */
export function extractJobs(root: AnyNode, ld: JsonLd, baseUrl: string, index = new ElementIndex(root)): JobPosting[] {
  const fromJsonLd = jobsFromJsonLd(ld, baseUrl);
  const jobs = fromJsonLd.length > 0 ? fromJsonLd : jobsFromList(root, baseUrl, index);
  const seen = new Set<string>();
  return jobs.filter((job) => (seen.has(job.key) ? false : (seen.add(job.key), true)));
}
