/**
 * Layout invariance: how much the records read off a real pricing page depend on its markup rather than on what a
 * visitor reads. Each product's first, middle and last version in the pricing-history corpus (scripts/corpus/, pages
 * outside git) is read as it is and again after a rewrite that keeps what a visitor reads (headings made `<div
 * class="title">` or bold lines, every paragraph and list item wrapped in a div, every class stripped); a page counts
 * as invariant under a rewrite when the records it names (name and amounts, records named by their context left
 * out) come out the same. No labels are needed, so it measures every product, held-out ones included, without reading
 * their labels.
 *
 * The rewrites are textual (regular expressions over the HTML), so a few pages change more than the rewrite means to
 * (a heading inside a script's template); the figure is a probe of robustness, not a score against labels.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { pagesDir } from "../../scripts/corpus/manifest.js";
import { extract } from "../../src/detection/read/index.js";
import { priceOptions } from "../../src/detection/read/pricing/plan.js";
import type { Extraction } from "../../src/detection/types.js";

/** Rewrites that keep what a visitor reads, by name. */
export const LAYOUT_REWRITES: Record<string, (html: string) => string> = {
  'headings made <div class="title">': (html) =>
    html.replace(/<h([2-5])(\s[^>]*)?>/gi, '<div class="title"$2>').replace(/<\/h[2-5]>/gi, "</div>"),
  "h3–h5 made bold lines": (html) =>
    html.replace(/<h[3-5](?:\s[^>]*)?>/gi, "<p><strong>").replace(/<\/h[3-5]>/gi, "</strong></p>"),
  "paragraphs and list items wrapped in a div": (html) =>
    html
      .replace(/<(p|li)(\s[^>]*)?>/gi, (open) => `<div class="w">${open}`)
      .replace(/<\/(p|li)>/gi, (close) => `${close}</div>`),
  "every class stripped": (html) => html.replace(/\sclass="[^"]*"/gi, ""),
};

export interface InvarianceScore {
  rewrite: string;
  /** Pages read with at least one named record. */
  pages: number;
  /** Of them, pages whose named records (names and amounts) are the same after the rewrite. */
  same: number;
  /** Of them, pages whose amounts alone (every record, in any order) are the same. */
  sameAmounts: number;
  /** Up to five pages that changed, as `product/file`. */
  changed: string[];
}

const OPTIONS = { url: "https://pricing.test/", contentType: "text/html; charset=utf-8", fetchMethod: "http" } as const;

const amountsOf = (extraction: Extraction): string =>
  extraction.pricing
    .map((plan) =>
      priceOptions(plan)
        .map((option) => option.amount)
        .join("/"),
    )
    .sort()
    .join(" ");

const namedOf = (extraction: Extraction): string =>
  extraction.pricing
    .filter((plan) => plan.origin !== "context")
    .map(
      (plan) =>
        `${plan.name.toLowerCase()}=${priceOptions(plan)
          .map((option) => option.amount)
          .join("/")}`,
    )
    .sort()
    .join(" | ");

/** The first, middle and last built page of each product. */
function samplePages(): { id: string; html: string }[] {
  const root = pagesDir();
  if (!existsSync(root)) return [];
  const out: { id: string; html: string }[] = [];
  for (const product of readdirSync(root).sort()) {
    const dir = path.join(root, product);
    const files = readdirSync(dir)
      .filter((file) => file.endsWith(".html"))
      .sort();
    const picked = [...new Set([files[0], files[Math.floor(files.length / 2)], files[files.length - 1]])];
    for (const file of picked)
      if (file) out.push({ id: `${product}/${file}`, html: readFileSync(path.join(dir, file), "utf8") });
  }
  return out;
}

export function measureLayoutInvariance(): InvarianceScore[] {
  const scores = Object.keys(LAYOUT_REWRITES).map((rewrite): InvarianceScore => ({
    rewrite,
    pages: 0,
    same: 0,
    sameAmounts: 0,
    changed: [],
  }));
  for (const page of samplePages()) {
    const base = extract(page.html, OPTIONS);
    const named = namedOf(base);
    if (named === "") continue;
    Object.values(LAYOUT_REWRITES).forEach((rewrite, k) => {
      const score = scores[k]!;
      const read = extract(rewrite(page.html), OPTIONS);
      score.pages++;
      if (namedOf(read) === named) score.same++;
      else if (score.changed.length < 5) score.changed.push(page.id);
      if (amountsOf(read) === amountsOf(base)) score.sameAmounts++;
    });
  }
  return scores;
}
