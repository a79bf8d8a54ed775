/**
 * Records from the page's own repetition (the data-record mining idea of MDR and DEPTA, on the DOM tree): plans on a
 * pricing page are sibling subtrees of one shape, each with a price of its own. One bottom-up pass over the tree counts
 * the price marks under every element; an element with two or more priced children is a candidate container, and its
 * priced children of one tag, each with a name before its price (names.ts), are a record set. The deepest set wins: a
 * section holding a grid of cards is not itself a record, but a card may hold records of its own (priced add-ons in its
 * feature list) and stay a record when its own price stands before them.
 *
 * Class names never decide: a Bootstrap card, a `div` column of a comparison grid with its name in a head cell, a table
 * row of one plan, or an `li` of a price list are found the same way.
 */
import {
  collapse,
  isElement,
  isHeading,
  previousElementSibling,
  tagName,
  textContent,
  type AnyNode,
  type Element,
} from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import { labelledSoftLine, phraseOfParagraph, softAmount, softMark, type PriceMark } from "./marks.js";
import { shapeOf } from "./grids.js";
import { tabsByPane } from "./tabs.js";
import { firstPriceIndex } from "./money.js";
import { namedHead, sentenceAboutPrice } from "./context.js";
import { hasOwnText, nameCandidates, namesItself, nameText, plausibleName, type NameCandidate } from "./names.js";

export interface FoundRecord {
  el: Element;
  nameEl: Element;
  name: string;
  /** Its own price marks, in page order (not those of records inside it). */
  marks: PriceMark[];
  /** How many records its set has. */
  setSize: number;
}

const TABLE_SECTION_TAGS = new Set(["table", "thead", "tbody", "tfoot", "colgroup"]);
const CELL_TAGS = new Set(["td", "th", "tr"]);
const CELL_ROLES = new Set(["cell", "gridcell", "row", "columnheader", "rowheader"]);
const TABLE_SECTION_ROLES = new Set(["table", "grid", "treegrid", "rowgroup"]);

/** Above this many characters outside list items a subtree is a section of the page, not one record. */
const MAX_RECORD_CHARS = 3000;
/** …and above this many in all (an Enterprise card listing twenty features with descriptions stays below it). */
const MAX_RECORD_TOTAL_CHARS = 12_000;

export function findRecords(index: ElementIndex, marks: PriceMark[], claimed: Set<PriceMark>): FoundRecord[] {
  const { elements } = index;
  const open = new OpenMarks(
    index,
    marks.filter((mark) => !claimed.has(mark)),
  );
  const markAt = open.countAt;
  // Marks under each element that no record inside it has taken (all of them, and those with a number), and whether a
  // record lies inside it.
  const free = new Int32Array(elements.length);
  const numbers = new Int32Array(elements.length);
  const holdsRecord = new Uint8Array(elements.length);
  const recordAt = new Map<number, FoundRecord>();
  const records: FoundRecord[] = [];
  // What can name a record holds no number: "Free" in bold above "$0" is the plan's name, not its price.
  const holdsPrice = (el: Element): boolean => numbers[index.at(el)]! > 0 || holdsRecord[index.at(el)] === 1;

  for (let i = elements.length - 1; i >= 0; i--) {
    const el = elements[i]!;
    const children = el.children.filter(isElement);
    let count = markAt.get(i) ?? 0;
    let numeric = open.numericAt.get(i) ?? 0;
    let holds = 0;
    for (const child of children) {
      const c = index.at(child);
      if (c === -1) continue;
      count += free[c]!;
      numeric += numbers[c]!;
      if (holdsRecord[c] || recordAt.has(c)) holds = 1;
    }
    free[i] = count;
    numbers[i] = numeric;
    holdsRecord[i] = holds;
    const priced = children.filter((child) => free[index.at(child)]! > 0 && !recordAt.has(index.at(child)));
    if (priced.length < 2) continue;
    const set = recordSet(index, priced, holdsPrice, holdsRecord, open, (at) => recordAt.has(at));
    if (set.length < 2) continue;
    for (const record of set) {
      open.take(record.marks);
      const at = index.at(record.el);
      recordAt.set(at, record);
      records.push(record);
      free[i]! -= free[at]!;
      free[at] = 0;
      numbers[i]! -= numbers[at]!;
      numbers[at] = 0;
    }
    holdsRecord[i] = 1;
    // A sibling holding a set of its own (offers stacked in one column) is no offer without a price.
    const unstated = unstatedSiblings(
      index,
      children.filter((child) => holdsRecord[index.at(child)] !== 1),
      set,
    );
    records.push(...unstated, ...freeNamedSiblings(index, children, [...set, ...unstated]));
  }
  records.push(...twins(index, records, open, holdsRecord));
  records.push(...loneCardDecks(index, open, holdsPrice));
  records.push(...unpricedTwins(index, records));
  return namedByTabs(index, rowCells(index, optionLabels(index, records, holdsPrice), holdsPrice), holdsPrice).sort(
    (a, b) => index.at(a.el) - index.at(b.el),
  );
}

/** How many rows must name their cells alike for the names to be the grid's columns. */
const MIN_NAMED_ROWS = 2;

/**
 * Cells named alike row after row ("Pro", "Enterprise" over each cell of a comparison grid built of divs: a small
 * screen's column names, repeated in every row): the columns of a grid, not offers. A priced cell is its row's price
 * for that column, named by both ("Function Duration (Pro)" for "then $0.06 per GB-hour"); a cell that only says
 * "Custom" is the feature's value there, no price.
 */
