/**
 * Extraction: one fetched body → the Extraction stored with its snapshot (src/detection/types.ts). Built for real
 * pages, not for a demo string (docs/real-pages.md): a real HTML parser, boilerplate removal, volatile
 * tokens masked, pricing/jobs/items read from structured data first and from the visible page second, feeds parsed
 * as feeds. It never throws: odd input yields an Extraction with whatever could be found.
 */
import { withoutNul } from "../fetch/page-text.js";
import type { Extraction, Narrative, PricingPlan } from "../types.js";
import { EXTRACTOR_VERSION, isPlanRecord } from "../types.js";
import { extractFeed, looksLikeFeed } from "./feed.js";
import {
  bodyOf,
  collapse,
  elementsNamed,
  loadHtml,
  mainRoot,
  stripBoilerplate,
  stripNonContent,
  textContent,
  type Element,
} from "../parse/html.js";
import { extractItems } from "./items.js";
import { extractJobs } from "./jobs.js";
import type { JsonLd } from "./jsonld.js";
import { mainTextLines } from "./main-text.js";
import { maskVolatile } from "../parse/mask.js";
import { extractNarrative, readHead, type HeadFields } from "./narrative.js";
import { readStructuredData } from "./pricing/offers.js";
import { extractPricing } from "./pricing/index.js";
import { isBotChallenge, readChallengeMarkup, type ChallengeMarkup } from "./signals.js";
import { ElementIndex } from "../parse/tree.js";

export { maskVolatile } from "../parse/mask.js";

export interface ExtractOptions {
  /** The fetched URL: relative links resolve against it. */
  url: string;
  /** The response's Content-Type, when there was one. */
  contentType: string | null;
  fetchMethod: "http" | "rss";
}

/** Bodies beyond this are cut: no competitor page needs more, and it bounds the work done on a hostile one. */
const MAX_BODY_CHARS = 5_000_000;

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

const EMPTY_NARRATIVE: Narrative = { title: null, meta_description: null, h1: [], h2: [], hero: null };

function emptyExtraction(): Extraction {
  return {
    version: EXTRACTOR_VERSION,
    text: "",
    pricing: [],
    jobs: [],
    items: [],
    narrative: { ...EMPTY_NARRATIVE, h1: [], h2: [] },
    signals: { bot_challenge: false },
  };
}

/** Masked text lines, consecutive duplicates dropped: `Extraction.text` of the lines read. */
export function maskedText(lines: string[]): string {
  const out: string[] = [];
  // A page repeats its lines ("Unlimited", every card's "$49/mo"): each distinct line is masked once.
  const masks = new Map<string, string>();
  for (const line of lines) {
    let masked = masks.get(line);
    if (masked === undefined) {
      masked = maskVolatile(line);
      masks.set(line, masked);
    }
    if (masked && masked !== out[out.length - 1]) out.push(masked);
  }
  return out.join("\n");
}

/**
 * Prices as the page's language writes them: "¥" is the yuan on a Chinese page (`<html lang="zh-CN">`), the yen
 * elsewhere (money.ts reads it as JPY; a Japanese page also writes 円, a Chinese one 元).
 */
function inPageCurrency(plans: PricingPlan[], lang: string): PricingPlan[] {
  if (!/^zh\b/i.test(lang.trim())) return plans;
  const yuan = <T extends { currency: string | null }>(price: T): T =>
    price.currency === "JPY" ? { ...price, currency: "CNY" } : price;
  return plans.map((plan) => ({ ...yuan(plan), ...(plan.prices ? { prices: plan.prices.map(yuan) } : {}) }));
}

function extractHtml(body: string, options: ExtractOptions): Extraction {
  const $ = loadHtml(body);
  // Read before anything is removed: JSON-LD lives in scripts, microdata in <meta>/<link> the boilerplate pass drops,
  // challenge markup in scripts, iframes and forms.
  const ld = safely<JsonLd>(() => readStructuredData($), { nodes: [], byId: new Map() });
  const head = safely<HeadFields>(() => readHead($), { title: null, meta_description: null });
  const markup = safely<ChallengeMarkup>(() => readChallengeMarkup($), {
    title: "",
    challengeMarkup: false,
    captchaMarkup: false,
    inlineChallengeScript: false,
  });

  safely(() => stripNonContent($), undefined);
  const visibleText = safely(() => collapse(textContent(bodyOf($).get(0)!)), "");
  const headings = safely(() => collapse(elementsNamed($, "h1").map(textContent).join(" ")), "");
  const botChallenge = safely(() => isBotChallenge(markup, visibleText, headings), false);

  safely(() => stripBoilerplate($), undefined);
  const bodyNode = bodyOf($).get(0)!;
  const mainNode = safely(() => mainRoot($).get(0)!, bodyNode);
  // One index of the cleaned tree for every reader below (src/detection/parse/tree.ts): the tree no longer changes.
  const index = new ElementIndex(bodyNode);

  const found = safely(() => extractItems(bodyNode, options.url, index), { items: [], blocks: [] as Element[] });
  const pricing = inPageCurrency(
    safely(() => extractPricing(bodyNode, ld, found.blocks, safely, index), []),
    // The root's children, not a search of the whole page (parse5 always builds the html element there).
    safely(() => $.root().children("html").attr("lang") ?? "", ""),
  );
  // A page that states plans is a pricing page, whatever its og:type says: its text is the main node's, not the one
  // densest block Readability would keep of it.
  const mayBeArticle = pricing.filter(isPlanRecord).length < 2;
  return {
    version: EXTRACTOR_VERSION,
    text: safely(() => maskedText(mainTextLines($, mainNode, ld, mayBeArticle, index)), ""),
    pricing,
    jobs: safely(() => extractJobs(bodyNode, ld, options.url, index), []),
    items: found.items,
    narrative: safely(() => extractNarrative(head, bodyNode, mainNode, index), {
      ...EMPTY_NARRATIVE,
      title: head.title,
      meta_description: head.meta_description,
      h1: [],
      h2: [],
    }),
    signals: { bot_challenge: botChallenge },
  };
}

/** Extracts text, pricing plans, jobs, content items, narrative and signals from one fetched body. */
export function extract(body: string, options: ExtractOptions): Extraction {
  try {
    const raw = typeof body === "string" ? body : String(body ?? "");
    // NUL is never page text, and parse5 reports each one as an error: 0.1 MB with one in 40 characters took 1.5 s.
    const input = withoutNul(raw.length > MAX_BODY_CHARS ? raw.slice(0, MAX_BODY_CHARS) : raw);
    const fetchMethod = options?.fetchMethod === "rss" ? "rss" : "http";
    const url = typeof options?.url === "string" ? options.url : "";
    const contentType = typeof options?.contentType === "string" ? options.contentType : null;
    if (looksLikeFeed(input, contentType, fetchMethod)) {
      const feed = safely(() => extractFeed(input, url), null);
      if (feed) return feed;
    }
    return extractHtml(input, { url, contentType, fetchMethod });
  } catch {
    return emptyExtraction();
  }
}
