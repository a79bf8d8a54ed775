import { describe, expect, it } from "vitest";
import { limitNesting } from "../../src/detection/extract/html.js";
import { extract } from "../../src/detection/extract/index.js";

describe("hostile HTML", () => {
  // Each unclosed `<div` used to scan the rest of the body for its `>`: 40 KB took about a second, 1 MB would take
  // about ten minutes (the test's timeout fails it). Now each tag attempt stops at the next `<`.
  it("cuts nesting in one pass over a megabyte of unclosed tags", () => {
    const body = "<div".repeat(250_000);
    expect(limitNesting(body)).toBe(body);
    const page = `<html><body><p>Before</p>${body}</body></html>`;
    const extraction = extract(page, { url: "https://acme.com/", contentType: "text/html", fetchMethod: "http" });
    expect(extraction.text).toContain("Before");
    expect(extraction.pricing).toEqual([]);
  });

  it("still cuts a body where real nesting passes the limit", () => {
    const deep = `${"<div>".repeat(5000)}text${"</div>".repeat(5000)}`;
    const cut = limitNesting(deep, 100);
    expect(cut).toBe("<div>".repeat(100));
    expect(limitNesting('<p title="a<b">x</p>', 100)).toBe('<p title="a<b">x</p>');
  });
});
