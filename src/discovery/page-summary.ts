/**
 * What verifying a candidate page reads from its body (docs/product-rules.md#discovery-and-profile): the page's
 * `<title>` (a feed's channel title) and, when asked, its visible text (the pricing page's wording). Runs in the
 * parse pool (src/detection/parse/parse-pool.ts), like every parse of a fetched page.
 */
import { looksLikeFeed } from "../detection/read/feed.js";
import { blockLines, bodyOf, collapse, loadHtml, loadXml } from "../detection/parse/html.js";

export interface PageSummary {
  title: string | null;
  /** Visible text, one block per line, only when asked for. */
  text: string | null;
}

export function summarizePage(body: string, contentType: string | null, withText: boolean): PageSummary {
  if (looksLikeFeed(body, contentType, "http")) {
    const $ = loadXml(body);
    const title = collapse($("channel > title, feed > title").first().text()) || null;
    return { title, text: withText ? title : null };
  }
  const $ = loadHtml(body);
  const title = collapse($("title").first().text()) || null;
  const text = withText ? blockLines(bodyOf($).get(0) ?? $.root().get(0)!).join("\n") : null;
  return { title, text };
}