function rowCells(index: ElementIndex, records: FoundRecord[], holdsPrice: (el: Element) => boolean): FoundRecord[] {
  const byRow = new Map<Element, FoundRecord[]>();
  for (const record of records) {
    const row = record.el.parent;
    if (!row || !isElement(row) || record.setSize < 2) continue;
    const cells = byRow.get(row) ?? [];
    cells.push(record);
    byRow.set(row, cells);
  }
  // Rows of one grid: siblings in one container, each naming its cells the same way.
  const signature = (row: Element, cells: FoundRecord[]) =>
    `${index.at(row.parent as Element)}|${cells.map((cell) => cell.name.toLowerCase()).join("|")}`;
  const counts = new Map<string, number>();
  for (const [row, cells] of byRow) {
    if (cells.length < 2) continue;
    const key = signature(row, cells);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const renamed = new Map<FoundRecord, FoundRecord | null>();
  const grids = new Set<AnyNode>();
  const valueOnly = (record: FoundRecord) =>
    record.marks.every((mark) => mark.soft && mark.options[0]!.amount === null);
  for (const [row, cells] of byRow) {
    if (cells.length < 2 || (counts.get(signature(row, cells)) ?? 0) < MIN_NAMED_ROWS) continue;
    if (row.parent) grids.add(row.parent);
    // The row's own label: what names it before its first cell.
    const label = nameCandidates(index, row, index.at(cells[0]!.el), holdsPrice).find(
      (candidate) => !cells.some((cell) => index.contains(cell.el, candidate.el)),
    );
    if (!label) continue;
    for (const cell of cells)
      renamed.set(cell, valueOnly(cell) ? null : { ...cell, name: `${label.name} (${cell.name})`, nameEl: label.el });
  }
  if (renamed.size === 0) return records;
  return records.flatMap((record) => {
    // A row of such a grid whose one priced cell says "Custom" ("Build Minutes | 1,000 | 5,000 | Custom"): the
    // feature's value, no offer.
    if (record.el.parent && grids.has(record.el.parent) && valueOnly(record)) return [];
    if (!renamed.has(record)) return [record];
    const cell = renamed.get(record);
    return cell ? [cell] : [];
  });
}

/** The words a tab shows when it switches billing, not offers ("Monthly", "Pay yearly"): such a tab names no record. */
const BILLING_TAB_RE = /\b(?:month(?:ly)?|annual(?:ly)?|year(?:ly)?|quarterly|weekly|billing|billed|prepaid|pay)\b/i;

/**
 * Records that are tab panes, named by their tabs: `<a role="tab" aria-controls="m4">macOS M4 + Linux X4</a>` names
 * the pane `<div id="m4">` whatever its sentence puts in bold ("access to **macOS M4** and **Linux X4** is $8,100").
 * The tab is what a visitor clicks to see the offer; a pane's own wording often names only a part of it. Tabs that
 * switch billing name no record. A pane beside them without a price that asks to be contacted ("To request this
 * plan, please contact us") is the offer its tab names, on request.
 */
function namedByTabs(index: ElementIndex, records: FoundRecord[], holdsPrice: (el: Element) => boolean): FoundRecord[] {
  const tabs = tabsByPane(index);
  if (tabs.size === 0) return records;
  const tabName = (pane: Element): { tab: Element; name: string } | null => {
    const tab = tabs.get(pane.attribs.id ?? "");
    // "Self-host (You host)", "Cloud pricing": the offer is "Self-host", "Cloud".
    const name = tab ? nameText(tab).replace(/\s*\([^)]*\)$|\s+(?:pricing|prices|plans?)$/i, "") : "";
    return tab && plausibleName(name) && !BILLING_TAB_RE.test(name) ? { tab, name } : null;
  };
  const panes = new Set<Element>();
  const named = records.map((record) => {
    const tab = tabName(record.el);
    if (!tab) return record;
    panes.add(record.el);
    return { ...record, name: tab.name, nameEl: tab.tab };
  });
  // A name read again in a later pane (a "Business" plan under "Cloud" and under "Self-host") is that pane's offer,
  // named with its tab; the first pane's, shown by default, keep their names, so a tab added later renames nothing.
  const paneOf = (el: Element): Element | null => {
    for (let node = el.parent, depth = 0; node && isElement(node) && depth < 12; node = node.parent, depth++)
      if (tabs.has(node.attribs.id ?? "")) return node;
    return null;
  };
  const seenIn = new Map<string, Element>();
  named.sort((a, b) => index.at(a.el) - index.at(b.el));
  for (const [k, record] of named.entries()) {
    const pane = panes.has(record.el) ? null : paneOf(record.el);
    const tab = pane && tabName(pane);
    if (!pane || !tab) continue;
    const key = record.name.toLowerCase();
    const first = seenIn.get(key);
    if (!first) seenIn.set(key, pane);
    else if (first !== pane) named[k] = { ...record, name: `${record.name} (${tab.name})` };
  }
  const groups = new Set([...panes].map((pane) => pane.parent));
  for (const group of groups) {
    if (!group || !isElement(group)) continue;
    for (const pane of group.children) {
      if (!isElement(pane) || panes.has(pane) || holdsPrice(pane) || index.visibleChars(pane) > MAX_TWIN_CHARS)
        continue;
      const tab = tabName(pane);
      if (!tab || !ON_REQUEST_RE.test(collapse(textContent(pane)))) continue;
      named.push({ el: pane, nameEl: tab.tab, name: tab.name, marks: [softMark(tab.tab, tab.name, null)], setSize: 1 });
    }
  }
  return named;
}

/** How many cards must repeat one set of labels under their prices for the labels to be options, not names. */
const MIN_OPTION_CARDS = 3;

/**
 * Labels under the prices of many cards, the same in each ("$11.00 / Buy", "$14.00 / Extend" in every domain's card):
 * the options each card prices, not records named "Buy" and "Extend". Each such card is one record with the prices
 * of its options, named by what stands before its first price (".ORG"). A record set named after its prices and
 * repeated in fewer cards (a monthly and a yearly pane) stays as it is.
 */
function optionLabels(
  index: ElementIndex,
  records: FoundRecord[],
  holdsPrice: (el: Element) => boolean,
): FoundRecord[] {
  const byCard = new Map<Element, FoundRecord[]>();
  for (const record of records) {
    const card = record.el.parent;
    const first = record.marks[0];
    // Named after its price: the label stands below the amount.
    if (!card || !isElement(card) || !first || index.at(record.nameEl) < index.at(first.el)) continue;
    const set = byCard.get(card) ?? [];
    set.push(record);
    byCard.set(card, set);
  }
  const signature = (set: FoundRecord[]) => set.map((record) => record.name.toLowerCase()).join("|");
  const counts = new Map<string, number>();
  for (const set of byCard.values())
    if (set.length >= 2) counts.set(signature(set), (counts.get(signature(set)) ?? 0) + 1);
  const merged = new Map<FoundRecord, FoundRecord | null>();
  for (const [card, set] of byCard) {
    if (set.length < 2 || (counts.get(signature(set)) ?? 0) < MIN_OPTION_CARDS) continue;
    const marks = set.flatMap((record) => record.marks).sort((a, b) => index.at(a.el) - index.at(b.el));
    const name = nameCandidates(index, card, index.at(marks[0]!.el), holdsPrice)[0];
    if (!name || index.at(name.el) > index.at(marks[0]!.el)) continue;
    const record = { el: card, nameEl: name.el, name: name.name, marks, setSize: 1 };
    set.forEach((option, k) => merged.set(option, k === 0 ? record : null));
  }
  if (merged.size === 0) return records;
  return records.flatMap((record) => {
    if (!merged.has(record)) return [record];
    const card = merged.get(record);
    return card ? [card] : [];
  });
}

/** How far above a "Contact us" its block may start. */
const MAX_CONTACT_DEPTH = 4;
/** …and how much it may say: a short offer, not a section of the page. */
const MAX_CONTACT_CHARS = 1500;

/**
 * Offers beside a set of plans that price themselves only by "Contact us": an Enterprise or open-source offer in a
 * block of its own below the plan cards (a heading, a sentence, a button). The block is a sibling of a record of the
 * set or of the set's container, states no number, holds no record, and is named by a heading before its mark.
 */
