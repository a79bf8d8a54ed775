/**
 * The web app's journeys end to end (issue: the dashboard), in the packaged headless Chromium against the real
 * service, its workers and a fixture website on 127.0.0.1. Elements are found by role and accessible name; each
 * screen is checked with axe-core; every API response the app receives is checked against the contract.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureSite } from "../fakes/fixture-site.js";
import { launchBrowser } from "../setup/browser.js";
import {
  addMember,
  createCompetitor,
  createEvent,
  createSource,
  createWorkspace,
  TEST_PASSWORD,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";
import { openApp, type AppPage } from "../setup/web-browser.js";

let app: TestApp;
let site: FixtureSite;
let browser: Browser;

beforeAll(async () => {
  [app, site, browser] = await Promise.all([startTestApp(), new FixtureSite().start(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await app?.stop();
});

/** A 1×1 PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const heading = (page: Page, name: string | RegExp, level = 1) => page.getByRole("heading", { name, level });

async function signIn(view: AppPage, email: string, path = "/app/events"): Promise<void> {
  const { page } = view;
  await page.goto(`${app.baseUrl}${path}`);
  await heading(page, "Sign in").waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Reloads until `locator` shows: the app reads the API once per visit, as a person would press reload. */
async function reloadUntil(page: Page, find: () => ReturnType<Page["locator"]>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await find().count()) return;
    if (Date.now() > deadline) throw new Error("timed out waiting for the page to show it");
    await page.waitForTimeout(700);
    await page.reload();
    await page.getByRole("main").waitFor();
  }
}

