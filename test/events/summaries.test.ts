/**
 * Event summaries written by an LLM (src/events/summaries.ts), against a fake OpenAI-compatible server on 127.0.0.1:
 * detection's events get their summary and impact rewritten after the fact, never their type, severity, title or
 * numbers, and the detection's text stays whenever the model fails or invents a number.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EventSummaryRewrite, usableRewrite } from "../../src/events/summaries.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { FakeLlm, type ChatCompletionRequest } from "../fakes/llm.js";
import { FixtureSite } from "../fakes/fixture-site.js";
import { createCompetitor, createWorkspace, type TestMember } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let site: FixtureSite;
let llm: FakeLlm;
beforeAll(async () => {
  [site, llm] = await Promise.all([new FixtureSite().start(), new FakeLlm().start()]);
  app = await startTestApp({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: llm.apiKey, LLM_MODEL: llm.model });
});
afterAll(async () => {
  await app?.stop();
  await Promise.all([site?.stop(), llm?.stop()]);
});
beforeEach(() => llm.reset());

/** The facts the service sent, as the model receives them. */
const factsOf = (request: ChatCompletionRequest) =>
  JSON.parse(request.messages.find((message) => message.role === "user")!.content) as {
    competitor: string;
    title: string;
    summary: string;
    evidence: { title: string; excerpt: string | null }[];
  };

/** A rewrite built from the facts: the title's own numbers, nothing else. */
const faithful = (request: ChatCompletionRequest) => {
  const facts = factsOf(request);
  return JSON.stringify({
    summary: `In short: ${facts.title}.`,
    impact_summary: `Worth a look for deals against ${facts.competitor}.`,
  });
};

interface Detected {
  member: TestMember;
  eventIds: string[];
}

let pathCounter = 0;
/** A pricing page that changes once (Pro $49 → $59 among others): the events detection makes of it. */
async function detectPricingChange(competitorName: string): Promise<Detected> {
  const member = await createWorkspace(app, { plan: "growth" });
  const competitor = await createCompetitor(app, member, { name: competitorName, domain: "acme.test" });
  const path = `/s${++pathCounter}/pricing`;
  site.serveFixture(path, "pricing-v1.html");
  const res = await app.http
    .post(`/competitors/${competitor.id}/sources`)
    .set("Authorization", member.bearer)
    .send({ source_type: "pricing", url: site.url(path), fetch_method: "http" })
    .expect(201);
  await app.service.pipeline.fetchSource(res.body.id);
  site.serveFixture(path, "pricing-v2.html");
  expect(await app.service.pipeline.fetchSource(res.body.id)).toMatchObject({ kind: "changed" });
  await queueSettled(app.service.services.knex, QUEUES.eventCreated);
  await queueSettled(app.service.services.knex, QUEUES.eventSummary, {}, 30_000);
  const events = await app.http.get("/events").set("Authorization", member.bearer).expect(200);
  const eventIds = (events.body as { id: string }[]).map((event) => event.id);
  // Every test below is about these events: none would make each of them pass without testing anything.
  expect(eventIds.length).toBeGreaterThanOrEqual(3);
  return { member, eventIds };
}

async function storedEvents(ids: string[]) {
  return app.service.services
    .knex("events")
    .whereIn("id", ids)
    .select("id", "title", "summary", "impact_summary", "event_type", "severity", "confidence_score", "summary_model");
}

