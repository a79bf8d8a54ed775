import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createCompetitor,
  createDetectedEvent,
  createEvent,
  createSource,
  createWorkspace,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { FakeLlm } from "../fakes/llm.js";

// Two services: one without an LLM (the rule-based writer), one pointed at the fake OpenAI-compatible API.
let plain: TestApp;
let withLlm: TestApp;
let llm: FakeLlm;
beforeAll(async () => {
  llm = await new FakeLlm().start();
  [plain, withLlm] = await Promise.all([
    startTestApp(),
    startTestApp({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: llm.apiKey, LLM_MODEL: llm.model }),
  ]);
});
afterAll(async () => {
  await Promise.all([plain?.stop(), withLlm?.stop()]);
  await llm?.stop();
});
beforeEach(() => llm.reset());

const client = (app: TestApp, who: TestMember) => ({
  create: (body: Record<string, unknown>) =>
    app.http.post("/displacement/accounts").set("Authorization", who.bearer).send(body),
  get: (id: string) => app.http.get(`/displacement/accounts/${id}`).set("Authorization", who.bearer),
  signal: (id: string, body: Record<string, unknown>) =>
    app.http.post(`/displacement/accounts/${id}/signals`).set("Authorization", who.bearer).send(body),
  teardown: (id: string) => app.http.post(`/displacement/accounts/${id}/teardown`).set("Authorization", who.bearer),
  teardowns: (id: string) => app.http.get(`/displacement/accounts/${id}/teardowns`).set("Authorization", who.bearer),
});

const HEADINGS = (rival: string) => [
  "# Displacement teardown: Globex",
  "## Account snapshot",
  `## Why they use ${rival}`,
  "## Signals",
  `## What ${rival} has been doing`,
  `## ${rival === "the rival" ? "The rival" : rival} pricing`,
  "## Angles to win",
  "## Next steps",
];

/** The markdown's headings, in order. */
const headingsOf = (markdown: string) => markdown.split("\n").filter((line) => /^#{1,2} /.test(line));

/**
 * A workspace with a rival (Acme) whose tracked pricing page moved Pro from $49 to $59 (the detection fixtures), an
 * old event beyond the free plan's 30 days of history, and an account using Acme with a signal.
 */
async function accountUsingAcme(app: TestApp): Promise<{ member: TestMember; accountId: string }> {
  const member = await createWorkspace(app);
  const acme = await createCompetitor(app, member, { name: "Acme", domain: "acme.com" });
  const pricing = await createSource(app, member, { competitorId: acme.id, source_type: "pricing" });
  await createDetectedEvent(app, member, {
    competitorId: acme.id,
    source_id: pricing.id,
    title: "Acme raised Pro from $49 to $59/month",
    severity: "high",
  });
  await createEvent(app, member, {
    competitorId: acme.id,
    title: "Acme launched an ancient feature",
    event_type: "product_change",
    detected_at: new Date(Date.now() - 60 * 86_400_000),
  });
  const account = await client(app, member)
    .create({
      company_name: "Globex",
      competitor_id: acme.id,
      champion_name: "Hank Scorpio",
      champion_title: "VP Operations",
      contract_end_estimate: new Date(Date.now() + 90 * 86_400_000).toISOString(),
      rival_evidence: "Acme logo on their login page",
      stage: "evaluating",
    })
    .expect(201);
  await client(app, member)
    .signal(account.body.id, { kind: "rival_outage", headline: "Acme was down for 6 hours on Monday" })
    .expect(201);
  return { member, accountId: account.body.id };
}

describe("rule-based teardowns (no LLM configured)", () => {
  it("writes every section from the account, its signals, and the rival's recent events and pricing", async () => {
    const { member, accountId } = await accountUsingAcme(plain);
    const res = await client(plain, member).teardown(accountId).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      account_id: accountId,
      content_md: expect.any(String),
      generated_at: expect.any(String),
      model: null,
      token_usage: null,
      version: 1,
    });
    const md: string = res.body.content_md;
    expect(headingsOf(md)).toEqual(HEADINGS("Acme"));
    expect(md).toContain("- Champion: Hank Scorpio, VP Operations");
    expect(md).toContain("- Evidence: Acme logo on their login page");
    expect(md).toMatch(/· rival_outage: Acme was down for 6 hours on Monday/);
    expect(md).toMatch(/· high pricing change: Acme raised Pro from \$49 to \$59\/month/);
    // The pricing table is read from the tracked page's newest extraction.
    expect(md).toContain("| Pro | $59/month |");
    expect(md).toMatch(/\*\*Renewal window\.\*\* The contract with Acme is estimated to end on .* in 90 days/);
    expect(md).toContain("**Pricing.** Acme raised Pro from $49 to $59/month");
    expect(md).toContain("Run a side-by-side evaluation");
    // Older than the free plan's 30 days of history: not shown.
    expect(md).not.toContain("ancient feature");
  });

  it("keeps every generation as a new version and reflects them in the account", async () => {
    const { member, accountId } = await accountUsingAcme(plain);
    const first = await client(plain, member).teardown(accountId).expect(201);
    const second = await client(plain, member).teardown(accountId).expect(201);
    expect(second.body.version).toBe(2);
    const listed = await client(plain, member).teardowns(accountId).expect(200);
    expect(listed.body).toEqual([second.body, first.body]);
    const detail = await client(plain, member).get(accountId).expect(200);
    expect(detail.body.teardown_count).toBe(2);
    expect(detail.body.latest_teardown_at).toBe(second.body.generated_at);
    expect(detail.body.teardowns).toEqual([second.body, first.body]);
  });

  it("gives concurrent generations distinct consecutive versions", async () => {
    const { member, accountId } = await accountUsingAcme(plain);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client(plain, member).teardown(accountId).expect(201)),
    );
    expect(results.map((r) => r.body.version).sort()).toEqual([1, 2, 3, 4, 5]);
    expect((await client(plain, member).get(accountId).expect(200)).body.teardown_count).toBe(5);
  });

  it("writes the same sections for an account without a rival", async () => {
    const member = await createWorkspace(plain);
    const account = await client(plain, member).create({ company_name: "Globex" }).expect(201);
    const res = await client(plain, member).teardown(account.body.id).expect(201);
    expect(headingsOf(res.body.content_md)).toEqual(HEADINGS("the rival"));
    expect(res.body.content_md).toContain("No rival is set for this account");
    expect(res.body.content_md).toContain("Identify a champion inside the account.");
  });

  it("bounds the teardown list to 100 and the detail to the 20 most recent", async () => {
    const member = await createWorkspace(plain);
    const account = await client(plain, member).create({ company_name: "Prolific" }).expect(201);
    await plain.service.services.knex.raw(
      `INSERT INTO account_teardowns (workspace_id, account_id, version, content_md, generated_at)
       SELECT ?, ?, v, 'teardown ' || v, now() - make_interval(mins => 200 - v) FROM generate_series(1, 120) v`,
      [member.workspaceId, account.body.id],
    );
    const listed = await client(plain, member).teardowns(account.body.id).expect(200);
    expect(listed.body).toHaveLength(100);
    expect(listed.body[0].version).toBe(120);
    const detail = await client(plain, member).get(account.body.id).expect(200);
    expect(detail.body.teardowns.map((t: { version: number }) => t.version)).toEqual(
      Array.from({ length: 20 }, (_, i) => 120 - i),
    );
    expect(detail.body.teardown_count).toBe(120);
  });
});

