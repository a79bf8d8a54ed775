/**
 * A price nothing else claims is still a price (docs/real-pages.md#a-price-change-is-never-silent): a money amount on
 * the page that no structured data, grid or record set names becomes a record named by its context, the label before it
 * on its line ("Additional users: $5/month" → "Additional users", a definition term, a table row's first cell) and the
 * heading of its section. Its changes are still pricing events, with a lower confidence that says why.
 */
import { collapse, isElement, isHeading, tagName, textContent, type AnyNode, type Element } from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";
import { isFootnote, labelledSoftLine, onRequestHeading, softMark, type PriceMark } from "./marks.js";
import { firstPriceIndex, parsePrice } from "./money.js";
import { aloneOnLine, boldLine, emphasised, nameText, plausibleName } from "./names.js";

export interface ContextRecord {
  mark: PriceMark;
  /** The label on the price's own line, when one names it. */
  label: string | null;
  /** The heading of the section the price sits in. */
  section: string | null;
}

const BLOCK_TAGS = new Set(
  "p li td th dd dt div section article tr blockquote label figure header h1 h2 h3 h4 h5 h6".split(" "),
);
const BLOCK_MAX_CHARS = 400;
/** Blocks whose label is the element before them: a definition's term, a field's label. List items are not. */
const LABELLED_TAGS = new Set(["dd", "p", "div", "span"]);
/** Words that lead into a price rather than name it: "Pro costs", "Extra seats are", "starting at", "is about". */
const LEAD_IN_RE =
  /(?:^|\s+)(?:costs?|add|is|are|was|were|at|for|from|only|just|then|starting|starts|start|priced|billed|of|per|will\s+be|comes\s+to|including|includes|include|incl\.?|with|about|around|approximately|roughly|approx\.?|currently|now|kostet|kosten|ab|für|à|pour|de)(?:\s+(?:costs?|is|are|was|were|at|for|from|only|just|starting|starts|start|priced|billed|of|per|including|includes|with|about|around|approximately|roughly))*\s*$/i;
/** The words before an amount a plan includes ("including $5 of usage"). */
const INCLUDED_RE = /\b(?:including|includes|include|incl\.?)\s*$/i;
const ARTICLE_RE = /^(?:the|our|a|an|your|each|every|all)\s+/i;
/** Sections whose prices are not the page's offers: other products, reviews, a newsletter box, a cart. */
const NOT_OFFERED_RE =
  /\b(?:also\s+(?:viewed|bought|like)|recently\s+viewed|related|reviews?|ratings?|testimonials?|newsletter|your\s+(?:cart|basket|bag)|shipping|delivery)\b/i;

/** Words before a price that are a sentence about it, not its name ("The Hobby plan costs", "Starting at"). */
export function sentenceAboutPrice(words: string): boolean {
  return ARTICLE_RE.test(words) || LEAD_IN_RE.test(words);
}

/** The text of `block` before `el`, in page order. */
function textBefore(block: Element, el: Element, markText: string): string {
  // The mark is the block itself (a heading that prices itself: "Pro — $49/month"): the words before its price.
  if (block === el) {
    const text = collapse(textContent(el));
    const at = firstPriceIndex(text);
    return at !== null && at > 0 ? text.slice(0, at) : markText === text ? "" : text;
  }
  let out = "";
  const walk = (node: AnyNode): boolean => {
    if (node === el) {
      // The words of the price's own element before its amount ("<p><strong>Cross-posting: $2/month</strong></p>").
      const own = collapse(textContent(el));
      const at = firstPriceIndex(own);
      if (at !== null && at > 0) out += ` ${own.slice(0, at)}`;
      return true;
    }
    if (node.type === "text") out += (node as { data: string }).data;
    else if (isElement(node)) {
      if (/^(?:br|div|p|li|td|th|dd|dt|tr)$/.test(tagName(node))) out += " ";
      for (const child of node.children) if (walk(child)) return true;
    }
    return false;
  };
  walk(block);
  return collapse(out);
}

/** The words before a price that goes beyond an allowance: "5 sites, then". */
const THEN_RE = /\bthen\s*$/i;

