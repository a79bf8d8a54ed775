import { describe, expect, it } from "vitest";
import { maskVolatile } from "../../src/detection/read/index.js";

describe("maskVolatile", () => {
  it.each([
    // Dates
    ["Last updated 2026-11-22", "Last updated ‹date›"],
    ["Posted 22/11/2026", "Posted ‹date›"],
    ["Posted 11/22/26", "Posted ‹date›"],
    ["Nov 22, 2026", "‹date›"],
    ["November 22, 2026", "‹date›"],
    ["22 November 2026", "‹date›"],
    ["22nd of November, 2026", "‹date›"],
    ["Sunday, November 22, 2026", "‹date›"],
    ["Open every Sunday", "Open every ‹date›"],
    ["Since March 2026", "Since ‹date›"],
    ["Rendered 2026-11-22T10:42:07Z", "Rendered ‹date›"],
    ["at 2026-11-22T10:42:07.123+01:00.", "at ‹date›."],
    // Times
    ["Server time 10:42", "Server time ‹time›"],
    ["10:42:07 am", "‹time›"],
    ["8:03:55 PM CET", "‹time›"],
    ["Deploys at 09:15 UTC", "Deploys at ‹time›"],
    ["Webinar at 3pm", "Webinar at ‹time›"],
    // Relative times
    ["Updated 3 minutes ago", "Updated ‹time›"],
    ["updated 5 min ago", "updated ‹time›"],
    ["Synced about an hour ago", "Synced ‹time›"],
    ["2h ago", "‹time›"],
    ["Updated just now", "Updated ‹time›"],
    ["Updated yesterday", "Updated ‹time›"],
    // Live counters
    ["1,234 users online", "‹n› users online"],
    ["12 people viewing this page", "‹n› people viewing this page"],
    ["Page views: 98765", "Page views: ‹n›"],
    ["98,765 visitors", "‹n› visitors"],
    ["You are visitor #4821", "You are visitor #‹n›"],
    // Copyright years
    ["© 2026 Acme, Inc.", "© ‹year› Acme, Inc."],
    ["Copyright © 2019–2026 Acme", "Copyright © ‹year› Acme"],
    ["(c) 2026", "(c) ‹year›"],
    // Tokens and cache busters
    ["csrf 4f8a2c9e1b7d3f6a0c5e8b2d9f1a", "csrf ‹token›"],
    ["token Xk9mP2vL8qR4tW7yZ1aB3cD5eF6gH", "token ‹token›"],
    ["Request ID 0b9f2f5e-7c1a-4d3e-9a8b-6c5d4e3f2a1b", "Request ID ‹token›"],
    ["Build 3f9c2a1", "Build ‹token›"],
    ["Ray ID: 8e1f2a3b4c5d6e7f", "Ray ID: ‹token›"],
    ["/static/app.css?v=1732273927", "/static/app.css?v=‹n›"],
    ["ts 1732273927123", "ts ‹n›"],
  ])("masks %j", (input, expected) => {
    expect(maskVolatile(input)).toBe(expected);
  });

  it.each([
    "$49/mo",
    "€1,299.00/mo",
    "$490 per year",
    "US$49 /user/month",
    "€1.299,00",
    "£12",
    "49 USD",
    "Pro",
    "Business",
    "Enterprise — Contact sales",
    "Up to 10,000 events per month",
    "Up to 100,000 page views per month",
    "12-month data retention",
    "99.99% uptime SLA",
    "Save 20%",
    "Version 1.2.10 released",
    "v2.4.0",
    "24/7 support",
    "16:9 video",
    "Trusted by 4,000+ teams",
    "state-of-the-art-2026-edition",
    "https://acme.com/blog/launching-our-new-api-2026",
    "getElementsByClassName",
  ])("leaves %j alone", (input) => {
    expect(maskVolatile(input)).toBe(input);
  });

  it("gives two renderings that differ only in volatile tokens the same text", () => {
    const first = maskVolatile(
      "Updated 3 minutes ago · 1,204 people viewing · Sunday, November 22, 2026 10:42:07 AM UTC",
    );
    const second = maskVolatile(
      "Updated 12 minutes ago · 1,377 people viewing · Monday, November 23, 2026 9:03:55 AM UTC",
    );
    expect(first).toBe(second);
  });

  it("collapses runs of spaces and handles empty input", () => {
    expect(maskVolatile("  a   b  ")).toBe("a b");
    expect(maskVolatile("")).toBe("");
  });
});
