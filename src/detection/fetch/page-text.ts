/**
 * What a fetched body must be before it is parsed or stored: text. Pages are written by anyone, so a tracked URL may
 * answer an image, a PDF or binary junk, and text may carry NUL characters, which Postgres refuses in text and JSON
 * (docs/product-rules.md#detection).
 */

/**
 * A fetched page that cannot be read, for a reason that fetching it again would not change (not text, too complex to
 * parse). Its message is recorded on the source as is, so it is written for the customer.
 */
export class PageError extends Error {
  constructor(
    message: string,
    /** The page stands between us and the content (a bot challenge): counted as `blocked` in the fetch metrics. */
    readonly blocked = false,
  ) {
    super(message);
    this.name = "PageError";
  }
}

/** Media types read as text: HTML, XML (feeds, sitemaps, XHTML), JSON and plain text. */
const TEXT_TYPE = /^(?:text\/[\w.+-]+|application\/(?:[\w.-]+\+)?(?:xml|json)|application\/(?:x-)?javascript)$/;
/** Types servers send when they do not know: the body decides. */
const UNKNOWN_TYPES = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown"]);
/** How much of the body the binary check reads (as browsers sniff a resource's first bytes). */
const SNIFF_CHARS = 8192;

/** The media type of a Content-Type header, lowercased, without parameters ("" when absent). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * True when the start of a decoded body is mostly not text: more than a tenth of its first 8 KB are control
 * characters (NUL included) or U+FFFD, the replacement character invalid UTF-8 decodes to. A stray NUL in a page is
 * not enough.
 */
export function looksBinary(body: string): boolean {
  const head = body.slice(0, SNIFF_CHARS);
  if (head.length === 0) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what binary content is made of
  const junk = head.replace(/[^\u0000-\u0008\u000b\u000e-\u001a\u001c-\u001f\ufffd]/g, "").length;
  return junk > head.length / 10;
}

/**
 * The body as text to parse and store: NUL characters removed. Throws a PageError when the page is not text, by its
 * declared type ("not a text page: image/png") or, for an unknown or text type, by its content.
 */
export function pageText(result: { body: string; contentType: string | null }): string {
  const type = mediaType(result.contentType);
  if (!UNKNOWN_TYPES.has(type) && !TEXT_TYPE.test(type)) throw new PageError(`not a text page: ${type}`);
  if (looksBinary(result.body)) {
    throw new PageError(
      `not a text page: ${UNKNOWN_TYPES.has(type) ? "binary content" : `binary content sent as ${type}`}`,
    );
  }
  return withoutNul(result.body);
}

/** Text without NUL characters, which Postgres cannot store. */
export function withoutNul(text: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is the character removed
  return text.includes("\u0000") ? text.replace(/\u0000/g, "") : text;
}

/** Lone UTF-16 surrogates (a JSON-LD "\ud800", or text cut mid-pair): Postgres refuses them in JSON. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A copy of a JSON-shaped value whose strings Postgres can store: no NUL, lone surrogates replaced by U+FFFD. */
export function storable<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === "string" ? withoutNul(v).replace(LONE_SURROGATE, "\ufffd") : v,
    ),
  ) as T;
}