/** A sentence addressed to the reader or told by the seller ("You will be billed an extra", "We charge"). */
const SUBJECT_RE = /^(?:you|we|i)\b/i;

/** "It's $50/year", "That is $5": a sentence's subject that points elsewhere, no name. */
const PRONOUN_RE = /^(?:it|this|that|these|those|which|they|there|here)(?:['’]s|['’]re)?$/i;

/** The line `el` is on: the nearest block around it (or itself), when it is short enough to be a line. */
function lineBlock(index: ElementIndex, el: Element): Element | null {
  let block: AnyNode | null = el;
  while (block && isElement(block) && !BLOCK_TAGS.has(tagName(block))) block = block.parent;
  return block && isElement(block) && index.visibleChars(block) <= BLOCK_MAX_CHARS ? block : null;
}

/** The words before a price on its line, or "" when it is on no short line. */
export function wordsBefore(index: ElementIndex, mark: PriceMark): string {
  const block = lineBlock(index, mark.el);
  return block ? textBefore(block, mark.el, mark.text) : "";
}

/** What a price buys besides the offer it sits in, said before it: "Upgrade for", "Subscribe for", "Renew at". */
const PURCHASE_LEAD_RE = /(?:^|[\s,;.])((?:upgrade|subscribe|renew|extend)(?:\s+[\p{L}&-]+){0,3}?)\s+(?:for|at)\s*$/iu;

/**
 * The name of another purchase a card's price is for ("Upgrade for $168", "or Subscribe for $87" under a licence's
 * "$295"): "Upgrade", "Subscribe". Null when the words before the price say no such thing.
 */
export function purchaseLead(words: string): string | null {
  const lead = PURCHASE_LEAD_RE.exec(words)?.[1];
  return lead ? lead.charAt(0).toUpperCase() + lead.slice(1) : null;
}