describe("the web app", () => {
  it("signs up, tracks a pricing page, sees its change as an event with prices before and after, dismisses it, and shows the step in the pricing history", async () => {
    site.serveFixture("/pricing", "pricing-v1.html");
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      await page.goto(`${app.baseUrl}/app/sign-up`);
      await heading(page, "Create an account").waitFor();
      await view.axe("sign up");
      await page.getByLabel("Name").fill("Ada Lovelace");
      await page.getByLabel("Email").fill(`ada-${Date.now()}@example.com`);
      await page.getByLabel("Password").fill("a long enough password");
      await page.getByRole("button", { name: "Create account" }).click();
      await heading(page, "Events").waitFor();
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const name of ["Events", "Competitors", "Alert rules", "Digests", "Settings"]) {
        expect(await nav.getByRole("link", { name, exact: true }).count(), name).toBe(1);
      }
      await view.axe("empty events");

      await nav.getByRole("link", { name: "Competitors" }).click();
      await heading(page, "Competitors").waitFor();
      await page.getByLabel("Name").fill("Acme Analytics");
      await page.getByLabel("Domain").fill("acme.test");
      await page.getByRole("button", { name: "Add competitor" }).click();
      await heading(page, "Acme Analytics").waitFor();
      await heading(page, "Sources", 2).waitFor();
      await heading(page, "Pricing history", 2).waitFor();

      await page.getByLabel("URL", { exact: true }).fill(site.url("/pricing"));
      await page.getByRole("combobox", { name: "Type" }).selectOption("pricing");
      await page.getByRole("button", { name: "Add page" }).click();
      const runNow = page.getByRole("button", { name: `Run now: ${site.url("/pricing")}` });
      await runNow.click();
      // The first fetch is the baseline: the source turns healthy (the app follows the fetch it queued).
      await page.getByText("Healthy", { exact: true }).waitFor({ timeout: 45_000 });
      await view.axe("competitor page");

      site.serveFixture("/pricing", "pricing-v2.html");
      await runNow.click();
      await page
        .getByRole("status")
        .filter({ hasText: /queued/ })
        .waitFor();

      await nav.getByRole("link", { name: "Events" }).click();
      await heading(page, "Events").waitFor();
      const eventLink = () => page.getByRole("link", { name: /raised.*Pro/i });
      await reloadUntil(page, eventLink);
      const item = page.getByRole("listitem").filter({ has: eventLink() });
      expect(await item.getByText("Pricing", { exact: true }).count()).toBe(1);
      await item.getByRole("button", { name: "Acknowledge" }).waitFor();
      await item.getByRole("button", { name: "Dismiss" }).waitFor();
      await view.axe("events feed");
      await view.shot("events");

      await eventLink().click();
      await heading(page, /raised.*Pro/i).waitFor();
      const eventUrl = page.url();
      const prices = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Before" }) });
      const priceRow = prices.getByRole("row", { name: /Pro/ });
      expect(await priceRow.innerText()).toMatch(/\$49\/month[\s\S]*\$59\/month/);
      await heading(page, "Evidence", 2).waitFor();
      expect(await page.getByRole("link", { name: site.url("/pricing") }).count()).toBeGreaterThan(0);
      await view.axe("event detail");
      await view.shot("event");

      // Saying why goes with the dismissal (a price change teaches nothing, but the reason is sent all the same).
      await page.getByRole("combobox", { name: /^Why dismiss/ }).selectOption({ label: "Wrongly read" });
      const dismissal = page.waitForRequest((request) => /\/status\?.*reason=wrong/.test(request.url()));
      await page.getByRole("button", { name: "Dismiss" }).click();
      expect(new URL((await dismissal).url()).searchParams.get("status")).toBe("dismissed");
      await page.getByText("Dismissed", { exact: true }).waitFor();
      expect(await page.getByRole("button", { name: "Dismiss" }).count()).toBe(0);
      const eventId = eventUrl.split("/").pop()!;
      const stored = await app.service.services.knex("events").where({ id: eventId }).first("status");
      expect(stored.status).toBe("dismissed");

      await page.getByRole("link", { name: "Acme Analytics" }).click();
      await heading(page, "Pricing history", 2).waitFor();
      const steps = page.getByRole("table", { name: "Price steps by plan" });
      await steps.waitFor();
      const proRows = steps.getByRole("row", { name: /^Pro/ });
      expect(await proRows.count()).toBe(2);
      expect(await proRows.nth(0).innerText()).toContain("$49/month");
      expect(await proRows.nth(1).innerText()).toContain("$59/month");
      expect(await proRows.nth(1).getByRole("link", { name: "Open event" }).getAttribute("href")).toBe(
        `/app/events/${eventId}`,
      );
      await page.locator(".chart canvas").first().waitFor();
      await page.getByRole("button", { name: `Change: ${site.url("/pricing")}` }).click();
      const change = page.getByRole("form", { name: `Change ${site.url("/pricing")}` });
      await change.getByRole("combobox", { name: "How often" }).selectOption("10080");
      await change.getByRole("button", { name: "Save page" }).click();
      await page.getByRole("cell", { name: "every 7 days" }).waitFor();
      await view.axe("pricing history");
      await view.shot("competitor");
    } finally {
      await view.close();
    }
  }, 180_000);

  it("suggests pages from the competitor's website and tracks one, then every page found", async () => {
    site
      .serveFixture("/", "discovery-home.html")
      .set("/company/careers", "<title>Careers at Acme Radar</title><h1>Open roles</h1>")
      .set("/changelog", "<title>Changelog</title><h1>What's new</h1>");
    const owner = await createWorkspace(app, { plan: "starter" });
    const competitor = await createCompetitor(app, owner, { name: "Acme Radar", domain: "acme.test" });
    await createSource(app, owner, { competitorId: competitor.id, source_type: "homepage", url: site.url("/") });
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      await signIn(view, owner.email, `/app/competitors/${competitor.id}`);
      await heading(page, "Acme Radar").waitFor();
      await page.getByRole("button", { name: "Find suggested pages" }).click();
      const suggestions = page.getByRole("list", { name: "Suggested pages" });
      await suggestions.waitFor({ timeout: 30_000 });
      await suggestions.getByRole("button", { name: `Track ${site.url("/company/careers")}` }).click();
      const sources = page.getByRole("region", { name: "Sources" }).getByRole("table");
      await sources.getByRole("link", { name: site.url("/company/careers") }).waitFor();
      await view.axe("suggested pages");
      await page.getByRole("button", { name: "Track every page found" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /Now tracking \d+ more page/ })
        .waitFor({ timeout: 30_000 });
      await sources.getByRole("link", { name: site.url("/changelog") }).waitFor();
    } finally {
      await view.close();
    }
  }, 90_000);

  it("renders a hostile event title as text, in the feed and on the event's page", async () => {
    const member = await createWorkspace(app);
    const competitor = await createCompetitor(app, member, { name: '<b id="bold">Evil</b> Corp' });
    const title = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> raised Pro`;
    const event = await createEvent(app, member, { competitorId: competitor.id, title, summary: "<i>hi</i>" });
    // A screenshot evidence, as detection stores one for a rendered page (docs/product-rules.md#screenshots).
    const key = `screenshots/${member.workspaceId}/${event.id}.png`;
    await app.service.services.detection.assets!.put(key, Buffer.from(PNG_1X1, "base64"), "image/png");
    await app.service.services.knex("evidence").insert({
      event_id: event.id,
      evidence_type: "screenshot",
      title: "Pricing card",
      excerpt: "Pro $59/month",
      source_url: "https://evil.example/pricing",
      asset_object_key: key,
    });
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      // A link from an email lands on the event after signing in.
      await signIn(view, member.email, `/app/events/${event.id}`);
      await heading(page, title).waitFor();
      expect(page.url()).toBe(`${app.baseUrl}/app/events/${event.id}`);
      expect(await page.getByText("<i>hi</i>").count()).toBe(1);
      // The screenshot loads with the session cookie (an <img> sends no Authorization header).
      const shot = page.getByRole("img", { name: /changed region of the page: Pro \$59\/month/ });
      await shot.waitFor();
      await page.waitForFunction(() => (document.querySelector("figure img") as HTMLImageElement | null)?.complete);
      expect(await shot.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
      await page.getByRole("link", { name: "Events", exact: true }).click();
      await page.getByRole("link", { name: title }).waitFor();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('img[src="x"], #bold').count()).toBe(0);
    } finally {
      await view.close();
    }
  }, 90_000);

  it("creates, edits and deletes alert rules with the plan's limits explained, and generates and sends a digest", async () => {
    const owner = await createWorkspace(app);
    const competitor = await createCompetitor(app, owner, { name: "Globex" });
    await createEvent(app, owner, {
      competitorId: competitor.id,
      title: "Globex raised Team to $99",
      severity: "high",
    });
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      await signIn(view, owner.email, "/app/alert-rules");
      await heading(page, "Alert rules").waitFor();
      const form = page.getByRole("region", { name: "New alert rule" });
      await form.getByRole("combobox", { name: "Frequency" }).selectOption("immediate");
      await form.getByRole("button", { name: "Create rule" }).click();
      // The free plan has no realtime: the API's refusal names the limit and the plan that lifts it.
      expect(await form.getByRole("alert").innerText()).toMatch(/plan/i);
      await form.getByRole("combobox", { name: "Frequency" }).selectOption("weekly");
      await form.getByRole("combobox", { name: "Competitor" }).selectOption({ label: "Globex" });
      await form.getByRole("button", { name: "Create rule" }).click();
      await form.getByRole("status").filter({ hasText: "Rule created" }).waitFor();
      const rule = page
        .getByRole("listitem")
        .filter({ hasText: "Globex" })
        .filter({ hasText: /weekly/i });
      await rule.getByRole("button", { name: "Edit rule" }).click();
      await rule.getByRole("combobox", { name: "Minimum severity" }).selectOption("high");
      await rule.getByRole("button", { name: "Save rule" }).click();
      await page.getByRole("heading", { name: /High\+.*Globex/, level: 2 }).waitFor();
      await view.axe("alert rules");
      await view.shot("alert-rules");
      await page
        .getByRole("listitem")
        .filter({ has: page.getByRole("heading", { name: /High\+.*Globex/ }) })
        .getByRole("button", { name: "Delete rule" })
        .click();
      await page.getByRole("heading", { name: /High\+.*Globex/ }).waitFor({ state: "detached" });

      await page.getByRole("link", { name: "Competitors", exact: true }).click();
      const globex = page.getByRole("row", { name: /^Globex/ });
      await globex.getByRole("link", { name: "1", exact: true }).waitFor();
      await page.getByRole("link", { name: "Events", exact: true }).click();
      await page.getByRole("link", { name: "Ask a question about your competitors" }).click();
      await heading(page, "Ask about your competitors").waitFor();
      await page.getByLabel("Your question").fill("What did Globex change in pricing?");
      await page.getByRole("button", { name: "Ask", exact: true }).click();
      await page
        .getByRole("region", { name: "Events the answer draws on" })
        .getByRole("link", { name: "Globex raised Team to $99" })
        .waitFor();
      await view.axe("ask");
      await page.getByRole("link", { name: "Digests" }).click();
      await heading(page, "Digests").waitFor();
      const suppressions = page.getByRole("region", { name: "Addresses that get no digest" });
      await suppressions.getByLabel("Address to stop sending to").fill("gone@example.com");
      await suppressions.getByRole("button", { name: "Stop sending" }).click();
      await suppressions.getByRole("rowheader", { name: "gone@example.com" }).waitFor();
      await suppressions.getByRole("button", { name: "Send digests to gone@example.com again" }).click();
      await suppressions.getByRole("rowheader", { name: "gone@example.com" }).waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Generate a daily digest now" }).click();
      await heading(page, /Daily digest of/).waitFor();
      await page.getByRole("link", { name: "Globex raised Team to $99" }).first().waitFor();
      await page.getByRole("button", { name: "Send to members" }).click();
      await page.getByRole("status").filter({ hasText: "Sent" }).waitFor();
      await page
        .getByRole("cell", { name: owner.email })
        .or(page.getByRole("rowheader", { name: owner.email }))
        .waitFor();
      await view.axe("digest");
      await view.shot("digest");
    } finally {
      await view.close();
    }
  }, 90_000);

  it("shows a member the screens without owner-only data, and an admin the operations views", async () => {
    const owner = await createWorkspace(app);
    const member = await addMember(app, owner.workspaceId, { role: "member" });
    const admin: TestMember = await createWorkspace(app, { isAdmin: true });
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      await signIn(view, member.email, "/app/settings");
      await heading(page, "Settings").waitFor();
      await page.getByRole("region", { name: "Plan and usage" }).getByText("Free").waitFor();
      expect(await page.getByRole("link", { name: "Operations" }).count()).toBe(0);
      await view.axe("settings");
      await view.shot("settings");
      await page.getByRole("button", { name: "Open the billing portal" }).click();
      expect(await page.getByRole("alert").first().innerText()).toMatch(/owner/i);
      await page.getByRole("button", { name: "Sign out" }).click();
      await heading(page, "Sign in").waitFor();
      await view.axe("sign in");
      await view.shot("sign-in");

      await signIn(view, admin.email);
      await page.getByRole("link", { name: "Operations" }).click();
      await heading(page, "Operations").waitFor();
      for (const name of ["Scheduler", "Source health", "Failing sources", "Jobs"])
        await heading(page, name, 2).waitFor();
      await view.axe("operations");
      await view.shot("operations");
    } finally {
      await view.close();
    }
  }, 90_000);

  it("resets a forgotten password from the mail's link, which opens the app's form", async () => {
    const member = await createWorkspace(app);
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      await page.goto(`${app.baseUrl}/app/sign-in`);
      await page.getByRole("link", { name: "Forgot your password?" }).click();
      await heading(page, "Forgot your password?").waitFor();
      await page.getByLabel("Email").fill(member.email);
      await page.getByRole("button", { name: "Send reset link" }).click();
      await page.getByRole("status").filter({ hasText: "reset link has been sent" }).waitFor();
      const mail = await waitFor(
        () => app.service.services.knex("email_outbox").where({ to_address: member.email }).first(),
        10_000,
        "the reset mail",
      );
      const link = new URL(/https?:\/\/\S+\/app\/reset-password\?token=[\w-]+/.exec(mail.text_body)![0]);
      expect(link.origin).toBe(app.config.publicBaseUrl);
      await page.goto(`${app.baseUrl}${link.pathname}${link.search}`);
      await heading(page, "Choose a new password").waitFor();
      await view.axe("reset password");
      await page.getByLabel("New password").fill("a brand new password");
      await page.getByRole("button", { name: "Set new password" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: "has been reset" })
        .getByRole("link", { name: "Sign in" })
        .click();
      await page.getByLabel("Email").fill(member.email);
      await page.getByLabel("Password").fill("a brand new password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await heading(page, "Events").waitFor();
    } finally {
      await view.close();
    }
  }, 60_000);

  it("serves the home page with the demo feed and hero stat, and sends the beacon on a call to action", async () => {
    const demo = await createWorkspace(app);
    const competitor = await createCompetitor(app, demo, { name: "Initech" });
    await createEvent(app, demo, { competitorId: competitor.id, title: "Initech launched TPS reports 2.0" });
    await app.service.services.knex("workspaces").where({ id: demo.workspaceId }).update({ is_demo: true });
    const view = await openApp(browser, app.baseUrl);
    const { page } = view;
    try {
      const res = await page.goto(`${app.baseUrl}/`);
      expect(res!.headers()["content-security-policy"]).toContain("script-src 'self'");
      await heading(page, /Know when a competitor moves/).waitFor();
      await page.getByText("Initech launched TPS reports 2.0").waitFor();
      await view.axe("home");
      await view.shot("home");
      const beacon = page.waitForRequest((r) => r.url().endsWith("/marketing/events") && r.method() === "POST");
      await page.getByRole("link", { name: "Start free" }).click();
      expect(JSON.parse((await beacon).postData()!)).toMatchObject({ event: "cta_sign_up" });
      await heading(page, "Create an account").waitFor();
    } finally {
      await view.close();
    }
  }, 60_000);
});
