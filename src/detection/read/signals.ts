/**
 * Bot challenges and CAPTCHA interstitials (Extraction.signals.bot_challenge): a fetch that got one did not see the
 * page, so its extraction must not be diffed as if the competitor had emptied their site.
 */
import type { CheerioAPI } from "cheerio";
import { allElements, collapse, elementsNamed, textContent } from "../parse/html.js";

const CHALLENGE_TITLE_RE =
  /^(?:just a moment\.*|attention required! \| cloudflare|please wait\.* \| cloudflare|one more step|ddos-guard|checking your browser.*|verifying you are human.*|security check(?:point)?|human verification)$/i;
const CHALLENGE_MARKUP =
  "#challenge-form, #challenge-running, #challenge-stage, #cf-challenge-running, .cf-browser-verification, #cf-error-details, #cf-wrapper, .cf-turnstile-wrapper, [id^=cf-chl], script[src*='/cdn-cgi/challenge-platform/'], #px-captcha, script[src*='captcha-delivery.com'], iframe[src*='captcha-delivery.com']";
/** Every id, class and src the two selectors above match contains one of these. */
const CHALLENGE_WORDS_RE = /challenge|cf-|captcha|turnstile/i;
const CHALLENGE_TEXT_RE =
  /checking (?:if the site connection is secure|your browser before accessing)|verify(?:ing)? you are (?:a )?human|enable javascript and cookies to continue|needs to review the security of your connection|press (?:&|and) hold to confirm|please complete the security check/i;
const CAPTCHA_MARKUP =
  ".g-recaptcha, .h-captcha, .cf-turnstile, iframe[src*='recaptcha'], iframe[src*='hcaptcha.com'], iframe[src*='challenges.cloudflare.com'], script[src*='hcaptcha.com'], script[src*='recaptcha/api.js']";
const DENIED_RE =
  /\b(?:access denied|access to this page has been denied|you have been blocked|request blocked|403 forbidden|you don't have permission to access)\b/i;

export interface ChallengeMarkup {
  title: string;
  challengeMarkup: boolean;
  captchaMarkup: boolean;
  inlineChallengeScript: boolean;
}

/** Read on the raw document, before scripts, iframes and forms are removed. */
export function readChallengeMarkup($: CheerioAPI): ChallengeMarkup {
  const titleEl = elementsNamed($, "title")[0];
  const inlineChallengeScript = elementsNamed($, "script").some((el) =>
    /_cf_chl_opt|__cf_chl_|cf_chl_prog/.test(textContent(el)),
  );
  // The selectors below walk the whole page; most pages carry none of the words they look for in any id, class or src.
  const suspect = allElements($).some((el) => {
    const { id, class: classes, src } = el.attribs;
    return (
      (id !== undefined && CHALLENGE_WORDS_RE.test(id)) ||
      (classes !== undefined && CHALLENGE_WORDS_RE.test(classes)) ||
      (src !== undefined && CHALLENGE_WORDS_RE.test(src))
    );
  });
  return {
    title: titleEl ? collapse(textContent(titleEl)) : "",
    challengeMarkup: suspect && $(CHALLENGE_MARKUP).length > 0,
    captchaMarkup: suspect && $(CAPTCHA_MARKUP).length > 0,
    inlineChallengeScript,
  };
}

/**
 * `visibleText` is the body text without scripts and styles (but with forms: a challenge lives in one).
 * A CAPTCHA counts only with little other text: a long contact page with reCAPTCHA on its form is still a page.
 */
export function isBotChallenge(markup: ChallengeMarkup, visibleText: string, headings: string): boolean {
  // Only counts below 300 matter: counting stops there rather than splitting a page of megabytes into its words.
  const words = countWords(visibleText, 300);
  if (CHALLENGE_TITLE_RE.test(markup.title)) return true;
  if (/\bcloudflare\b/i.test(markup.title) && /attention required|access denied|blocked/i.test(markup.title))
    return true;
  if ((markup.challengeMarkup || markup.inlineChallengeScript) && words < 300) return true;
  if (words < 200 && CHALLENGE_TEXT_RE.test(visibleText)) return true;
  if (markup.captchaMarkup && words < 120) return true;
  if (DENIED_RE.test(`${markup.title} ${headings} ${visibleText.slice(0, 300)}`) && words < 50) return true;
  return false;
}

/** Words (runs of non-space) in `text`, counted up to `limit`. */
function countWords(text: string, limit: number): number {
  const word = /\S+/g;
  let count = 0;
  while (count < limit && word.exec(text)) count += 1;
  return count;
}