/** A label of `text` (the words before a price on its line), or null when they do not name anything. */
function labelOf(text: string): string | null {
  const cleaned = text
    .replace(/[\s:：–—|=(-]+$/, "")
    .replace(LEAD_IN_RE, "")
    .replace(/[\s,:：–—|=(-]+$/, "")
    .replace(ARTICLE_RE, "");
  // The last sentence or clause before the price; one that ends a sentence ("…if you need other options (e.g. IBAN
  // transfer).") is the text before the price's block, not its label.
  const clause = cleaned.split(/(?<=[.!?;])\s+/).pop() ?? "";
  // "Includes your first 5 users, then $9 per additional user": what the offer includes, not a name.
  if (/[.!?;]\)?$/.test(clause) || PRONOUN_RE.test(clause) || /^(?:includes?|including|comes\s+with)\b/i.test(clause))
    return null;
  const named = namedHead(clause);
  return named ?? (plausibleName(clause) ? clause : null);
}

/**
 * The one phrase a heading written as a sentence sets in bold ("For Formspree power users, we present <strong>Formspree
 * Gold</strong>"): what the section offers. Null for a heading of a few words, or with no such phrase or several.
 */
function boldInSentence(heading: Element): string | null {
  const bold = heading.children.filter(
    (child): child is Element => isElement(child) && /^(?:strong|b)$/.test(tagName(child)),
  );
  if (bold.length !== 1 || collapse(textContent(heading)).split(" ").length < SENTENCE_HEADING_WORDS) return null;
  const name = nameText(bold[0]!);
  return plausibleName(name) && !sentenceAboutPrice(name) ? name : null;
}
/** Words from which a heading reads as a sentence rather than a name. */
const SENTENCE_HEADING_WORDS = 5;

/** Elements that mark a phrase out of a sentence: a link, bold or emphasis. */
const MARKED_PHRASE_TAGS = new Set(["a", "strong", "b", "em"]);
/** What joins a name to its price in a sentence: "Supporter for $75/year", "Pro at $10", "Team: $8". */
const JOINED_PRICE_RE = /^(?:for|at|costs?|is|:|[–—-])\s+(?:(?:only|just)\s+)?(?=\S*\d)/i;

/**
 * The phrase a sentence marks out (a link, bold) right before the words that join it to its price ("becoming a
 * <a>Supporter</a> for $75/year"), as a name; null when there is none or it is no name.
 */
function markedPhraseBefore(mark: PriceMark): string | null {
  const amount = mark.options[0]!.amount;
  for (const child of mark.el.children) {
    if (!isElement(child) || !MARKED_PHRASE_TAGS.has(tagName(child))) continue;
    const next = child.next;
    if (next?.type !== "text") continue;
    const after = collapse((next as { data: string }).data);
    const joined = JOINED_PRICE_RE.exec(after);
    if (!joined || parsePrice(after.slice(joined[0].length))?.amount !== amount) continue;
    const name = nameText(child);
    if (plausibleName(name) && !sentenceAboutPrice(name)) return name;
  }
  return null;
}

/**
 * "Premium: podcasting, video, and bookmarks: $10/month": a name, a colon, and a list of what the offer holds; the name.
 * Null when the words after the colon are no list.
 */
export function namedHead(words: string): string | null {
  const match = /^([^:：]{2,40}?)\s*[:：]\s+(.+)$/.exec(words);
  if (!match || !/,/.test(match[2]!)) return null;
  return plausibleName(match[1]!) && !sentenceAboutPrice(match[1]!) ? match[1]! : null;
}

export function contextRecords(index: ElementIndex, marks: PriceMark[], claimed: Set<PriceMark>): ContextRecord[] {
  const itemNames = new ItemNames();
  // "Free" or "Custom pricing" is no price line of its own, except as an offer of a list whose items name themselves,
  // or as the line under a heading where headings of the same level each open their section with a price
  // ("### Community" / "*Free, no credit card required*" beside "### Professional" / "*Starting at $20/month*").
  const pricedHeadings = new Set(
    marks
      .filter((mark) => !claimed.has(mark) && !mark.soft)
      .map((mark) => headingAbove(mark.el))
      .filter((heading): heading is Element => heading !== null)
      .map((heading) => tagName(heading)),
  );
  const headedOffer = (mark: PriceMark): boolean => {
    // A heading that names a free plan ("### 1. Free plan") is that offer at 0 itself, one priced on request by its
    // first paragraph ("## Enterprise pricing") that offer without an amount.
    if (isHeading(mark.el))
      return (
        mark.options[0]!.amount === 0 ||
        // "Basics: free", "Shared Agora: name your price": a heading that names its offer and its price in words.
        mark.lead !== undefined ||
        onRequestHeading(mark.el, index) ||
        // "### Enterprise" over "Send us an email…", among headings of that level that open with a price.
        (pricedHeadings.has(tagName(mark.el)) && onRequestHeading(mark.el, index, { contactOnly: true }))
      );
    const heading = headingAbove(mark.el);
    return heading !== null && pricedHeadings.has(tagName(heading));
  };
  const open = marks.filter(
    (mark) =>
      !claimed.has(mark) &&
      (!mark.soft || mark.prose || itemNames.freeOffer(mark) !== null || headedOffer(mark) || freeCard(index, mark)),
  );
  if (open.length === 0) return [];
  // The heading in force at each mark: one pass in page order (a page of a hundred thousand headings reads each once).
  const sections = new Map<PriceMark, string | null>();
  let heading: string | null = null;
  let next = 0;
  for (const el of index.elements) {
    while (next < open.length && index.at(open[next]!.el) <= index.at(el)) sections.set(open[next++]!, heading);
    if (next >= open.length) break;
    // A heading that holds the next price ("Pro — $49/month") is that price's line, not a section above it.
    if (isHeading(el) && !index.contains(el, open[next]!.el)) {
      // A heading that states a price ("$18 per month" over a plan's column) names no section.
      const text = index.visibleChars(el) <= 120 ? nameText(el) : "";
      if (text && firstPriceIndex(text) === null && !labelledSoftLine(text)) heading = boldInSentence(el) ?? text;
    }
  }
  while (next < open.length) sections.set(open[next++]!, heading);
  // An answer folded under its question (`<details><summary>Can I run a production app for $1.50/month?</summary>…`,
  // the FAQ accordion of most pricing pages) stands under that question, whatever heading is above it or inside it.
  for (const mark of open) {
    const question = foldedQuestion(mark.el);
    if (question !== null) sections.set(mark, question);
    // A table's caption heads the table: a page of one table per plan ("Pro" over "Price | $30/mo") names each so.
    else {
      const caption = captionOf(mark.el);
      if (caption !== null) sections.set(mark, caption);
    }
  }

  const found = open
    .filter((mark) => {
      // An amount a plan includes ("The Hobby plan includes $5 of resource usage per month", "…, including $5 of
      // usage") is an allowance, not a price.
      const lead = mark.lead ?? mark.text.slice(0, firstPriceIndex(mark.text) ?? 0);
      return !INCLUDED_RE.test(lead);
    })
    .map((mark) => {
      // An offer that is its own heading ("1. Free plan", "Enterprise pricing" priced on request) is that section.
      if (mark.soft && isHeading(mark.el))
        return { mark, label: null, section: offerHeadingName(mark.lead ?? mark.text) };
      // A free allowance stated in a sentence ("Your first 50 GBs transferred each month are free") is named as one,
      // apart from the prices its section's sentences state.
      if (mark.soft && mark.prose) return { mark, label: "Free allowance", section: sections.get(mark) ?? null };
      // A free offer in a list is named by its item.
      let label: string | null = mark.soft ? itemNames.freeOffer(mark) : null;
      // The line the price is on: its nearest block that is short enough to be a line.
      const block = lineBlock(index, mark.el);
      if (label === null && mark.lead !== undefined) label = labelOf(mark.lead);
      else if (label === null && block) {
        label = labelOf(textBefore(block, mark.el, mark.text));
        // A row's first cell, a definition term or a label element just before the price's own cell or line. A
        // footnote is about what its marker points at, not about the button or line above it.
        if (label === null && !isFootnote(mark.text)) {
          const cell = /^(?:td|th)$/.test(tagName(block)) || /^(?:cell|gridcell)$/.test(block.attribs.role ?? "");
          const row = cell && block.parent && isElement(block.parent) ? block.parent : null;
          const first = row ? row.children.find(isElement) : null;
          const previous =
            first && first !== block ? first : LABELLED_TAGS.has(tagName(block)) ? previousElement(block) : null;
          // Only a label-like element: short, and not a sentence ("For departments." describes; "Extra seats" names).
          const text = previous && index.visibleChars(previous) <= 40 ? nameText(previous) : "";
          if (text && !/[.!?]$/.test(text)) label = labelOf(text);
        }
      }
      // "…please consider becoming a <a>Supporter</a> for $75/year!": the phrase the sentence marks out right before
      // the price names it.
      if (label === null) label = markedPhraseBefore(mark);
      // "The **Starter** plan offers 300 searches for $5 per month", "Premium — all features — $9/year": a price in a
      // list whose items each name their offer is named by its item, over a label that only says more around that
      // name ("Team plan offers unlimited users").
      const item = itemNames.nameOf(mark);
      if (item !== null && (label === null || ` ${label.toLowerCase()} `.includes(` ${item.toLowerCase()} `)))
        label = item;
      // "You won't be charged for the $5/month Hobby plan…": a price on a line that a plan's name follows is that plan's,
      // whatever the sentence around it says.
      label = planAfter(mark.text) ?? label;
      // "$150 per additional project": what the price is for is written after it, and it names the price over the
      // allowance before it ("5 sites, then $9 per additional website").
      const after = afterLabel(mark.text) ?? afterLabel(mark.window);
      if (
        after !== null &&
        (label === null ||
          THEN_RE.test(mark.lead ?? mark.text.slice(0, firstPriceIndex(mark.text) ?? 0)) ||
          // "You will be billed an extra $10 for each additional …": a sentence's subject, no name.
          SUBJECT_RE.test(label))
      )
        label = after;
      return { mark, label, section: sections.get(mark) ?? null };
    })
    .filter((found) => !(found.section && NOT_OFFERED_RE.test(found.section)));
  return [...found, ...labelledSoftLines(index, marks, found)].sort(
    (a, b) => index.at(a.mark.el) - index.at(b.mark.el),
  );
}

/**
 * The lines beside labelled prices ("Pro — $20/user/month") that price their offer in words: "Hobby — free" at 0,
 * "Enterprise — contact us" without an amount, named by their label, under the same section. Lines are a list's items,
 * or headings of one level, or bold lines ("**Basics: free**" over its feature list, beside "**Cross-posting:
 * $2/month**") under one parent.
 */
function labelledSoftLines(index: ElementIndex, marks: PriceMark[], found: ContextRecord[]): ContextRecord[] {
  const parents = new Map<Element, { kind: string; section: string | null }>();
  for (const { mark, label, section } of found) {
    const line = mark.soft || label === null ? null : lineOf(mark.el);
    const parent = line?.el.parent;
    if (line && parent && isElement(parent) && !parents.has(parent)) parents.set(parent, { kind: line.kind, section });
  }
  if (parents.size === 0) return [];
  const priced = new Set(marks.map((mark) => lineOf(mark.el)?.el).filter((line) => line !== undefined));
  const out: ContextRecord[] = [];
  for (const [parent, { kind, section }] of parents) {
    for (const child of parent.children) {
      if (!isElement(child) || priced.has(child) || index.visibleChars(child) > 80) continue;
      if (lineOf(child)?.kind !== kind) continue;
      const line = labelledSoftLine(collapse(textContent(child)));
      const label = line ? labelOf(line.label) : null;
      if (!line || label === null) continue;
      out.push({ mark: { ...softMark(child, line.words, line.amount), lead: line.label }, label, section });
    }
  }
  return out;
}

/**
 * The line a price's element is, or sits in (two levels up at most), and its kind: a list item, a heading (by its
 * level), or a bold line (a paragraph whose text is all one `strong`).
 */
function lineOf(el: Element): { el: Element; kind: string } | null {
  for (let node: AnyNode | null = el, depth = 0; node && isElement(node) && depth < 3; node = node.parent, depth++) {
    const tag = tagName(node);
    if (tag === "li" || isHeading(node)) return { el: node, kind: tag };
    if (tag === "p" || tag === "div") return boldLine(node) ? { el: node, kind: `${tag}>bold` } : null;
  }
  return null;
}

/**
 * Lists whose items each name an offer, as documentation and landing pages write their plans: in bold inside a
 * sentence ("The **Pro** plan offers unlimited searches for USD $10 per month."), or as the words before a dash ("Free —
 * most features", "Premium — all features — $9/year"). An item names its prices by that phrase when the phrase comes
 * before them and at least one other item of the list names itself the same way. A price in a list nested under an
 * item ("Premium — all features" over "• $9/year") is that item's.
 */
class ItemNames {
  private readonly named = new Map<Element, number>();
  /** Each item's name, read once however many prices its text states. */
  private readonly items = new Map<Element, string | null>();

  nameOf(mark: PriceMark): string | null {
    const item = listItemOf(mark.el);
    if (!item) return null;
    return this.nameOfItem(item) ?? this.ownerName(item);
  }

  /** "Free" in a list whose items name themselves: an offer at no price, named by its item ("Free — most features"). */
  freeOffer(mark: PriceMark): string | null {
    if (!mark.soft || mark.options[0]!.amount !== 0) return null;
    const item = listItemOf(mark.el);
    return item && this.nameOfItem(item) !== null ? dashName(item) : null;
  }

  private nameOfItem(item: Element): string | null {
    let name = this.items.get(item);
    if (name === undefined) {
      name = this.read(item);
      this.items.set(item, name);
    }
    return name;
  }

  /** The item a nested list belongs to: the `li` around it, or the `li` just before it (`<ul><li>…</li><ul>`). */
  private ownerName(item: Element): string | null {
    const list = item.parent;
    if (!list || !isElement(list) || !/^(?:ul|ol)$/.test(tagName(list))) return null;
    let owner: AnyNode | null = list.parent;
    if (!owner || !isElement(owner) || tagName(owner) !== "li") {
      owner = list.prev;
      while (owner && !isElement(owner)) owner = owner.prev;
    }
    return owner && isElement(owner) && tagName(owner) === "li" ? this.nameOfItem(owner) : null;
  }

  private read(item: Element): string | null {
    if (!item.parent || !isElement(item.parent)) return null;
    const list = item.parent;
    const bold = boldName(item);
    if (bold !== null) {
      const text = collapse(textContent(item));
      const at = text.indexOf(bold);
      const price = firstPriceIndex(text);
      if (at !== -1 && (price === null || at < price) && this.namedItems(list) >= 2) return bold;
    }
    const dashed = dashName(item);
    return dashed !== null && this.namedItems(list) >= 2 ? dashed : null;
  }

  /** How many items of a list name themselves, in bold or before a dash (computed once per list). */
  private namedItems(list: Element): number {
    let count = this.named.get(list);
    if (count === undefined) {
      count = list.children.filter(
        (child) => isElement(child) && tagName(child) === "li" && (boldName(child) ?? dashName(child)) !== null,
      ).length;
      this.named.set(list, count);
    }
    return count;
  }
}

/** The list item a price's element is, or sits in (two levels up at most). */
export function listItemOf(el: Element): Element | null {
  for (let node: AnyNode | null = el, depth = 0; node && isElement(node) && depth < 3; node = node.parent, depth++) {
    if (tagName(node) === "li") return node;
  }
  return null;
}

/** An item's own text, without its nested lists. */
function itemText(item: Element): string {
  let out = "";
  const walk = (node: AnyNode) => {
    if (node.type === "text") out += (node as { data: string }).data;
    else if (isElement(node) && !/^(?:ul|ol)$/.test(tagName(node))) for (const child of node.children) walk(child);
  };
  for (const child of item.children) walk(child);
  return collapse(out);
}

/** "Premium — all features": the few words before a spaced dash (or a colon) that opens an item's text. */
const DASH_NAME_RE = /^([\p{L}][\p{L}\p{N}+&' .-]{0,30}?)\s*(?:\s[—–-]\s|[:：]\s)/u;

function dashName(item: Element): string | null {
  const match = DASH_NAME_RE.exec(itemText(item));
  if (!match) return null;
  const name = match[1]!.trim();
  if (name.split(/\s+/).length > 5) return null;
  // "Free" names an offer at no price here; any other name must be one a plan could bear.
  return /^free$/i.test(name) || plausibleName(name) ? name : null;
}

/** The one bold phrase of a list item (outside its nested lists), when it can name an offer. */
function boldName(item: Element): string | null {
  const bold: Element[] = [];
  const walk = (node: Element) => {
    for (const child of node.children) {
      if (!isElement(child) || /^(?:ul|ol)$/.test(tagName(child))) continue;
      if (/^(?:strong|b)$/.test(tagName(child))) bold.push(child);
      else walk(child);
    }
  };
  walk(item);
  if (bold.length !== 1) return null;
  // A bold lead ending its sentence ("<b>Export module.</b> Access 50+ export templates.") is named without the stop.
  const name = nameText(bold[0]!).replace(/(?<=\p{L})\.$/u, "");
  return name && !/\d/.test(name) && name.split(/\s+/).length <= 4 && plausibleName(name) ? name : null;
}

/**
 * "per additional project", "for each extra seat", "for each additional 10,000,000 function invocations" after a price
 * (and its period: "$150 / year per additional device"):
 * "Additional project", "Extra seat", "Additional 10,000,000 function invocations".
 */
const AFTER_LABEL_RE =
  /^[^\p{L}]*(?:\p{Sc}|[A-Z]{3})?[\d.,'\s]*(?:\p{Sc}|[A-Z]{3})?(?:\s*(?:\/|per|a)\s*(?:month|year|mo|yr)\b)?\s*(?:\/|per|for\s+each|for\s+every|each)\s+((?:additional|extra)\s+(?:\d[\d,.]*\s+)?[\p{L}-]+(?:\s+[\p{L}-]+)?)/iu;

export function afterLabel(window: string): string | null {
  // From the price on: the words of its line before it ("Includes your first 5 users, then") say nothing of it.
  const match = AFTER_LABEL_RE.exec(window.slice(firstPriceIndex(window) ?? 0));
  if (!match) return null;
  const label = match[1]!.replace(/\s+(?:per|a|an|each|in|on|of|for|month|year|monthly|yearly)$/i, "");
  return plausibleName(label) ? label.charAt(0).toUpperCase() + label.slice(1) : null;
}

/** "the $5/month Hobby plan", "our €49 Business tier": the name between a price (and its period) and "plan" or "tier". */
const PLAN_AFTER_RE =
  /[$€£¥₹]\s*\d[\d,.]*(?:\s*(?:\/|per|a)\s*(?:month|year|mo|yr|user|seat))*\s+((?:\p{Lu}[\p{L}\p{N}+-]*\s+){0,2}\p{Lu}[\p{L}\p{N}+-]*)\s+(?:plan|tier|subscription)\b/u;

function planAfter(window: string): string | null {
  const match = PLAN_AFTER_RE.exec(window);
  return match && plausibleName(match[1]!) ? match[1]! : null;
}

/** A heading that names an offer, as its name: without its number or a trailing "pricing" ("2. Enterprise pricing"). */
function offerHeadingName(text: string): string {
  return text.replace(/^\d{1,2}[.)]\s+/, "").replace(/\s+(?:pricing|prices)$/i, "");
}

/** How far up a price's folded question is looked for: an answer's paragraphs sit a few levels inside it. */
const FOLD_LEVELS = 12;

/** The question of the `<details>` a price is folded in (or asked in), when its `<summary>` asks one. */
function foldedQuestion(el: Element): string | null {
  let node: AnyNode | null = el.parent;
  for (let level = 0; node && isElement(node) && level < FOLD_LEVELS; node = node.parent, level++) {
    if (tagName(node) !== "details") continue;
    const summary = node.children.find((child) => isElement(child) && tagName(child) === "summary");
    if (!summary || !isElement(summary)) return null;
    const text = collapse(textContent(summary));
    return text.length <= 200 && /\?\s*$/.test(text) ? text : null;
  }
  return null;
}

/** The caption of the table a price stands in (a few levels up), when it is short enough to name something. */
function captionOf(el: Element): string | null {
  let node: AnyNode | null = el.parent;
  for (let level = 0; node && isElement(node) && level < FOLD_LEVELS; node = node.parent, level++) {
    if (tagName(node) !== "table") continue;
    const caption = node.children.find((child) => isElement(child) && tagName(child) === "caption");
    const text = caption && isElement(caption) ? nameText(caption) : "";
    return text && plausibleName(text) ? text : null;
  }
  return null;
}

/** How far above a free line the card holding it may start, and how many elements before it its heading may be. */
const FREE_CARD_LEVELS = 4;
const FREE_CARD_SCAN = 40;

/**
 * "Free" set in bold on a line of its own in a card that has a heading (a lone "Community" card below the plans:
 * its heading, a sentence, "**Free**"): that card's offer at no price. Not a button's or a link's word.
 */
function freeCard(index: ElementIndex, mark: PriceMark): boolean {
  if (!mark.soft || mark.options[0]!.amount !== 0 || /^(?:a|button)$/.test(tagName(mark.el))) return false;
  const word = collapse(textContent(mark.el));
  if (!emphasised(mark.el) || !/^(?:free|gratis)$/i.test(word) || !aloneOnLine(index, mark.el, word)) return false;
  const at = index.at(mark.el);
  let card: Element | null = mark.el.parent && isElement(mark.el.parent) ? mark.el.parent : null;
  for (let level = 0; card && level < FREE_CARD_LEVELS; level++) {
    // A card's heading stands a few lines above its price: a look at a bounded stretch, not a whole page's elements.
    const start = Math.max(index.at(card), at - FREE_CARD_SCAN);
    for (let k = start; k < at; k++) if (isHeading(index.elements[k]!)) return true;
    card = card.parent && isElement(card.parent) ? card.parent : null;
  }
  return false;
}

/** The heading a price line stands right under: the element just before it, or before its parent (two levels up). */
function headingAbove(el: Element): Element | null {
  let node: Element | null = el;
  for (let level = 0; node && level < 3; level++) {
    let previous = node.prev;
    while (previous && !isElement(previous)) previous = previous.prev;
    if (previous && isElement(previous)) return isHeading(previous) ? previous : null;
    node = node.parent && isElement(node.parent) ? node.parent : null;
  }
  return null;
}

function previousElement(el: Element): Element | null {
  let previous = el.prev;
  while (previous && !isElement(previous)) previous = previous.prev;
  return previous && isElement(previous) && !isHeading(previous) ? previous : null;
}