describe("LLM teardowns", () => {
  it("asks the LLM for the analysis from the caller's facts only, and records the model and token usage", async () => {
    const { member, accountId } = await accountUsingAcme(withLlm);
    // Another workspace with a rival of the same name and its own events: none of it may reach the prompt.
    const stranger = await createWorkspace(withLlm);
    const theirAcme = await createCompetitor(withLlm, stranger, { name: "Acme", domain: "acme.com" });
    await createEvent(withLlm, stranger, { competitorId: theirAcme.id, title: "Stranger-only secret launch" });
    llm.reply("## Angles to win\n- Lead with the $59 Pro price [1].\n## Next steps\n1. Call Hank this week.");

    const res = await client(withLlm, member).teardown(accountId).expect(201);
    expect(res.body.model).toBe(llm.model);
    expect(res.body.token_usage).toEqual(expect.any(Number));
    expect(res.body.token_usage).toBeGreaterThan(0);
    const md: string = res.body.content_md;
    expect(headingsOf(md)).toEqual(HEADINGS("Acme"));
    expect(md).toContain("- Lead with the $59 Pro price [1].");
    expect(md).toContain("1. Call Hank this week.");

    const [request] = llm.completions();
    expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${llm.apiKey}`);
    expect(request!.model).toBe(llm.model);
    expect(request!.messages[0]!.role).toBe("system");
    expect(request!.messages[0]!.content).toMatch(/Angles to win/);
    const prompt = JSON.stringify(request!.messages);
    expect(prompt).toContain("Acme raised Pro from $49 to $59/month");
    expect(prompt).toContain("Acme was down for 6 hours on Monday");
    expect(prompt).not.toContain("Stranger-only secret launch");
  });

  it("keeps the documented outline when the LLM ignores the headings", async () => {
    const { member, accountId } = await accountUsingAcme(withLlm);
    llm.reply("# My own title\nSwitch them now.\n## Random heading\nMore.");
    const res = await client(withLlm, member).teardown(accountId).expect(201);
    expect(headingsOf(res.body.content_md)).toEqual(HEADINGS("Acme"));
    expect(res.body.content_md).toContain("Switch them now.");
    expect(res.body.content_md).toContain("### Random heading");
  });

  it("answers 502 and stores nothing when the LLM keeps failing", async () => {
    const { member, accountId } = await accountUsingAcme(withLlm);
    llm.fail(500, { message: "The server had an error" }, 3);
    const res = await client(withLlm, member).teardown(accountId).expect(502);
    expect(res.body.detail).toBe(
      "The language model provider failed: HTTP 500: The server had an error (after 3 attempts)",
    );
    expect(llm.requests).toHaveLength(3);
    const detail = await client(withLlm, member).get(accountId).expect(200);
    expect(detail.body.teardown_count).toBe(0);
  });
});