describe("event summaries by the LLM", () => {
  it("rewrites each new event's summary and impact from its own facts, keeps the rest, and records the model", async () => {
    llm.defaultContent = faithful;
    const { member, eventIds } = await detectPricingChange("Acme");
    expect(eventIds.length).toBeGreaterThanOrEqual(3);

    const requests = llm.completions();
    expect(requests).toHaveLength(eventIds.length);
    const rows = await storedEvents(eventIds);
    for (const row of rows) {
      expect(row.summary).toBe(`In short: ${row.title}.`);
      expect(row.impact_summary).toBe("Worth a look for deals against Acme.");
      expect(row.summary_model).toBe(llm.model);
    }
    // Each request carries one event's facts, with its detection text and evidence, as the model's only input.
    for (const request of requests) {
      expect(request.model).toBe(llm.model);
      expect(request.messages[0]!.role).toBe("system");
      const facts = factsOf(request);
      expect(facts.competitor).toBe("Acme");
      expect(rows.map((row) => row.title)).toContain(facts.title);
      expect(facts.summary).not.toMatch(/^In short/);
    }
    // The API shows the rewrite; the rest of the event is detection's.
    const raised = rows.find((row) => /raised Pro from \$49 to \$59/.test(row.title))!;
    const detail = await app.http.get(`/events/${raised.id}`).set("Authorization", member.bearer).expect(200);
    expect(detail.body.event).toMatchObject({
      summary: `In short: ${raised.title}.`,
      event_type: "pricing_change",
      severity: "high",
      title: raised.title,
    });
  });

  it("keeps the detection's text when the answer has a number the event does not, or is not the JSON asked for", async () => {
    llm.defaultContent = () => JSON.stringify({ summary: "Acme now charges $39 for Pro.", impact_summary: "Cheaper." });
    const first = await detectPricingChange("Acme");
    llm.defaultContent = () => "Acme raised its prices.";
    const second = await detectPricingChange("Acme");
    // The model was asked about every event, and its answers were refused.
    expect(llm.completions()).toHaveLength(first.eventIds.length + second.eventIds.length);
    for (const { eventIds } of [first, second]) {
      for (const row of await storedEvents(eventIds)) {
        expect(row.summary).not.toMatch(/\$39|raised its prices\.$/);
        expect(row.summary_model).toBeNull();
      }
    }
  });

  it("keeps the detection's text when the LLM keeps failing, and the jobs complete", async () => {
    llm.fail(500, { message: "overloaded" }, 1000);
    const { eventIds } = await detectPricingChange("Acme");
    // Each event's job asked (and retried) the failing model before it gave up on the rewrite.
    expect(llm.completions().length).toBeGreaterThanOrEqual(eventIds.length);
    for (const row of await storedEvents(eventIds)) expect(row.summary_model).toBeNull();
    const failed = await app.service.services
      .knex("pgboss.job")
      .where({ name: QUEUES.eventSummary.name, state: "failed" })
      .count({ n: "*" })
      .first();
    expect(Number(failed!.n)).toBe(0);
    llm.reset();
  });

  it("rewrites once: a second job for the same event asks no model", async () => {
    llm.defaultContent = faithful;
    const { eventIds } = await detectPricingChange("Acme");
    const asked = llm.completions().length;
    const rewrite = new EventSummaryRewrite(app.service.services);
    expect(await rewrite.run(eventIds[0]!)).toEqual({ applied: false, reason: "already rewritten" });
    expect(llm.completions()).toHaveLength(asked);
  });

  it("is not queued without an LLM", () => {
    expect(EventSummaryRewrite.wanted({ ...app.config, llm: { baseUrl: null, apiKey: null, model: null } })).toBe(
      false,
    );
    expect(EventSummaryRewrite.wanted(app.config)).toBe(true);
  });
});

describe("what counts as a usable rewrite", () => {
  const facts = JSON.stringify({ title: "Acme raised Pro from $1,299 to $1,499/year", summary: "It rose 15%." });
  it.each([
    ['{"summary": "Pro now costs $1,499 a year.", "impact_summary": "A 15% rise."}', true],
    ['```json\n{"summary": "Pro now costs $1499 a year.", "impact_summary": "A 15% rise."}\n```', true],
    ['{"summary": "Pro now costs $1,599.", "impact_summary": "A rise."}', false],
    ['{"summary": "Pro went up.", "impact_summary": "Up by 20%."}', false],
    ['{"summary": "Pro went up."}', false],
    ['{"summary": "", "impact_summary": "x"}', false],
    [`{"summary": "${"x".repeat(301)}", "impact_summary": "x"}`, false],
    ["Pro went up.", false],
  ])("%s → %s", (content, usable) => {
    expect(usableRewrite(content, facts) !== null).toBe(usable);
  });
});
