/**
 * Linear-time questions about a parsed tree. The extractors ask, for many elements at once, "is it inside that one",
 * "which of these hold none of the others", "how long is its text"; answered by walking the tree per element, a page
 * of nested or repeated elements made that quadratic (docs/product-rules.md#extraction: extraction must finish on
 * any page). One pre-order pass answers them all: an element's descendants are the elements right after it in
 * document order, up to its last descendant.
 */
import type { AnyNode, Element, Text } from "domhandler";

function isElement(node: AnyNode | null | undefined): node is Element {
  return !!node && (node.type === "tag" || node.type === "script" || node.type === "style");
}

/** Elements whose text is not page text (as html.ts's textContent skips them). */
const SKIPPED_TAGS = new Set(["script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "head"]);

/** Whitespace and the characters collapse() drops or turns into spaces: they never count as visible text. */
// eslint-disable-next-line no-control-regex -- control characters are junk, exactly as in html.ts's collapse
const NOT_VISIBLE = /[\s\u200b-\u200d\u2060\ufeff\u0000-\u0008\u000e-\u001f\u007f\ufffe\uffff]/g;

/** Pre-order positions of the elements under a root (the root excluded), computed once. */
export class ElementIndex {
  /** The elements in document order. */
  readonly elements: Element[];
  /** Each element's position, kept on the element under a key of this index's own (faster than a Map lookup). */
  private readonly key = Symbol("position");
  /** For the element at position i, the position of its last descendant (i when it has none). */
  private readonly last: Int32Array;
  /** For the element at position i, its parent's position (-1 when the parent is the root or above it). */
  private readonly parents: Int32Array;
  /** 1 for an element whose text is not page text (SKIPPED_TAGS): its parent does not count it. */
  private readonly textless: Uint8Array;
  private visible: Int32Array | null = null;
  private visibleOutsideLists: Int32Array | null = null;

  constructor(readonly root: AnyNode) {
    const elements: Element[] = [];
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
      (node as unknown as Record<symbol, number>)[this.key] = elements.length;
      elements.push(node);
      pushChildren(node);
    }
    this.elements = elements;
    this.parents = new Int32Array(elements.length);
    this.textless = new Uint8Array(elements.length);
    for (let i = 0; i < elements.length; i += 1) {
      this.parents[i] = this.at(elements[i]!.parent);
      this.textless[i] = SKIPPED_TAGS.has(elements[i]!.name.toLowerCase()) ? 1 : 0;
    }
    // Sizes bottom-up: children come after their parent in pre-order, so a reverse pass sees them first.
    const size = new Int32Array(elements.length).fill(1);
    for (let i = elements.length - 1; i >= 0; i -= 1) {
      const parent = this.parents[i]!;
      if (parent !== -1) size[parent]! += size[i]!;
    }
    this.last = new Int32Array(elements.length);
    for (let i = 0; i < elements.length; i += 1) this.last[i] = i + size[i]! - 1;
  }

  /** Position of an indexed element, or -1. */
  at(el: AnyNode | null): number {
    return (el as unknown as Record<symbol, number> | null)?.[this.key] ?? -1;
  }

  /** True when `node` is `ancestor` or lies inside it. Walks up for nodes the index does not hold (text nodes). */
  contains(ancestor: AnyNode, node: AnyNode | null): boolean {
    if (!node) return false;
    if (node === ancestor) return true;
    const a = this.at(ancestor);
    const target = isElement(node) ? node : node.parent;
    const n = target ? this.at(target) : -1;
    if (a === -1 || n === -1) {
      for (let current: AnyNode | null = node; current; current = current.parent) if (current === ancestor) return true;
      return false;
    }
    return a <= n && n <= this.last[a]!;
  }

  /** How many elements lie inside `el` (not counting it), in constant time. */
  sizeInside(el: Element): number {
    const i = this.at(el);
    return i === -1 ? 0 : this.last[i]! - i;
  }

  /** The elements inside `el` (not `el` itself), in document order. */
  inside(el: Element): Element[] {
    const i = this.at(el);
    return i === -1 ? [] : this.elements.slice(i + 1, this.last[i]! + 1);
  }

  /** The first element inside `el` (not `el` itself) in document order that passes `test`, without copying them. */
  findInside(el: Element, test: (inner: Element) => boolean): Element | undefined {
    const i = this.at(el);
    if (i === -1) return undefined;
    for (let k = i + 1; k <= this.last[i]!; k += 1) if (test(this.elements[k]!)) return this.elements[k]!;
    return undefined;
  }

  /** The members of `set` that hold no other member. */
  innermost(set: Iterable<Element>): Element[] {
    const sorted = this.sorted(set);
    return sorted.filter((i, k) => k + 1 >= sorted.length || sorted[k + 1]! > this.last[i]!).map(this.element);
  }

  /** The members of `set` that lie inside no other member. */
  outermost(set: Iterable<Element>): Element[] {
    const out: Element[] = [];
    let coveredUntil = -1;
    for (const i of this.sorted(set)) {
      if (i <= coveredUntil) continue;
      out.push(this.elements[i]!);
      coveredUntil = this.last[i]!;
    }
    return out;
  }

  /** A membership test "inside one of `set`" (a member itself included), by a binary search over their ranges. */
  insideAny(set: Iterable<Element>): (node: Element) => boolean {
    const starts = this.outermost(set).map((el) => this.at(el));
    return (node) => {
      const i = this.at(node);
      let lo = 0;
      let hi = starts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid]! <= i) lo = mid + 1;
        else hi = mid;
      }
      return i !== -1 && lo > 0 && i <= this.last[starts[lo - 1]!]!;
    };
  }

  /** For every element at once, its nearest proper ancestor passing `test` (within the index), or null. */
  nearestAncestor(test: (el: Element) => boolean): (node: Element) => Element | null {
    const nearest = new Int32Array(this.elements.length).fill(-1);
    // Parents come before their children in document order.
    for (let i = 0; i < this.elements.length; i += 1) {
      const parent = this.parents[i]!;
      if (parent !== -1) nearest[i] = test(this.elements[parent]!) ? parent : nearest[parent]!;
    }
    return (node) => {
      const i = this.at(node);
      return i === -1 || nearest[i] === -1 ? null : this.elements[nearest[i]!]!;
    };
  }

  /** A test "has a member of `set` strictly inside it", answered by a binary search over their positions. */
  holdsAny(set: Iterable<Element>): (node: Element) => boolean {
    const first = this.firstInside(set);
    return (node) => first(node) !== null;
  }

  /** Whether an element is a member of `set` or holds one (a price element, or a block around one). */
  isOrHoldsAny(set: Iterable<Element>): (node: Element) => boolean {
    const members = new Set(set);
    const holds = this.holdsAny(members);
    return (node) => members.has(node) || holds(node);
  }

  /** The first member of `set` (in document order) strictly inside an element, by a binary search. */
  firstInside(set: Iterable<Element>): (node: Element) => Element | null {
    const positions = this.sorted(set);
    return (node) => {
      const i = this.at(node);
      if (i === -1) return null;
      let lo = 0;
      let hi = positions.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (positions[mid]! <= i) lo = mid + 1;
        else hi = mid;
      }
      return lo < positions.length && positions[lo]! <= this.last[i]! ? this.elements[positions[lo]!]! : null;
    };
  }

  /**
   * Characters of visible text inside `el` (whitespace and junk not counted, script-like subtrees skipped): a lower
   * bound of the length of its collapsed text, read in constant time.
   */
  visibleChars(el: Element): number {
    const i = this.at(el);
    if (i === -1) return Number.MAX_SAFE_INTEGER;
    this.visible ??= this.countVisible(false);
    return this.visible[i]!;
  }

  /** Like visibleChars, without the text of list items (a plan card's feature list, say). */
  visibleCharsOutsideLists(el: Element): number {
    const i = this.at(el);
    if (i === -1) return Number.MAX_SAFE_INTEGER;
    this.visibleOutsideLists ??= this.countVisible(true);
    return this.visibleOutsideLists[i]!;
  }

  /**
   * A test "the text inside the element matches `re`", for every element in one pass: each text node is tested
   * once, not once per enclosing element. A match split across two elements ("coo<b>kie</b>") is not seen.
   */
  textMatches(re: RegExp): (el: Element) => boolean {
    const matches = new Uint8Array(this.elements.length);
    for (let i = this.elements.length - 1; i >= 0; i -= 1) {
      if (!matches[i]) {
        for (const child of this.elements[i]!.children) {
          if (child.type === "text" && re.test((child as Text).data)) {
            matches[i] = 1;
            break;
          }
        }
      }
      const parent = this.parents[i]!;
      if (parent !== -1 && matches[i] && !this.textless[i]) matches[parent] = 1;
    }
    return (el) => matches[this.at(el)] === 1;
  }

  private countVisible(skipListItems: boolean): Int32Array {
    const counts = new Int32Array(this.elements.length);
    for (let i = this.elements.length - 1; i >= 0; i -= 1) {
      const el = this.elements[i]!;
      for (const child of el.children) {
        if (child.type === "text") counts[i]! += visibleLength((child as Text).data);
      }
      const parent = this.parents[i]!;
      if (parent !== -1 && !this.textless[i] && !(skipListItems && el.name.toLowerCase() === "li")) {
        counts[parent]! += counts[i]!;
      }
    }
    return counts;
  }

  private readonly element = (i: number): Element => this.elements[i]!;

  private sorted(set: Iterable<Element>): number[] {
    const positions = [...new Set([...set].map((el) => this.at(el)))].filter((i) => i !== -1);
    return positions.sort((a, b) => a - b);
  }
}

function visibleLength(text: string): number {
  return text.replace(NOT_VISIBLE, "").length;
}

/**
 * Removes nodes from the tree in one pass over their parents' children. Cheerio's `remove()` splices each node out
 * of its parent's child list, so removing the many children of one parent (100k scripts in a row) was quadratic.
 */
export function removeNodes(nodes: Iterable<AnyNode>): number {
  let count = 0;
  const byParent = new Map<AnyNode, Set<AnyNode>>();
  for (const node of nodes) {
    const parent = node.parent;
    if (!parent) continue;
    let set = byParent.get(parent);
    if (!set) byParent.set(parent, (set = new Set()));
    set.add(node);
  }
  for (const [parent, removed] of byParent) {
    if (!("children" in parent) || !Array.isArray(parent.children)) continue;
    const kept = parent.children.filter((child) => !removed.has(child));
    kept.forEach((child, i) => {
      child.prev = kept[i - 1] ?? null;
      child.next = kept[i + 1] ?? null;
    });
    parent.children = kept;
    for (const node of removed) {
      count++;
      node.parent = null;
      node.prev = null;
      node.next = null;
    }
  }
  return count;
}
