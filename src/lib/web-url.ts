/**
 * URLs that come from a third party (a search API's post link, a provider's answer) and are stored: only absolute
 * `http:` and `https:` URLs are kept (docs/product-rules.md#firehose). Whatever is stored flows into links a person
 * follows (the public demo feed, emails, webhooks, CRM notes, chat citations), so a `javascript:` or `data:` link, or
 * one that hides another host behind user info (`https://www.reddit.com@evil.example/`), is refused where it enters,
 * not escaped wherever it leaves.
 */

/** Longer than any link a provider issues; bounds what a third party can make us store. */
export const MAX_WEB_URL_LENGTH = 2048;

/**
 * The URL's normalised `href` when it is an absolute http(s) URL without user info (and, with `host`, on that host),
 * otherwise null.
 */
export function webUrl(raw: unknown, options: { host?: string } = {}): string | null {
  if (typeof raw !== "string") return null;
  const trimmed = raw.trim();
  if (trimmed === "" || trimmed.length > MAX_WEB_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "") return null;
  if (options.host !== undefined && url.hostname !== options.host) return null;
  return url.href.length > MAX_WEB_URL_LENGTH ? null : url.href;
}
