import { describe, expect, it } from "vitest";
import { afterLeadingComments, looksLikeFeed } from "../../src/detection/read/feed.js";

describe("feed sniffing", () => {
  it("reads a body as a feed when its root, after any comments, is rss, feed or rdf:RDF", () => {
    expect(looksLikeFeed('<!-- generated --> \n<!-- by x -->\n<rss version="2.0"><channel/></rss>', null, "http")).toBe(
      true,
    );
    expect(looksLikeFeed('\ufeff  <feed xmlns="http://www.w3.org/2005/Atom"></feed>', "text/html", "http")).toBe(true);
    expect(looksLikeFeed("<!-- not closed <rss>", null, "http")).toBe(false);
    expect(looksLikeFeed("<!-- a --> text --> <rss>", null, "http")).toBe(false);
    expect(looksLikeFeed("<html><body>rss</body></html>", null, "http")).toBe(false);
  });

  // The old pattern repeated a lazy comment match and backtracked exponentially: 22 empty comments took 27 ms, each
  // one more doubled it, so this body would have run for hours (the test's timeout fails it); one pass is immediate.
  it("finishes on a body of many comments that is not a feed", () => {
    expect(looksLikeFeed(`${"<!---->".repeat(40)}x`, null, "http")).toBe(false);
    expect(looksLikeFeed(`${"<!---->".repeat(300)}<rss>`, null, "http")).toBe(false); // past the 2 KB it looks at
    expect(afterLeadingComments(`${"<!-- -->\n".repeat(10_000)}<rss>`)).toBe("<rss>");
  });
});
