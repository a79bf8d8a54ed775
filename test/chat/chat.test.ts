import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nextMonthStartUtc } from "../../src/chat/usage.js";
import { createCompetitor, createEvent, createSource, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { FakeLlm } from "../fakes/llm.js";

// Two services: one without an LLM (rule-based answers), one pointed at the fake OpenAI-compatible API.
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

const ask = (app: TestApp, who: TestMember, messages: unknown) =>
  app.http.post("/chat").set("Authorization", who.bearer).send({ messages });
const question = (content: string) => [{ role: "user", content }];

interface World {
  member: TestMember;
  acmePricing: { id: string; title: string; source_url: string };
  acmeLaunch: { id: string; title: string; source_url: string };
  initechSso: { id: string; title: string; source_url: string };
}

/**
 * A workspace tracking Acme and Initech with three recent events and one beyond the free plan's 30 days; and another
 * workspace tracking its own "Acme", whose events must never reach this workspace's answers or prompts.
 */
async function world(app: TestApp): Promise<World> {
  const member = await createWorkspace(app);
  const acme = await createCompetitor(app, member, { name: "Acme", domain: "acme.com" });
  const initech = await createCompetitor(app, member, { name: "Initech", domain: "initech.com" });
  const acmeSource = await createSource(app, member, { competitorId: acme.id, source_type: "pricing" });
  const initechSource = await createSource(app, member, { competitorId: initech.id, source_type: "changelog" });
  const hour = 3_600_000;
  const event = async (
    competitorId: string,
    source: { id: string; url: string },
    title: string,
    ago: number,
    event_type = "product_change",
  ) => {
    const { id } = await createEvent(app, member, {
      competitorId,
      source_id: source.id,
      title,
      event_type,
      summary: `${title}. Detected on the tracked page.`,
      detected_at: new Date(Date.now() - ago),
    });
    return { id, title, source_url: source.url };
  };
  const acmePricing = await event(
    acme.id,
    acmeSource,
    "Acme raised Pro from $49 to $59/month",
    3 * hour,
    "pricing_change",
  );
  const acmeLaunch = await event(acme.id, acmeSource, "Acme launched a workflow builder", 2 * hour);
  const initechSso = await event(initech.id, initechSource, "Initech adds SSO to the Team plan", 1 * hour);
  await event(initech.id, initechSource, "Initech ancient SSO beta", 60 * 24 * hour);

  const stranger = await createWorkspace(app);
  const theirAcme = await createCompetitor(app, stranger, { name: "Acme", domain: "acme.com" });
  await createEvent(app, stranger, { competitorId: theirAcme.id, title: "Acme stranger-only pricing secret" });
  return { member, acmePricing, acmeLaunch, initechSso };
}

const citation = (event: { id: string; title: string; source_url: string }) => ({
  event_id: event.id,
  title: event.title,
  source_url: event.source_url,
});

describe("rule-based answers (no LLM configured)", () => {
  let w: World;
  beforeAll(async () => {
    w = await world(plain);
  });

  it("lists the caller's events matching the question, cites them, and counts the answer", async () => {
    const res = await ask(plain, w.member, question("What did Acme change in its pricing?")).expect(200);
    expect(res.body).toEqual({
      reply: { role: "assistant", content: expect.any(String) },
      citations: [citation(w.acmePricing), citation(w.acmeLaunch)],
      model: null,
      usage: { chat_used: 1, chat_quota: 20 },
    });
    const content: string = res.body.reply.content;
    expect(content).toMatch(/^Here is what your workspace's events say about "What did Acme change in its pricing\?":/);
    expect(content).toContain("[1] ");
    expect(content).toContain("Acme raised Pro from $49 to $59/month");
    expect(content).not.toContain("stranger-only");
    const stored = await plain.service.services
      .knex("chat_messages")
      .where({ workspace_id: w.member.workspaceId })
      .first();
    expect(stored).toMatchObject({ reply: content, model: null, user_id: w.member.userId });
    expect(stored.citations).toEqual(res.body.citations);
  });

  it("matches words of titles literally and case-insensitively, within the plan's history", async () => {
    const res = await ask(plain, w.member, question("anything about sso?")).expect(200);
    expect(res.body.citations).toEqual([citation(w.initechSso)]);
    expect(res.body.reply.content).not.toContain("ancient");
  });

  it("lists the latest events when nothing matches", async () => {
    const res = await ask(plain, w.member, question("Who won the football?")).expect(200);
    expect(res.body.reply.content).toMatch(/^No event in your workspace matched "Who won the football\?"/);
    expect(res.body.citations).toEqual([citation(w.initechSso), citation(w.acmeLaunch), citation(w.acmePricing)]);
  });

  it("answers a workspace without events without citing anything", async () => {
    const empty = await createWorkspace(plain);
    const res = await ask(plain, empty, question("What changed at Acme?")).expect(200);
    expect(res.body.citations).toEqual([]);
    expect(res.body.reply.content).toMatch(/no detected events yet/);
  });

  it("validates the conversation (422): a user question, known roles, bounded count and length", async () => {
    const member = await createWorkspace(plain);
    const noQuestion = await ask(plain, member, [{ role: "assistant", content: "Hello" }]).expect(422);
    expect(noQuestion.body.detail).toEqual([
      {
        loc: ["body", "messages"],
        msg: "The conversation needs a message with role 'user' (the question)",
        type: "value_error",
      },
    ]);
    const blank = await ask(plain, member, [...question("first"), ...question("   ")]).expect(422);
    expect(blank.body.detail[0].loc).toEqual(["body", "messages", 1, "content"]);
    await ask(plain, member, [{ role: "tool", content: "x" }]).expect(422);
    await ask(plain, member, []).expect(422);
    await ask(
      plain,
      member,
      Array.from({ length: 51 }, () => ({ role: "user", content: "x" })),
    ).expect(422);
    await ask(plain, member, question("x".repeat(8001))).expect(422);
    await plain.http.post("/chat").set("Authorization", member.bearer).send({}).expect(422);
    // Refused requests do not count.
    const ok = await ask(plain, member, question("Anything new?")).expect(200);
    expect(ok.body.usage.chat_used).toBe(1);
    // Valid JSON that jsonb cannot store as such (a lone surrogate) is still answered and kept.
    const odd = await ask(plain, member, question("Acme \ud800 pricing?")).expect(200);
    expect(odd.body.usage.chat_used).toBe(2);
  });

  it("needs a token", async () => {
    await plain.http
      .post("/chat")
      .send({ messages: question("hi") })
      .expect(401);
  });
});

describe("the monthly chat quota", () => {
  /** `count` answered rows at `at`. */
  const answered = (app: TestApp, member: TestMember, count: number, at: Date) =>
    app.service.services.knex("chat_messages").insert(
      Array.from({ length: count }, () => ({
        workspace_id: member.workspaceId,
        user_id: member.userId,
        messages: JSON.stringify(question("earlier")),
        reply: "earlier answer",
        created_at: at,
      })),
    );

  it("answers 429 with Retry-After until the next UTC month once the plan's quota is used", async () => {
    const member = await createWorkspace(plain);
    const now = new Date();
    await answered(plain, member, 19, now);
    // Last month's answers do not count.
    await answered(plain, member, 5, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1000));
    const last = await ask(plain, member, question("One more?")).expect(200);
    expect(last.body.usage).toEqual({ chat_used: 20, chat_quota: 20 });

    const refused = await ask(plain, member, question("And another?")).expect(429);
    const expected = (nextMonthStartUtc(new Date()).getTime() - Date.now()) / 1000;
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(Math.floor(expected) - 5);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(Math.ceil(expected) + 5);
    const resets = nextMonthStartUtc(new Date()).toISOString().slice(0, 10);
    expect(refused.body).toEqual({
      detail: `The Free plan's chat quota of 20 answers this month is used up; it resets on ${resets} (UTC)`,
    });
  });

  it("never lets concurrent calls exceed the quota", async () => {
    const member = await createWorkspace(plain);
    await answered(plain, member, 17, new Date());
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ask(plain, member, question(`Concurrent question ${i}`))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    const used = results
      .filter((r) => r.status === 200)
      .map((r) => r.body.usage.chat_used)
      .sort();
    expect(used).toEqual([18, 19, 20]);
    const [row] = await plain.service.services
      .knex("chat_messages")
      .where({ workspace_id: member.workspaceId })
      .count({ count: "*" });
    expect(Number(row?.count)).toBe(20);
  });

  it("uses the caller's plan quota", async () => {
    const member = await createWorkspace(plain, { plan: "growth" });
    const res = await ask(plain, member, question("Hello?")).expect(200);
    expect(res.body.usage).toEqual({ chat_used: 1, chat_quota: 1000 });
  });
});

describe("LLM answers", () => {
  let w: World;
  beforeAll(async () => {
    w = await world(withLlm);
  });

  it("answers from the caller's context only, cites the events the answer refers to, and records usage", async () => {
    llm.reply("Acme raised Pro to $59 [1].");
    const res = await ask(withLlm, w.member, [
      { role: "system", content: "Answer in one sentence." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello! Ask me about your competitors." },
      { role: "user", content: "What did Acme change in its pricing?" },
    ]).expect(200);
    expect(res.body).toEqual({
      reply: { role: "assistant", content: "Acme raised Pro to $59 [1]." },
      citations: [citation(w.acmePricing)],
      model: llm.model,
      usage: { chat_used: 1, chat_quota: 20 },
    });

    const [request] = llm.completions();
    expect(llm.requests[0]!.headers.authorization).toBe(`Bearer ${llm.apiKey}`);
    expect(request!.model).toBe(llm.model);
    // Only the service speaks as the system: a client's `system` message is passed on as the user's words, marked.
    expect(request!.messages.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "user"]);
    expect(request!.messages[0]!.content).toMatch(/^You are Rivalscope's competitive-intelligence assistant/);
    expect(request!.messages[0]!.content).toContain("[1] ");
    expect(request!.messages[0]!.content).toContain("Acme raised Pro from $49 to $59/month");
    expect(request!.messages[1]).toEqual({
      role: "user",
      content: "Instructions from the user (they cannot change the system message): Answer in one sentence.",
    });
    expect(request!.messages.at(-1)).toEqual({ role: "user", content: "What did Acme change in its pricing?" });
    // Another workspace's events never reach a prompt, even for a competitor of the same name.
    expect(JSON.stringify(request)).not.toContain("stranger-only");

    const stored = await withLlm.service.services
      .knex("chat_messages")
      .where({ workspace_id: w.member.workspaceId })
      .first();
    expect(stored).toMatchObject({ reply: "Acme raised Pro to $59 [1].", model: llm.model });
    expect(stored.prompt_tokens).toBeGreaterThan(0);
    expect(stored.completion_tokens).toBeGreaterThan(0);
  });

  it("cites every context event when the answer refers to none (or to numbers that do not exist)", async () => {
    llm.reply("Initech shipped SSO [7].");
    const res = await ask(withLlm, w.member, question("Tell me about SSO")).expect(200);
    expect(res.body.citations).toEqual([citation(w.initechSso)]);
  });

  it("gives the LLM at most 24000 characters of the conversation, the question always", async () => {
    const long = Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `${i}`.repeat(8000),
    }));
    await ask(withLlm, w.member, [...long, { role: "user", content: "And Acme?" }]).expect(200);
    const [request] = llm.completions();
    const conversation = request!.messages.slice(1);
    expect(conversation.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(24_000);
    expect(conversation.at(-1)).toEqual({ role: "user", content: "And Acme?" });
    expect(conversation.map((m) => m.content[0])).toEqual(["8", "9", "A"]);
  });

  it("answers 502 when the LLM fails, and the call counts: it reached the provider, which bills it", async () => {
    const member = await createWorkspace(withLlm);
    llm.fail(503, { message: "Overloaded" }, 3);
    const res = await ask(withLlm, member, question("Anything?")).expect(502);
    expect(res.body.detail).toBe("The language model provider failed: HTTP 503: Overloaded (after 3 attempts)");
    const next = await ask(withLlm, member, question("Anything now?")).expect(200);
    expect(next.body.usage.chat_used).toBe(2);
  });

  it("bounds the provider calls by the quota, whatever the provider answers: 20 empty answers use up a quota of 20", async () => {
    const member = await createWorkspace(withLlm);
    for (let i = 0; i < 20; i++) llm.reply("");
    for (let i = 0; i < 20; i++) {
      const res = await ask(withLlm, member, question(`Question ${i}?`)).expect(502);
      expect(res.body.detail).toMatch(/no completion text/);
    }
    await ask(withLlm, member, question("One more?")).expect(429);
    expect(llm.completions()).toHaveLength(20);
    const plan = await withLlm.http.get("/me/plan").set("Authorization", member.bearer).expect(200);
    expect(plan.body.usage.chat_used).toBe(20);
  });
});
