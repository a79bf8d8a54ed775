/**
 * A corpus of hostile page bodies, generated on demand (never committed as files): what anyone can publish at a URL a
 * customer tracks. Each is at most about 5 MB, the outbound client's cap on a body (docs/product-rules.md#detection).
 * Used by test/detection/hostile-corpus.test.ts and by the `extraction` scenario of `npm run bench`.
 */

export interface HostileBody {
  name: string;
  /** Which reader the body is aimed at: a page, a feed, a sitemap or a homepage (discovery). */
  kind: "html" | "feed" | "sitemap";
  contentType: string;
  make: () => string;
}

/** Megabytes as the names show them: "5 MB", "0.5 MB". */
const mb = (chars: number): string => `${Number((chars / 1_000_000).toFixed(2))} MB`;
/** Counts as the names show them: "1M", "100k", "20k", "500". */
const count = (n: number): string =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : `${n}`;

/** How many columns of about `width` characters (a head cell and a price cell) fill `size`. */
const columns = (size: number, width: number): number => Math.max(3, Math.floor(size / width));

/** `unit` repeated until the result is about `size` characters. */
function fill(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

const page = (body: string, head = ""): string =>
  `<!doctype html><html><head><title>Hostile</title>${head}</head><body><h1>Plans</h1>${body}</body></html>`;

const html = (name: string, make: () => string): HostileBody => ({
  name,
  kind: "html",
  contentType: "text/html; charset=utf-8",
  make,
});
const feed = (name: string, make: () => string): HostileBody => ({
  name,
  kind: "feed",
  contentType: "application/rss+xml",
  make,
});
const sitemap = (name: string, make: () => string): HostileBody => ({
  name,
  kind: "sitemap",
  contentType: "application/xml",
  make,
});

/** Deterministic pseudo-random bytes (a linear congruential generator), as latin1 text. */
function binary(size: number): string {
  const out: string[] = [];
  let seed = 42;
  for (let i = 0; i < size; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out.push(String.fromCharCode(seed & 0xff));
  }
  return out.join("");
}

function nested(open: string, close: string, depth: number, inner: string): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

/**
 * Every hostile body, in a fixed order, the large ones about `size` characters (5 MB, the outbound client's cap, by
 * default; the test runs a smaller copy). Counts that make a shape hostile (100k levels, 100k comments) do not scale.
 */
export function hostileBodies(size = 5_000_000): HostileBody[] {
  const MB = size / 5;
  return [
    ...structure(size, MB),
    ...textTraps(size),
    ...records(MB),
    ...jsonLd(size, MB),
    ...feeds(size),
    ...sitemaps(size),
  ];
}

function structure(size: number, MB: number): HostileBody[] {
  return [
    html("deep nesting: 100k divs", () => page(nested("<div>", "</div>", 100_000, "<p>Pro $49/month</p>"))),
    html(`deep nesting: 100k classed divs around ${mb(MB)} of text`, () =>
      page(nested('<div class="cookie-banner plan-name">', "</div>", 100_000, fill("privacy words ", MB))),
    ),
    html("deep nesting: 100k tables", () => page(nested("<table><tr><td>", "</td></tr></table>", 100_000, "cell"))),
    html("deep nesting: 100k lists with dated items", () =>
      page(nested("<ul><li><a href='/p'>Post</a> 2026-01-02", "</li></ul>", 100_000, "end")),
    ),
    html(`deep nesting: 500 classed blocks around ${mb(4 * MB)} of headings`, () =>
      page(
        nested(
          '<div class="post-item job plan-name">',
          "</div>",
          500,
          fill('<h3 class="plan-name">Pro</h3><span class="price">$9/mo</span>', 4 * MB),
        ),
      ),
    ),
    html(`deep nesting: 500 items holding ${mb(MB)} of text`, () =>
      page(nested("<article><h2>Entry 2026-01-02</h2>", "</article>", 500, fill("word ", MB))),
    ),
    html(`unclosed tags: ${count(size / 5)} '<div' without '>'`, () => page("<div".repeat(size / 5))),
    html(`unclosed tags: ${count(size / 10)} '<div>'`, () => page("<div>".repeat(size / 10))),
    html(`unclosed tags: ${mb(4 * MB)} of formatting elements`, () => page(fill("<b><i><u>x", 4 * MB))),
    html(`unclosed tags: ${count((size / 50) * 3)} distinct formatting elements`, () =>
      page(Array.from({ length: (size / 50) * 3 }, (_, i) => `<b id=b${i}>x`).join("")),
    ),
    html(`unclosed tags: ${mb(4 * MB)} of anchors`, () => page(fill("<a href='/x'>x", 4 * MB))),
    html("misnested formatting and tables", () => page(fill("<a><table><a><tr><td><b><p>x</b></p>", 4 * MB))),
    html("100k comments", () => page(fill("<!-- comment -->", 100_000 * 16))),
    html("100k unclosed comment openers", () => page("<!--".repeat(100_000))),
    html("100k comments before an rss root", () => `${"<!-- c -->\n".repeat(100_000)}<rss><channel></channel></rss>`),
    html(`huge attribute: ${mb(size)} title`, () => page(`<div title="${fill("a", size)}">x</div>`)),
    html(`huge attribute: ${mb(size)} href`, () => page(`<a href="https://acme.com/${fill("a", size)}">Pricing</a>`)),
    html(`huge attribute: ${mb(size)} class of plan tokens`, () =>
      page(`<div class="${fill("plan-name ", size)}">Pro</div>`),
    ),
    html(`huge attribute: ${mb(2 * MB)} of '<' inside a value`, () => page(`<p title="${fill("<a", 2 * MB)}">x</p>`)),
    html(`huge script: ${mb(size)} inline script`, () => page(`<script>${fill("var a = 1; ", size)}</script>`)),
    html(`huge script: ${mb(4 * MB)} of scripts with challenge markers`, () =>
      page(fill("<script>cf_chl_prog</script>", 4 * MB)),
    ),
    html(`huge style: ${mb(size)} stylesheet`, () => page(`<style>${fill(".a{color:red}", size)}</style>`)),
    html(`NUL bytes: ${mb(size)}`, () => page(fill("\u0000", size))),
    html(`NUL bytes: scattered through ${mb(2 * MB)} of plan cards`, () =>
      page(fill('<div class="plan"><h3>Pro\u0000</h3><span class="price">$4\u00009/mo</span></div>', 2 * MB)),
    ),
    html(`binary bytes: ${mb(size)}`, () => binary(size)),
    html(`one character: ${mb(size)} of 'a'`, () => fill("a", size)),
    html(`one character: ${mb(size)} of spaces`, () => fill(" ", size)),
    html(`one character: ${mb(size)} of '<'`, () => fill("<", size)),
    html(`one character: ${mb(size)} of '&'`, () => fill("&", size)),
    html(`one character: ${mb(size)} of '1'`, () => fill("1", size)),
    html(`one character: ${mb(size)} of '‹'`, () => fill("‹", size)),
    html(`one character: ${mb(size)} of non-breaking spaces`, () => fill("\u00a0", size)),
  ];
}

function textTraps(size: number): HostileBody[] {
  return [
    html(`text: ${mb(size)} of '$1,'`, () => page(`<p>${fill("$1,", size)}</p>`)),
    html(`text: ${mb(size)} of '1\u00a0'`, () => page(`<p>${fill("1\u00a0", size)}</p>`)),
    html(`text: 'build' and a ${mb(size)} hex run`, () => page(`<p>build ${fill("a", size)}g</p>`)),
    html(`text: ${mb(size)} of 'Jan 1 '`, () => page(`<p>${fill("Jan 1 ", size)}</p>`)),
    html(`text: ${mb(size)} of 'a-'`, () => page(`<p>${fill("a-", size)}</p>`)),
    html(`text: ${mb(size)} of '// '`, () => page(`<p>${fill("// ", size)}</p>`)),
    html(`text: ${mb(size)} of '‹date '`, () => page(`<p>${fill("‹date ", size)}</p>`)),
    html(`text: ${mb(size)} of entities`, () => page(`<p>${fill("&amp;&#x41;&nbsp;", size)}</p>`)),
    html(`text: ${mb(size)} of per-month words`, () => page(`<p>${fill("per a b c d ", size)}month</p>`)),
  ];
}

function records(MB: number): HostileBody[] {
  return [
    html(`pricing: ${mb(4 * MB)} of plan cards`, () =>
      page(
        fill('<div class="plan card"><h3>Pro</h3><span class="price">$49/mo</span><ul><li>A</li></ul></div>', 4 * MB),
      ),
    ),
    html(`pricing: ${mb(4 * MB)} of headings with loose prices`, () =>
      page(fill("<h3>Pro</h3><p>$49 per month</p>", 4 * MB)),
    ),
    // Grids whose rows are thousands of cells wide: each price used to search its row, or ask every column of its grid,
    // again (quadratic: a 0.6 MB table took 7.5 s).
    html(`pricing: a table ${count(columns(4 * MB, 28))} columns wide`, () => {
      const n = columns(4 * MB, 28);
      return page(
        `<table><tr><th></th>${"<th>Pro</th>".repeat(n)}</tr><tr><td>Price</td>${"<td>$49/mo</td>".repeat(n)}</tr></table>`,
      );
    }),
    html(`pricing: a row of ${count(columns(4 * MB, 110))} plan names over a row of their prices`, () => {
      const n = columns(4 * MB, 110);
      return page(
        `<section><div class="heads">${'<div class="col"><strong>Pro</strong><p>For teams</p></div>'.repeat(n)}</div>` +
          `<div class="panes">${'<div class="col"><p>$49/mo</p><a>Buy now</a></div>'.repeat(n)}</div></section>`,
      );
    }),
    html(`pricing: ${count(columns(4 * MB, 80))} plan columns beside a label column`, () => {
      const n = columns(4 * MB, 80);
      return page(
        `<div class="grid"><div class="labels">${"<p>Seats</p>".repeat(5)}</div>` +
          `${'<div class="plan"><h3>Pro</h3><p>$49/mo</p><p>5</p><p>$5 per extra seat</p></div>'.repeat(n)}</div>`,
      );
    }),
    // Readers that look at a price's siblings (a deck of cards, the lines of a card, a link's block) must not ask a
    // parent of a hundred thousand children once per price.
    html(`pricing: ${mb(4 * MB)} of priced spans in one block`, () =>
      page(`<div>${fill("<span>$5</span> ", 4 * MB)}</div>`),
    ),
    html(`pricing: ${mb(4 * MB)} of decks of a priced card beside a free one`, () =>
      page(
        fill(
          '<div class="deck"><div class="card"><h4>Pro</h4><p>$5/mo</p></div><div class="card"><h4>Open</h4><p>free to use</p></div></div>',
          4 * MB,
        ),
      ),
    ),
    html(`pricing: ${mb(4 * MB)} of labelled lines in one card`, () =>
      page(
        `<div class="card"><h3>Pro</h3>${fill('<div class="line"><span>Seats</span><span>$5/mo extra</span></div>', 4 * MB)}</div>`,
      ),
    ),
    html(`items: ${mb(4 * MB)} of dated articles`, () =>
      page(
        fill(
          '<article><h2><a href="/p">Post</a></h2><time datetime="2026-01-02">x</time><p>Body</p></article>',
          4 * MB,
        ),
      ),
    ),
    html(`items: ${mb(4 * MB)} of dated headings`, () => page(fill("<h2>Release 2026-01-02</h2><p>Notes</p>", 4 * MB))),
    html(`jobs: ${mb(4 * MB)} of classed postings`, () =>
      page(fill('<div class="job"><a href="/jobs/1">Engineer</a><span class="location">Remote</span></div>', 4 * MB)),
    ),
    html(`jobs: ${mb(4 * MB)} of list items under 'Open positions'`, () =>
      page(`<h2>Open positions</h2><ul>${fill('<li><a href="/jobs/x">Engineer</a></li>', 4 * MB)}</ul>`),
    ),
    html(`jobs: ${mb(4 * MB)} of ATS links`, () =>
      page(fill('<a href="https://jobs.lever.co/acme/1">Engineer</a>', 4 * MB)),
    ),
    html(`links: ${mb(4 * MB)} of links inside 500 levels`, () =>
      page(nested("<div>", "</div>", 500, fill('<a href="/pricing">Pricing</a>', 4 * MB))),
    ),
  ];
}

function jsonLd(size: number, MB: number): HostileBody[] {
  return [
    html(`JSON-LD: ${count(size / 50)} offers`, () =>
      page(
        "",
        `<script type="application/ld+json">{"@type":"Product","name":"P","offers":[${Array.from(
          { length: size / 50 },
          (_, i) => `{"@type":"Offer","name":"Plan ${i}","price":"${i}","priceCurrency":"USD"}`,
        ).join(",")}]}</script>`,
      ),
    ),
    html(`JSON-LD: ${count(size / 5)} nested arrays`, () =>
      page("", `<script type="application/ld+json">${nested("[", "]", size / 5, "")}</script>`),
    ),
    html(`JSON-LD: ${count(size / 25)} nested names`, () =>
      page(
        "",
        `<script type="application/ld+json">{"@type":"Organization","name":${nested('{"name":', "}", size / 25, '"x"')}}</script>`,
      ),
    ),
    html(`JSON-LD: malformed, ${mb(4 * MB)} of members without a closing brace`, () =>
      page("", `<script type="application/ld+json">{${fill('"a":1, ', 4 * MB)}</script>`),
    ),
    html(`JSON-LD: malformed, ${mb(size)} of trailing commas`, () =>
      page("", `<script type="application/ld+json">[${fill(", ", size)}</script>`),
    ),
    html("JSON-LD: lone surrogates and NUL escapes", () =>
      page(
        "",
        `<script type="application/ld+json">{"@type":"Product","name":"P\\ud800","offers":{"@type":"Offer","name":"Pro\\u0000\\udfff","price":"9","priceCurrency":"USD"}}</script>`,
      ),
    ),
    html(`JSON-LD: ${count(size / 50)} self-references`, () =>
      page(
        "",
        `<script type="application/ld+json">[${Array.from(
          { length: size / 50 },
          () => '{"@id":"#a","@type":"Product","offers":{"@id":"#a"}}',
        ).join(",")}]</script>`,
      ),
    ),
    html(`JSON-LD: ${mb(size)} string value`, () =>
      page(
        "",
        `<script type="application/ld+json">{"@type":"JobPosting","title":"${fill("a", size)}","url":"/j"}</script>`,
      ),
    ),
  ];
}

function feeds(size: number): HostileBody[] {
  return [
    feed(
      `feed: ${count(size / 50)} items`,
      () =>
        `<?xml version="1.0"?><rss><channel><title>T</title>${Array.from(
          { length: size / 50 },
          (_, i) => `<item><title>Post ${i}</title><guid>g${i}</guid></item>`,
        ).join("")}</channel></rss>`,
    ),
    feed(
      "feed: 100k nested items",
      () => `<rss><channel>${nested("<item><title>t</title>", "</item>", 100_000, "")}</channel></rss>`,
    ),
    feed(
      "feed: 100k nested elements in one item",
      () => `<rss><channel><item><title>${nested("<b>", "</b>", 100_000, "t")}</title></item></channel></rss>`,
    ),
    feed(
      "feed: escaped HTML nested 100k deep",
      () =>
        `<rss><channel><item><title>t</title><description>${nested("&lt;div&gt;", "&lt;/div&gt;", 100_000, "x")}</description></item></channel></rss>`,
    ),
    feed(
      `feed: ${mb(size)} CDATA description`,
      () =>
        `<rss><channel><item><title>t</title><description><![CDATA[${fill("<p>para</p>", size)}]]></description></item></channel></rss>`,
    ),
    feed("feed: billion laughs", () => {
      const entities = ['<!ENTITY lol "lol">'];
      for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`);
      return `<?xml version="1.0"?><!DOCTYPE rss [${entities.join("")}]><rss><channel><title>&lol9;</title><item><title>&lol9;</title><description>&lol9;</description></item></channel></rss>`;
    }),
    feed(
      `feed: ${mb(size)} title`,
      () => `<rss><channel><item><title>${fill("a ", size)}</title></item></channel></rss>`,
    ),
    feed(
      `feed: atom with ${mb(size)} escaped content`,
      () =>
        `<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>t</title><id>1</id><content type="html">${fill("&lt;p&gt;x&lt;/p&gt;", size)}</content></entry></feed>`,
    ),
    feed(
      `feed: unclosed, ${count((size / 25) * 4)} '<item>'`,
      () => `<rss><channel>${"<item>".repeat((size / 25) * 4)}`,
    ),
  ];
}

function sitemaps(size: number): HostileBody[] {
  return [
    sitemap(
      `sitemap: ${mb(size)} of URLs`,
      () => `<urlset>${fill("<url><loc>https://acme.test/pricing</loc></url>", size)}</urlset>`,
    ),
    sitemap("sitemap: 100k nested urlsets", () => nested("<urlset><url>", "</url></urlset>", 100_000, "")),
    sitemap(
      `sitemap: ${mb(size)} loc`,
      () => `<urlset><url><loc>https://acme.test/${fill("a", size)}</loc></url></urlset>`,
    ),
    sitemap("sitemap: billion laughs", () => {
      const entities = ['<!ENTITY a "https://acme.test/">'];
      for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY a${i} "${`&a${i === 1 ? "" : i - 1};`.repeat(10)}">`);
      return `<?xml version="1.0"?><!DOCTYPE urlset [${entities.join("")}]><urlset><url><loc>&a9;</loc></url></urlset>`;
    }),
  ];
}