export function contactRecords(
  index: ElementIndex,
  marks: PriceMark[],
  claimed: Set<PriceMark>,
  records: readonly { el: Element }[],
): FoundRecord[] {
  if (records.length === 0) return [];
  const near = new Set<AnyNode>();
  for (const record of records) {
    if (record.el.parent) near.add(record.el.parent);
    if (record.el.parent?.parent) near.add(record.el.parent.parent);
  }
  const numeric = marks.filter((mark) => !mark.soft).map((mark) => index.at(mark.el));
  numeric.sort((a, b) => a - b);
  const holdsNumber = (el: Element): boolean => {
    const start = index.at(el);
    const end = start + index.sizeInside(el);
    let lo = 0;
    let hi = numeric.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (numeric[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    return lo < numeric.length && numeric[lo]! <= end;
  };
  const holdsRecord = (el: Element): boolean => records.some((record) => index.contains(el, record.el));
  const found: FoundRecord[] = [];
  const taken = new Set<Element>();
  for (const mark of marks) {
    if (!mark.soft || claimed.has(mark) || mark.options[0]!.amount !== null || inSentence(mark.el)) continue;
    let el: AnyNode | null = mark.el.parent;
    for (let depth = 0; el && isElement(el) && depth < MAX_CONTACT_DEPTH; depth++, el = el.parent) {
      const block: Element = el;
      if (taken.has(block) || holdsNumber(block) || holdsRecord(block) || index.visibleChars(block) > MAX_CONTACT_CHARS)
        break;
      if (!block.parent || !near.has(block.parent)) continue;
      const name =
        selfNamed(mark) ??
        nameCandidates(index, block, index.at(mark.el), holdsNumber).find((candidate) => isHeading(candidate.el));
      if (!name) break;
      taken.add(block);
      found.push({ el: block, nameEl: name.el, name: name.name, marks: [mark], setSize: 1 });
      break;
    }
  }
  return found;
}

/**
 * A `<table>` whose every row has one cell, a head cell only in its first row: a card (its name and price in the head,
 * its features below). One whose body rows are headed again ("For Cloud customers" over "$750/mo") is a section.
 */
function oneColumnTable(index: ElementIndex, table: Element): boolean {
  if (tagName(table) !== "table") return false;
  const rows = index.inside(table).filter((el) => tagName(el) === "tr");
  const cells = (row: Element) =>
    row.children.filter((cell): cell is Element => isElement(cell) && CELL_TAGS.has(tagName(cell)));
  return (
    rows.length >= 2 &&
    rows.every((row, k) => {
      const own = cells(row);
      return own.length === 1 && (k === 0 || tagName(own[0]!) === "td");
    })
  );
}

/** A link or label inside running text ("please <a>contact us</a>."), not a button of its own. */
function inSentence(el: Element): boolean {
  for (let node: Element = el; node.parent && isElement(node.parent); node = node.parent) {
    const siblings = node.parent.children.filter((child) => child !== node);
    if (siblings.some((child) => child.type === "text" && (child as { data: string }).data.trim() !== "")) return true;
    if (siblings.some(isElement)) return false;
  }
  return false;
}

/** A link asking to be contacted inside a sentence ("Please <a>contact us for a quote</a>."), not a button of its own. */
const contactLinkInSentence = (mark: PriceMark): boolean =>
  mark.options[0]!.amount === null && tagName(mark.el) === "a" && inSentence(mark.el);

/** Inside a paragraph right after a heading that asks a question: an answer. */
function inAnswer(el: Element): boolean {
  let block: AnyNode | null = el.parent;
  while (block && isElement(block) && tagName(block) !== "p") block = block.parent;
  let before: AnyNode | null = block ? block.prev : null;
  while (before && !isElement(before)) before = before.prev;
  return !!before && isElement(before) && isHeading(before) && /\?\s*$/.test(textContent(before));
}

/** "Free" as a trial's word: the text right after it says "trial". */
function freeTrialWord(mark: PriceMark): boolean {
  if (mark.options[0]!.amount !== 0) return false;
  let next = mark.el.next;
  while (next && next.type !== "text" && !isElement(next)) next = next.next;
  const text = next ? (isElement(next) ? textContent(next) : (next as { data: string }).data) : "";
  return /^\s*trials?\b/i.test(text);
}

/** A heading that names its offer and prices it in words ("Shared Agora: name your price"): its name. */
function selfNamed(mark: PriceMark): NameCandidate | null {
  return mark.soft && mark.lead !== undefined && isHeading(mark.el)
    ? { el: mark.el, name: mark.lead, score: 0, slot: "soft" }
    : null;
}

/** A name that says the plan is free: "Free Push", "Free", "Gratis". */
const FREE_PLAN_NAME_RE = /^(?:free|gratis|kostenlos|gratuit)\b/i;
/** Words that price an offer on request, even inside a sentence ("Contact us for more information."). */
const ON_REQUEST_RE =
  /\b(?:contact\s+(?:us|me|sales)|get\s+in\s+touch|talk\s+to\s+(?:us|sales)|request\s+a\s+quote)\b/i;
/** Words that say an offer costs nothing: "is free to use", "entirely open-source and free to use", "always free". */
const FREE_OFFER_RE =
  /\bfree\s+to\s+use\b|\b(?:is|are|always|forever|completely|entirely|totally)\s+free\b(?!\s+trial)/i;
/** How much a priceless block of the plans' shape may say: a card, not a section. */
const MAX_TWIN_CHARS = 600;

/**
 * Offers told without a price, in the plans' own template: a block headed by an element of the set's name shape
 * (classed: `h2.plan-name`) with no price of its own is a free plan when its name says "Free" ("Free Push" over "Our
 * free plan can provide…", at 0), and an offer on request when it asks to be contacted ("Tribe" over "Share a coworking
 * package with your team! Contact us for more information.", without an amount).
 */
function unpricedTwins(index: ElementIndex, records: FoundRecord[]): FoundRecord[] {
  const shapes = new Set(records.map((record) => shapeOf(record.nameEl)).filter((shape) => !shape.endsWith(".")));
  if (shapes.size === 0) return [];
  const named = new Set(records.map((record) => record.name.toLowerCase()));
  const inRecord = index.insideAny(records.map((record) => record.el));
  const found: FoundRecord[] = [];
  const tags = new Set([...shapes].map((shape) => shape.slice(0, shape.indexOf("."))));
  for (const el of index.elements) {
    if (!tags.has(tagName(el)) || index.visibleChars(el) > 40 || !shapes.has(shapeOf(el)) || inRecord(el)) continue;
    const name = nameText(el);
    if (!plausibleName(name) || named.has(name.toLowerCase())) continue;
    const block = el.parent && isElement(el.parent) ? el.parent : el;
    const text = index.visibleChars(block) <= MAX_TWIN_CHARS ? collapse(textContent(block)) : "";
    // A block that says its offer is free ("Undercover CI … is free to use for non-profit public repositories") is
    // free, though it asks to be contacted for more ("Get in touch to get support").
    const free = FREE_PLAN_NAME_RE.test(name) || FREE_OFFER_RE.test(text);
    const onRequest = !free && ON_REQUEST_RE.test(text);
    if (!free && !onRequest) continue;
    found.push({ el: block, nameEl: el, name, marks: [softMark(el, name, onRequest ? null : 0)], setSize: 1 });
    named.add(name.toLowerCase());
  }
  return found;
}

/** How far above its price a card of a deck may start, how many children a deck may have, what a card is built of. */
const DECK_CARD_LEVELS = 5;
const MAX_DECK_CHILDREN = 24;
const DECK_CARD_TAGS = new Set(["div", "li", "section", "article"]);

/**
 * A deck of cards where one states a price and a card of its shape beside it says, in words, that its offer is free
 * or on request ("GitHub App | $49 per month" beside "Open Source | The project is entirely open-source and free to
 * use …"): the plans, each named where the priced card has its name. One price alone is no set of records, so without
 * this the priced card is read by its context and the free one not at all. The twin's name element is of the priced
 * card's name's tag and classes, at the same path of children from the card down; the twin holds no price of its own.
 */
function loneCardDecks(index: ElementIndex, open: OpenMarks, holdsPrice: (el: Element) => boolean): FoundRecord[] {
  const found: FoundRecord[] = [];
  for (const mark of open.all()) {
    if (mark.soft || mark.prose || !mark.standalone || open.isTaken(mark)) continue;
    let card: Element = mark.el;
    for (let level = 0; level < DECK_CARD_LEVELS; level++) {
      const deck = card.parent;
      if (!deck || !isElement(deck)) break;
      // A deck is a few cards: a parent of thousands of children is a list, looked at no further.
      const cards =
        deck.children.length <= MAX_DECK_CHILDREN
          ? deck.children.filter(
              (child): child is Element => isElement(child) && child !== card && tagName(child) === tagName(card),
            )
          : [];
      const twins = cards.length > 0 ? deckTwins(index, open, holdsPrice, card, mark, cards) : null;
      if (twins) {
        const marks = open.inside(card);
        open.take(marks);
        found.push({ ...twins.priced, marks, setSize: twins.free.length + 1 }, ...twins.free);
        break;
      }
      if (open.inside(deck).some((other) => other !== mark && !other.soft)) break;
      card = deck;
    }
  }
  return found;
}

/** The priced card of a deck, named, and the cards of its shape that say their offer is free or on request. */
function deckTwins(
  index: ElementIndex,
  open: OpenMarks,
  holdsPrice: (el: Element) => boolean,
  card: Element,
  mark: PriceMark,
  others: Element[],
): { priced: FoundRecord; free: FoundRecord[] } | null {
  if (!DECK_CARD_TAGS.has(tagName(card)) || index.visibleChars(card) > MAX_RECORD_TOTAL_CHARS) return null;
  // A card's name is a heading or says it is one: a link or bold words in a paragraph beside are not cards' names.
  const candidate = nameCandidates(index, card, index.at(mark.el), holdsPrice, { priced: true })[0];
  if (!candidate || !index.contains(card, candidate.el) || candidate.el === card || !namesItself(candidate.el))
    return null;
  const namePath = childPath(card, candidate.el);
  if (!namePath) return null;
  const shape = shapeOf(candidate.el);
  const free: FoundRecord[] = [];
  for (const other of others) {
    if (open.inside(other).length > 0 || index.visibleChars(other) > MAX_TWIN_CHARS) continue;
    const nameEl = followPath(other, namePath);
    if (!nameEl || shapeOf(nameEl) !== shape) continue;
    const name = nameText(nameEl);
    if (!plausibleName(name) || name.toLowerCase() === candidate.name.toLowerCase()) continue;
    const text = collapse(textContent(other));
    const isFree = FREE_PLAN_NAME_RE.test(name) || FREE_OFFER_RE.test(text);
    if (!isFree && !ON_REQUEST_RE.test(text)) continue;
    free.push({ el: other, nameEl, name, marks: [softMark(nameEl, name, isFree ? 0 : null)], setSize: 1 });
  }
  if (free.length === 0) return null;
  return { priced: { el: card, nameEl: candidate.el, name: candidate.name, marks: [mark], setSize: 1 }, free };
}

/** The most a block's price place may say without an amount ("Cluster / month", "$$", "Pay per cluster"). */
const MAX_UNSTATED_CHARS = 30;

/**
 * A card of the set's own template, beside its cards, whose price place holds words instead of an amount ("OpenFaaS
 * Pro | Cluster / month" beside "$0 / month" and "Talk to us"): an offer whose price the page does not state, read
 * without an amount. Its name and price place sit where a record of the set has them (the same path of children from
 * the card down), its name element of the same tag and classes.
 */
function unstatedSiblings(index: ElementIndex, siblings: Element[], set: FoundRecord[]): FoundRecord[] {
  const model = set.find((record) => record.marks.some((mark) => !mark.soft));
  const price = model?.marks.find((mark) => !mark.soft);
  if (!model || !price || !index.contains(model.el, model.nameEl) || model.nameEl === model.el) return [];
  // Rows beside a table's few priced rows are its feature rows ("Online Endpoints | Unlimited" prices nothing), unless
  // a row prices its offer in words ("Enterprise | Contact sales"). In a table of priced rows, a row with words in the
  // price column is an offer without a price ("A5000 | 24 GB | 🔜" among rows at "$0.76/hr").
  const inSet = new Set(set.map((record) => record.el));
  const others = siblings.filter((sibling) => !inSet.has(sibling) && tagName(sibling) === tagName(model.el)).length;
  const featureRows =
    (CELL_TAGS.has(tagName(model.el)) || CELL_ROLES.has(model.el.attribs.role ?? "")) && set.length < 2 * others;
  const namePath = childPath(model.el, model.nameEl);
  const pricePath = childPath(model.el, price.el);
  if (!namePath || !pricePath) return [];
  const named = new Set(set.map((record) => record.name.toLowerCase()));
  const found: FoundRecord[] = [];
  for (const sibling of siblings) {
    if (inSet.has(sibling) || tagName(sibling) !== tagName(model.el)) continue;
    if (index.visibleChars(sibling) > MAX_RECORD_CHARS) continue;
    const nameEl = followPath(sibling, namePath);
    const place = followPath(sibling, pricePath);
    if (!nameEl || !place || shapeOf(nameEl) !== shapeOf(model.nameEl) || tagName(place) !== tagName(price.el))
      continue;
    const text = collapse(textContent(place));
    const name = nameText(nameEl);
    if (text === "" || /\d/.test(text) || text.length > MAX_UNSTATED_CHARS) continue;
    if (!plausibleName(name) || named.has(name.toLowerCase())) continue;
    // Each on a line of its own, as in a card: bold words of a sentence are no price place. A line that names its
    // offer before a price in words ("**Enterprise**: Custom pricing" under "**Pro**: $20 / seat / mo") is one.
    const at = text.indexOf(name);
    const said = softAmount((at === -1 ? text : text.slice(at + name.length)).replace(/^[\s:–—-]+/, ""));
    if (said === undefined && (featureRows || inRunningText(nameEl) || inRunningText(place))) continue;
    named.add(name.toLowerCase());
    found.push({ el: sibling, nameEl, name, marks: [softMark(place, text, said ?? null)], setSize: set.length });
  }
  return found;
}

/** How much a sibling that is only a name may say: a column's head cell, not a card. */
const MAX_NAME_ONLY_CHARS = 40;

/**
 * A sibling of the set's records, of their tag and classes, that is only a name saying the offer is free (a comparison
 * table's head cell "Free & Open Source" beside "Commercial License $25/mo": a free plan at 0), or a name and its price
 * in words ("**Basics: free**" beside "**Cross-posting: $2/month**", "Enterprise — contact us").
 */
function freeNamedSiblings(index: ElementIndex, siblings: Element[], set: FoundRecord[]): FoundRecord[] {
  const shapes = new Set(set.map((record) => shapeOf(record.el)));
  const inSet = new Set(set.map((record) => record.el));
  const named = new Set(set.map((record) => record.name.toLowerCase()));
  const model = set[0];
  const namedFromBefore =
    model && model.nameEl !== model.el && previousElementSibling(model.el) === model.nameEl
      ? shapeOf(model.nameEl)
      : null;
  const found: FoundRecord[] = [];
  for (const sibling of siblings) {
    if (inSet.has(sibling) || !shapes.has(shapeOf(sibling))) continue;
    if (index.visibleChars(sibling) > MAX_NAME_ONLY_CHARS) continue;
    const text = nameText(sibling);
    const line = labelledSoftLine(text);
    if (!line && !FREE_PLAN_NAME_RE.test(text)) continue;
    // In a set whose price lines are named by the line before each, the free one is too ("Developer's Edition" over
    // "Free & Open Source").
    const before = !line && namedFromBefore ? previousElementSibling(sibling) : null;
    const nameEl = before && shapeOf(before) === namedFromBefore ? before : sibling;
    const name = line ? line.label : nameText(nameEl);
    if (/\d/.test(name) || !plausibleName(name) || named.has(name.toLowerCase())) continue;
    named.add(name.toLowerCase());
    const mark = softMark(sibling, line ? line.words : text, line ? line.amount : 0);
    found.push({ el: sibling, nameEl, name, marks: [mark], setSize: set.length });
  }
  return found;
}

/** Whether text runs beside `el` in its parent (`<p>… <strong>vendor registration</strong> …</p>`). */
function inRunningText(el: Element): boolean {
  return el.parent !== null && isElement(el.parent) && hasOwnText(el.parent);
}

/** The indexes of element children leading from `root` down to `el`, or null when `el` is not inside it. */
function childPath(root: Element, el: Element): number[] | null {
  const path: number[] = [];
  for (let node: Element = el; node !== root;) {
    const parent = node.parent;
    if (!parent || !isElement(parent)) return null;
    path.push(parent.children.filter(isElement).indexOf(node));
    node = parent;
  }
  return path.reverse();
}

function followPath(root: Element, path: number[]): Element | null {
  let node: Element | undefined = root;
  for (const step of path) node = node?.children.filter(isElement)[step];
  return node ?? null;
}

/** How far above a price its record's name and price meet (a card's title and price share a parent or two). */
const MAX_TWIN_DEPTH = 4;

/**
 * A record set's lone twin: a block of the set's own shape that stands apart from it (an on-premise plan in a section
 * of its own beside the hosted plans' grid, rendered by the same template). Its price element has the tag and classes
 * of the set's price elements, and above it, under an element of the tag that holds a record's name and price
 * together, an element of the set's name shape comes first. Only shapes with a class: bare `<h3>` and `<p>` pairs are
 * everywhere on a page.
 */
function twins(index: ElementIndex, records: FoundRecord[], open: OpenMarks, holdsRecord: Uint8Array): FoundRecord[] {
  const shapes = new Map<string, { name: string; meet: string; sizes: number[] }>();
  const votes = new Map<string, number>();
  for (const record of records) {
    const first = record.marks.find((mark) => !mark.soft);
    if (!first || record.nameEl === first.el || index.contains(record.nameEl, first.el)) continue;
    let meet: Element | null = record.nameEl.parent as Element | null;
    while (meet && !index.contains(meet, first.el)) meet = meet.parent as Element | null;
    if (!meet || !index.contains(record.el, meet)) continue;
    const name = shapeOf(record.nameEl);
    const price = shapeOf(first.el);
    if (name.endsWith(".") && price.endsWith(".")) continue;
    const id = `${price}|${name}|${tagName(meet)}`;
    votes.set(id, (votes.get(id) ?? 0) + 1);
    const shape = shapes.get(id) ?? { name, meet: tagName(meet), sizes: [] };
    shape.sizes.push(index.sizeInside(record.el) + 1);
    shapes.set(id, shape);
  }
  const byPrice = new Map<string, { name: string; meet: string; median: number }[]>();
  for (const [id, shape] of shapes) {
    if ((votes.get(id) ?? 0) < 2) continue;
    const price = id.slice(0, id.indexOf("|"));
    const sizes = shape.sizes.sort((a, b) => a - b);
    const list = byPrice.get(price) ?? [];
    list.push({ name: shape.name, meet: shape.meet, median: sizes[Math.floor(sizes.length / 2)]! });
    byPrice.set(price, list);
  }
  if (byPrice.size === 0) return [];
  const found: FoundRecord[] = [];
  for (const mark of open.all()) {
    if (mark.soft || open.isTaken(mark)) continue;
    const candidates = byPrice.get(shapeOf(mark.el));
    if (!candidates) continue;
    let el: Element | null = mark.el.parent as Element | null;
    for (let depth = 0; el && el.type === "tag" && depth < MAX_TWIN_DEPTH; depth++, el = el.parent as Element | null) {
      if (holdsRecord[index.at(el)]) break;
      const shape = candidates.find((candidate) => candidate.meet === tagName(el!));
      if (!shape) continue;
      const at = index.at(mark.el);
      const nameEl = index.findInside(el, (inner) => index.at(inner) < at && shapeOf(inner) === shape.name);
      if (!nameEl) continue;
      const name = nameText(nameEl);
      const size = index.sizeInside(el) + 1;
      if (!plausibleName(name) || size > shape.median * 4 || size * 4 < shape.median) break;
      const marks = open.inside(el);
      open.take(marks);
      found.push({ el, nameEl, name, marks, setSize: 1 });
      break;
    }
  }
  return found;
}

/**
 * The record set among a container's priced children: those of one tag (the most common one), each small enough for
 * a record and named before its first free price; the names taken from one slot when most records have one there (a
 * badge that wins in one card does not name it). Fewer than two: no set.
 */
function recordSet(
  index: ElementIndex,
  priced: Element[],
  holdsPrice: (el: Element) => boolean,
  holdsRecord: Uint8Array,
  open: OpenMarks,
  isRecord: (at: number) => boolean,
): FoundRecord[] {
  const byTag = new Map<string, Element[]>();
  for (const child of priced) {
    // Sections of a table (a group of its rows) are not records; its rows may be.
    // A table of one column is a card written as a table (a plan's name and price in its head, its features in rows).
    if (
      (TABLE_SECTION_TAGS.has(tagName(child)) || TABLE_SECTION_ROLES.has(child.attribs.role ?? "")) &&
      !oneColumnTable(index, child)
    )
      continue;
    const list = byTag.get(tagName(child));
    if (list) list.push(child);
    else byTag.set(tagName(child), [child]);
  }
  const groups = [...byTag.values()].filter((group) => group.length >= 2).sort((a, b) => b.length - a.length);
  for (const group of groups) {
    const named: { el: Element; marks: PriceMark[]; candidates: NameCandidate[] }[] = [];
    const nameless: { el: Element; marks: PriceMark[]; first: PriceMark }[] = [];
    // Blocks of each shape in the group that hold a price of their own, counted when first asked.
    let deckShapes: Map<string, number> | undefined;
    for (const el of group) {
      if (index.visibleCharsOutsideLists(el) > MAX_RECORD_CHARS || index.visibleChars(el) > MAX_RECORD_TOTAL_CHARS)
        continue;
      // A link asking to be contacted in a sentence prices nothing where the sentence is an answer's ("Is there a setup
      // fee?" | "… Please <a>contact us for a quote</a>.") or the block says its offer is free ("… is free to use for
      // public repositories. <a>Get in touch</a> to discuss a custom solution.": unpricedTwins reads that offer free).
      // Nor does "free" in a phrase about a trial ("Start your <span>FREE</span> trial" on a comparison's button).
      const advice = (mark: PriceMark) =>
        contactLinkInSentence(mark) && (inAnswer(mark.el) || FREE_OFFER_RE.test(collapse(textContent(el))));
      const own = open.inside(el).filter((mark) => !(mark.soft && (advice(mark) || freeTrialWord(mark))));
      const first = own.find((mark) => !mark.soft) ?? own[0];
      if (!first) continue;
      // A list of labelled prices ("Hobby: $5 / mo", "Pro: $20 / seat / mo", each on its own line) is not one record
      // named by its first label: each line names its own price.
      if (labelledList(own)) continue;
      // A subtree holding records of its own is a record only when its own price stands before them (a card's price
      // above its priced feature list), not after them (a section's footnote below its cards).
      // Nor is a section whose paragraph states prices before its cards ("The basics are **free forever**. Upgrade
      // for **$39/year** or **$4/month**." over a Classic and a Premium card): the sentence sums the cards up.
      // Nor one whose only price is a word ("Free" heading a column of names over the cards: a name, no price),
      // unless it is one card of a deck whose other cards price themselves ("Free" over a card's optional upgrades,
      // beside an Enterprise card's "Custom").
      if (
        holdsRecord[index.at(el)] &&
        (!ownPriceFirst(index, el, first, (at) => holdsRecord[at] === 1 || isRecord(at)) ||
          phraseOfParagraph(index, first.el) ||
          (own.every((mark) => mark.soft) && ((deckShapes ??= pricedShapes(group, open)).get(shapeOf(el)) ?? 0) < 2))
      )
        continue;
      const self = selfNamed(first);
      const candidates = self
        ? [self]
        : nameCandidates(index, el, index.at(first.el), holdsPrice, { priced: !first.soft });
      // Blocks side by side, each headed by a name, the price under the second only ("Personal Workspace | 3,600
      // Free hours" beside "Team Workspace | $0.01 / hour"): the price is the second's, never the first name's.
      if (candidates.length > 0 && headedApart(el, candidates[0]!.el, first.el)) continue;
      // A line that names its price in bold before it ("<li><strong>Hobby</strong>: $5 / mo</li>"): the bold words.
      // A short line or cell whose text opens with a name before its price, the name no element of its own
      // ("<th>Pro<br><span>$12/mo</span></th>", "<p>IAA Fee (yearly) <span>$0</span></p>"): those words, unless they
      // are a sentence about the price ("The Hobby plan costs $5 per month").
      // A block of labelled lines whose price is one line's ("Free Tier | ✗", "Email & SMS Reminders | $20/mo Extra"
      // under a competitor's heading): the price is what that line's feature costs, not the block's.
      if (!first.soft && candidates.length > 0 && labelledLineOf(index, el, first, candidates[0]!.el) !== null)
        continue;
      const lead =
        candidates.length === 0 && !first.soft
          ? (boldLead(first) ?? lineLead(index, el, first) ?? headingLead(el, first))
          : null;
      if (lead) {
        named.push({ el, marks: [first], candidates: [{ el: lead.el, name: lead.name, score: 0, slot: "lead" }] });
        continue;
      }
      // A block whose only price is its heading "Free" (or "Enterprise: contact us" as one heading) names itself by it.
      if (candidates.length === 0 && first.soft && isHeading(first.el)) {
        const name = nameText(first.el);
        if (plausibleName(name)) candidates.push({ el: first.el, name, score: 0, slot: "soft" });
      }
      if (candidates.length > 0) named.push({ el, marks: own, candidates });
      else nameless.push({ el, marks: own, first });
    }
    // Cards that carry no name at all ("free", "$5/mo", "$20/mo" over their feature lists) are still a set of plans:
    // each is known by its price, as a reader would call it. Only blocks with content beside the price (not the cells
    // of a comparison row), and only when none of them has a name. A card states its price above its feature list: a
    // list whose own lines are priced ("$144/year for $20/month of usage", "$36/year for …") is a list of offers under
    // a section, not a card named by its first line.
    if (named.length === 0 && nameless.length >= 2) {
      const headed = namedBefore(index, nameless, open) ?? namedAfter(index, nameless);
      if (headed) return headed;
      const cards = nameless.filter(({ el, first }) => {
        if (CELL_TAGS.has(tagName(el)) || CELL_ROLES.has(el.attribs.role ?? "")) return false;
        const items = index.inside(el).filter((inner) => tagName(inner) === "li");
        return items.length >= 2 && !items.some((item) => index.contains(item, first.el));
      });
      if (cards.length >= 2 && cards.some(({ marks }) => marks.some((mark) => !mark.soft))) {
        return cards.map(({ el, marks, first }) => ({
          el,
          nameEl: first.el,
          name: priceLead(first.text) ?? first.text,
          marks,
          setSize: cards.length,
        }));
      }
    }
    // A set prices things: one of its records shows a number, or at least a free plan beside the others (a free tier
    // and an Enterprise "Contact us" card). A row of "Contact sales" links or of feature blocks with "Custom" in them
    // is not a set of plans.
    const numeric = (record: (typeof named)[number]) => record.marks.some((mark) => !mark.soft);
    const free = (record: (typeof named)[number]) =>
      record.marks.some((mark) => mark.soft && mark.options[0]!.amount === 0);
    if (named.length < 2 || !(named.some(numeric) || named.some(free))) continue;
    // Records of one set are of one shape: about the same size. A record without a number ("Contact sales") must be
    // close to the priced ones' size (an Enterprise card beside two plan cards, not a page section beside a grid).
    const anchors = named.some(numeric) ? named.filter(numeric) : named;
    const sizes = anchors.map((r) => index.sizeInside(r.el) + 1);
    const median = sizes.sort((a, b) => a - b)[Math.floor(sizes.length / 2)]!;
    const alike = named.filter((record) => {
      const size = index.sizeInside(record.el) + 1;
      const factor = numeric(record) ? 4 : 2.5;
      return size <= median * factor && size * factor >= median;
    });
    if (alike.length < 2) continue;
    named.splice(0, named.length, ...alike.filter((record) => !limitRow(record, anchors)));
    if (named.length < 2) continue;
    // The slot most records name themselves from.
    const slots = new Map<string, number>();
    for (const record of named) slots.set(record.candidates[0]!.slot, (slots.get(record.candidates[0]!.slot) ?? 0) + 1);
    const [slot, votes] = [...slots.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const found = named.map((record) => {
      const chosen =
        (votes >= 2 ? record.candidates.find((candidate) => candidate.slot === slot) : undefined) ??
        record.candidates[0]!;
      return { el: record.el, nameEl: chosen.el, name: chosen.name, marks: record.marks, setSize: named.length };
    });
    // Blocks that all bear one name are copies of one price (the shown and the hidden "FREE" of a monthly/yearly
    // switch), not a set of plans; table rows sharing a first cell are told apart below.
    const row = (el: Element) => tagName(el) === "tr" || el.attribs.role === "row";
    if (!found.some((record) => row(record.el)) && new Set(found.map((r) => r.name.toLowerCase())).size === 1) {
      const tiers = tiersByLimit(found);
      if (tiers) return tiers;
      continue;
    }
    return distinctRowNames(found);
  }
  return [];
}

/**
 * The price stands in one of several lines of one shape inside the block, after a label of its own on that line, and
 * the block's name is on another line: the lines are a feature list, each labelled, and the price is its line's. The
 * line's label, or null.
 */
export function labelledLineOf(index: ElementIndex, block: Element, price: PriceMark, nameEl: Element): string | null {
  let line: Element | null = price.el;
  while (line && line.parent !== block && !shapeBeside(line))
    line = line.parent && isElement(line.parent) ? line.parent : null;
  if (!line || line === block || !index.contains(block, line) || index.contains(line, nameEl)) return null;
  if (!shapeBeside(line)) return null;
  const label = line.children.find(
    (child): child is Element => isElement(child) && collapse(textContent(child)) !== "",
  );
  if (!label || label === price.el || index.contains(label, price.el)) return null;
  const text = nameText(label);
  return plausibleName(text) && !/\d/.test(text) ? text : null;
}

/**
 * The element just before or after `el` is of its tag and classes: one line among lines of one shape (a look at its
 * neighbours only, however many siblings it has).
 */
function shapeBeside(el: Element): boolean {
  const shape = shapeOf(el);
  for (const step of ["prev", "next"] as const) {
    let sibling = el[step];
    while (sibling && !isElement(sibling)) sibling = sibling[step];
    if (sibling && isElement(sibling) && shapeOf(sibling) === shape) return true;
  }
  return false;
}

/**
 * How many blocks of each shape (tag and classes) among `group` hold an open price of their own: counted once per
 * group, asked of each block in it.
 */
function pricedShapes(group: Element[], open: OpenMarks): Map<string, number> {
  const counts = new Map<string, number>();
  for (const el of group) {
    if (open.inside(el).length === 0) continue;
    const shape = shapeOf(el);
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return counts;
}

/**
 * `name` and `price` lie in two different children of `block` of one tag, and the price's child is headed, at the
 * name's own place, by a heading of the name's tag that holds no price: two named blocks, the price under the second.
 */
function headedApart(block: Element, name: Element, price: Element): boolean {
  if (!isHeading(name)) return false;
  const namePath = childPath(block, name);
  const pricePath = childPath(block, price);
  if (!namePath || !pricePath || namePath[0] === pricePath[0]) return false;
  const children = block.children.filter(isElement);
  const named = children[namePath[0]!]!;
  const priced = children[pricePath[0]!]!;
  if (tagName(named) !== tagName(priced)) return false;
  // The priced block's element where the named block has its name.
  const twin = followPath(priced, namePath.slice(1));
  return (
    !!twin &&
    tagName(twin) === tagName(name) &&
    twin !== price &&
    !within(twin, price) &&
    firstPriceIndex(collapse(textContent(twin))) === null
  );
}

/** How long the line before a price line may be to name it. */
const NAME_LINE_CHARS = 60;

/**
 * Price lines each named by the line just before them, offers stacked in one column (`<li class="package">Non-profit
 * Organizations</li><li class="price">$20 / month</li><li class="buy">…</li><li class="package">On-site
 * Installation</li>…`): every price line has one, of the price lines' tag and of one set of classes that is not
 * theirs, short, unpriced and a plausible name. Null when they do not all have one.
 */
function namedBefore(
  index: ElementIndex,
  nameless: { el: Element; marks: PriceMark[] }[],
  open: OpenMarks,
): FoundRecord[] | null {
  const found: FoundRecord[] = [];
  let shape: string | null = null;
  for (const { el, marks } of nameless) {
    // A button asking to be contacted under a price ("Contact Us" after "$ 100 +") is no line of its own.
    if (marks.every((mark) => mark.soft && mark.options[0]!.amount === null)) continue;
    const before = previousElementSibling(el);
    if (!before || open.inside(before).length > 0 || index.visibleChars(before) > NAME_LINE_CHARS) return null;
    // Lines of one list or column: the name line of the price line's tag, told apart by its classes (a heading over a
    // paragraph is a section, read as such elsewhere).
    if (tagName(before) !== tagName(el) || (shape ??= shapeOf(before)) !== shapeOf(before) || shape === shapeOf(el))
      return null;
    const name = nameText(before);
    if (!plausibleName(name)) return null;
    found.push({ el, nameEl: before, name, marks, setSize: nameless.length });
  }
  return found.length >= 2 ? found.map((record) => ({ ...record, setSize: found.length })) : null;
}

/**
 * Buttons that state their price and then what it buys (`<a class="button"><big>$495</big><small>ActivePerl Pro
 * Studio</small></a>` beside the same for ActiveTcl): each named by the element after its last price, when every one
 * has such a short, plausible and distinct name and nothing else. Null otherwise.
 */
function namedAfter(index: ElementIndex, nameless: { el: Element; marks: PriceMark[] }[]): FoundRecord[] | null {
  if (nameless.some(({ el }) => index.visibleChars(el) > NAME_LINE_CHARS)) return null;
  const found: FoundRecord[] = [];
  for (const { el, marks } of nameless) {
    const last = marks[marks.length - 1]!;
    const priceAt = el.children.findIndex((child) => child === last.el || (isElement(child) && within(child, last.el)));
    const after = el.children.slice(priceAt + 1).filter((child) => isElement(child) || collapse(textContent(child)));
    const nameEl = after.length === 1 && isElement(after[0]!) ? after[0] : null;
    const name = nameEl ? nameText(nameEl) : "";
    // Words going on from the price ("$5 <small>for 1k check runs</small>", "with Upgrades & Support") are no name.
    if (priceAt === -1 || !nameEl || !/^[\p{Lu}\p{N}]/u.test(name) || !plausibleName(name)) return null;
    if (firstPriceIndex(name) !== null) return null;
    found.push({ el, nameEl, name, marks, setSize: nameless.length });
  }
  const names = new Set(found.map((record) => record.name.toLowerCase()));
  return names.size === found.length ? found : null;
}

/** The index of the cell of a table row that holds `el`, or -1. */
function cellIndex(row: Element, el: Element): number {
  const cells = row.children.filter(isElement);
  return cells.findIndex((cell) => cell === el || within(cell, el));
}

/**
 * A table row whose only "price" is "Custom" in a column where no other row states a number ("Max DLQ Size | 1,000 |
 * 10,000 | Custom" under plan columns): a limit, not an offer. A plan row priced "Contact us" in the rows' price column
 * ("Enterprise | Contact us | Unlimited") stays a record.
 */
function limitRow(record: { el: Element; marks: PriceMark[] }, priced: { el: Element; marks: PriceMark[] }[]): boolean {
  const row = record.el;
  if ((tagName(row) !== "tr" && row.attribs.role !== "row") || record.marks.some((mark) => !mark.soft)) return false;
  const columns = new Set<number>();
  for (const other of priced) {
    const first = other.marks.find((mark) => !mark.soft);
    if (first && other.el !== row) columns.add(cellIndex(other.el, first.el));
  }
  return columns.size > 0 && record.marks.every((mark) => !columns.has(cellIndex(row, mark.el)));
}

/** A record reads at most this many of its own marks (a card states a few prices; more is a table inside it). */
const MAX_OWN_MARKS = 24;

/** The marks no record has taken yet, by position, for range queries over a subtree. */
class OpenMarks {
  private readonly positions: number[];
  private readonly marks: PriceMark[];
  private readonly taken = new Set<PriceMark>();
  /** How many marks sit at each element's position, and how many of them state a number. */
  readonly countAt = new Map<number, number>();
  readonly numericAt = new Map<number, number>();

  constructor(
    private readonly index: ElementIndex,
    marks: PriceMark[],
  ) {
    this.marks = [...marks].sort((a, b) => index.at(a.el) - index.at(b.el));
    this.positions = this.marks.map((mark) => index.at(mark.el));
    this.marks.forEach((mark, k) => {
      const at = this.positions[k]!;
      this.countAt.set(at, (this.countAt.get(at) ?? 0) + 1);
      if (!mark.soft) this.numericAt.set(at, (this.numericAt.get(at) ?? 0) + 1);
    });
  }

  /** The open marks under `el` (itself included), in page order, at most MAX_OWN_MARKS. */
  inside(el: Element): PriceMark[] {
    const start = this.index.at(el);
    const end = start + this.index.sizeInside(el);
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.positions[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    const out: PriceMark[] = [];
    for (let k = lo; k < this.positions.length && this.positions[k]! <= end && out.length < MAX_OWN_MARKS; k++) {
      if (!this.taken.has(this.marks[k]!)) out.push(this.marks[k]!);
    }
    return out;
  }

  /** Every mark, in page order. */
  all(): readonly PriceMark[] {
    return this.marks;
  }

  isTaken(mark: PriceMark): boolean {
    return this.taken.has(mark);
  }

  take(marks: PriceMark[]): void {
    for (const mark of marks) this.taken.add(mark);
  }
}

/** The words before a price that name it ("Hobby: $5 / mo" → Hobby), when they can. */
function priceLead(text: string): string | null {
  const at = firstPriceIndex(text);
  if (at === null || at === 0) return null;
  // "from 5 licenses - each 6,99 €": the word leading into the price is no part of the name.
  const lead = text
    .slice(0, at)
    .replace(/[\s:：–—|([-]+$/, "")
    .replace(/[\s:：–—|-]+(?:each|only|just)$/i, "")
    .trim();
  return plausibleName(lead) ? (namedHead(lead) ?? lead) : null;
}

/** How long a line named by the words before its price may be: a name and a price, not a paragraph. */
const SHORT_LINE_CHARS = 60;

function lineLead(index: ElementIndex, el: Element, first: PriceMark): { el: Element; name: string } | null {
  if (index.visibleChars(el) > SHORT_LINE_CHARS) return null;
  // The words are the block's own text, not an element of their own (which nameCandidates would have weighed).
  if (first.el !== el) {
    for (const child of el.children) {
      if (child === first.el) break;
      if (isElement(child) && (within(child, first.el) || collapse(textContent(child)) !== "")) return null;
    }
  }
  const name = priceLead(collapse(textContent(el)));
  return name && !sentenceAboutPrice(name) ? { el, name } : null;
}

/**
 * The words a heading says before the price it holds (`<h3>Organization<span class="price">$24/month</span></h3>`):
 * the heading names its price, though the reader of names passes over it for holding one.
 */
function headingLead(record: Element, mark: PriceMark): { el: Element; name: string } | null {
  let heading: AnyNode | null = mark.el;
  for (let depth = 0; heading && isElement(heading) && heading !== record && depth < 3; depth++) {
    if (isHeading(heading)) {
      const text = collapse(textContent(heading));
      const at = firstPriceIndex(text);
      const name = at ? text.slice(0, at).replace(/[\s:：–—|([-]+$/, "") : "";
      return plausibleName(name, { heading: true }) && !sentenceAboutPrice(name) ? { el: heading, name } : null;
    }
    heading = heading.parent;
  }
  return null;
}

/** The bold words a price's own element opens with, when they are the words before its price and can name it. */
function boldLead(mark: PriceMark): { el: Element; name: string } | null {
  const opening = mark.el.children.find(
    (child) => isElement(child) || (child.type === "text" && (child as { data: string }).data.trim() !== ""),
  );
  if (!opening || !isElement(opening) || !/^(?:strong|b)$/.test(tagName(opening))) return null;
  const name = nameText(opening);
  const lead = (mark.lead ?? priceLead(mark.text))?.replace(/[\s:：–—|-]+$/, "");
  return lead === name && plausibleName(name) ? { el: opening, name } : null;
}

/** How many differently priced blocks bearing one name make them tiers rather than copies of one price. */
const MIN_TIERS = 3;

/**
 * Blocks that all bear one name but each a different price are tiers, not copies, when the name is a limit's label
 * ("$100/mo." over "<li><span>1,000</span> <span class="label">Customers</span></li>", "$50/mo." over "500
 * Customers", …, "FREE" over "25 Customers"): each is named by its limit's whole line, as a reader calls it. Copies
 * of one price (a monthly/yearly switch's shown and hidden "FREE") state one amount, and two blocks are too few to
 * tell. Null when the lines are not distinct, numbered, plausible names.
 */
function tiersByLimit(found: FoundRecord[]): FoundRecord[] | null {
  if (found.length < MIN_TIERS) return null;
  const amounts = found.map((record) => record.marks[0]?.options[0]?.amount ?? null);
  if (new Set(amounts).size !== found.length) return null;
  const named = found.map((record) => {
    const line = record.nameEl.parent;
    if (!line || !isElement(line) || line === record.el) return null;
    // The whole line: nameText would leave out its label-classed word.
    const name = collapse(textContent(line));
    return /\d/.test(name) && firstPriceIndex(name) === null && plausibleName(name) ? { ...record, name } : null;
  });
  if (named.some((record) => record === null)) return null;
  return new Set(named.map((record) => record!.name.toLowerCase())).size === found.length
    ? (named as FoundRecord[])
    : null;
}

/**
 * Table rows of one set sharing a name ("shared-cpu-1x | 10GB volumes" and "shared-cpu-1x | 40GB volumes") are told
 * apart by every cell before their price: two rows are two offers, never one offer's two prices.
 */
function distinctRowNames(records: FoundRecord[]): FoundRecord[] {
  const names = records.map((record) => record.name.toLowerCase());
  if (new Set(names).size === names.length) return records;
  return records.map((record, k) => {
    if (names.indexOf(names[k]!) === names.lastIndexOf(names[k]!)) return record;
    if (tagName(record.el) !== "tr" && record.el.attribs.role !== "row") return record;
    const first = record.marks.find((mark) => !mark.soft) ?? record.marks[0];
    const parts: string[] = [];
    for (const cell of record.el.children) {
      if (!isElement(cell)) continue;
      if (first && (cell === first.el || within(cell, first.el))) break;
      const text = nameText(cell);
      // The cells that name the row come before its prices (any price: other readers may have taken some).
      if (firstPriceIndex(text) !== null) break;
      if (text) parts.push(text);
    }
    const name = parts.join(", ");
    return name.length > record.name.length && name.length <= 80 ? { ...record, name } : record;
  });
}

/** `node` is `el` or inside it (a walk up: rows are shallow). */
function within(el: Element, node: AnyNode): boolean {
  for (let current: AnyNode | null = node; current; current = current.parent) if (current === el) return true;
  return false;
}

/** Marks whose first one is labelled on its line, followed by prices under other labels: lines of a list. */
function labelledList(marks: PriceMark[]): boolean {
  const numeric = marks.filter((mark) => !mark.soft);
  const lead = (mark: PriceMark) => mark.lead ?? priceLead(mark.text);
  const first = numeric[0] && lead(numeric[0]);
  if (!first || !plausibleName(first)) return false;
  return numeric.some((mark) => mark.el !== numeric[0]!.el && lead(mark) !== null && lead(mark) !== first);
}

/** The first free mark of `el` comes before the first record inside it. */
function ownPriceFirst(
  index: ElementIndex,
  el: Element,
  first: PriceMark,
  recordOrHolder: (at: number) => boolean,
): boolean {
  const firstAt = index.at(first.el);
  for (const inner of index.inside(el)) {
    const at = index.at(inner);
    if (at >= firstAt) return true;
    if (recordOrHolder(at)) return false;
  }
  return true;
}
