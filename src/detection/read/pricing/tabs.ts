/**
 * Tabs that switch between panes of a pricing page (a "Cloud" and a "Self-host" pane, one pane per machine type):
 * what a visitor clicks names the pane it shows. Found by ARIA (`role="tab"` with `aria-controls`), Bootstrap
 * (`data-toggle="tab"` with its `#target`), or a button whose click handler passes a pane's id
 * (`onclick="openPricing(event, 'selfHost')"`, the tabs of many hand-written pages).
 */
import { isElement, tagName, type Element } from "../../parse/html.js";
import type { ElementIndex } from "../../parse/tree.js";

/** A tab switching between panes: `role="tab"`, or Bootstrap's `data-toggle="tab"` / `"pill"`. */
export function isTab(el: Element): boolean {
  const toggle = el.attribs["data-toggle"] ?? el.attribs["data-bs-toggle"];
  return el.attribs.role === "tab" || toggle === "tab" || toggle === "pill";
}

/** A list of tabs: marked so, or whose items are (or hold) tabs. Navigation between panes, never a row of names. */
export function isTabList(el: Element): boolean {
  return (
    el.attribs.role === "tablist" ||
    el.children.some((item) => isElement(item) && (isTab(item) || item.children.some((c) => isElement(c) && isTab(c))))
  );
}

/** The id a click handler passes: `openPricing(event, 'selfHost')`, `show('cloud')`. */
const HANDLER_ID_RE = /\(\s*(?:event\s*,\s*)?['"]([\w-]+)['"]\s*\)/;

/** The tabs of the page by the id of the pane each shows. */
export function tabsByPane(index: ElementIndex): Map<string, Element> {
  const tabs = new Map<string, Element>();
  const handlers: Element[] = [];
  for (const el of index.elements) {
    if (el.attribs.onclick && /^(?:button|a|li)$/.test(tagName(el))) handlers.push(el);
    if (!isTab(el)) continue;
    const { "aria-controls": controls, href } = el.attribs;
    const target = el.attribs["data-target"] ?? el.attribs["data-bs-target"] ?? href;
    const id = controls ?? (target?.startsWith("#") ? target.slice(1) : undefined);
    if (id && !tabs.has(id)) tabs.set(id, el);
  }
  // A click handler's argument is a pane's id only where an element bears it; most pages have no such handler, so
  // the ids are gathered only for those that do.
  if (handlers.length === 0) return tabs;
  const ids = new Set(index.elements.map((el) => el.attribs.id).filter((id): id is string => !!id));
  for (const el of handlers) {
    const id = HANDLER_ID_RE.exec(el.attribs.onclick!)?.[1];
    if (id && ids.has(id) && !tabs.has(id)) tabs.set(id, el);
  }
  return tabs;
}
