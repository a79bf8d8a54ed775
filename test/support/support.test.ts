/**
 * The vendor's support inbox (docs/product-rules.md#support-inbox) end to end against a fake AgentMail on 127.0.0.1
 * (test/fakes/agentmail.ts): setup and its idempotency, the inbound webhook's Standard Webhooks checks (signed with the
 * `standardwebhooks` package), threads, rule-based and LLM triage (the triage job run by the real worker), sync
 * without duplicates, replies, escalation and closing, and the 401/403/404/409/422/502/503 answers.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUES } from "../../src/jobs/queues.js";
import { FakeAgentMail } from "../fakes/agentmail.js";
import { FakeLlm } from "../fakes/llm.js";
import { createWorkspace, type TestMember } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { signedRequest, type SignedRequest } from "../setup/standard-webhooks.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const signer = new Webhook(SECRET);
const PUBLIC_BASE_URL = "https://rivalscope.example";
const INBOX = "support@agentmail.to";
const HELP_INBOX = "help@agentmail.to"; // bySetup's
const WEBHOOK = "/support/webhooks/agentmail";

let app: TestApp; // provider and signing secret configured, no LLM: rule-based triage
let bare: TestApp; // no provider, no signing secret
let bySetup: TestApp; // provider and an LLM, no configured secret: verifies with the secret setup received
let mail: FakeAgentMail;
let llm: FakeLlm;
let admin: TestMember;
let member: TestMember;
let bareAdmin: TestMember;
let bySetupAdmin: TestMember;

beforeAll(async () => {
  [mail, llm] = await Promise.all([new FakeAgentMail().start(), new FakeLlm().start()]);
  [app, bare, bySetup] = await Promise.all([
    startTestApp({
      SUPPORT_MAIL_API_BASE: mail.baseUrl,
      SUPPORT_MAIL_API_KEY: mail.apiKey,
      INBOUND_MAIL_WEBHOOK_SECRET: SECRET,
      PUBLIC_BASE_URL,
    }),
    startTestApp({}),
    startTestApp({
      SUPPORT_MAIL_API_BASE: mail.baseUrl,
      SUPPORT_MAIL_API_KEY: mail.apiKey,
      PUBLIC_BASE_URL: "https://other-deployment.example",
      SUPPORT_INBOX_USERNAME: "help",
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: llm.apiKey,
      LLM_MODEL: llm.model,
    }),
  ]);
  [admin, member, bareAdmin, bySetupAdmin] = await Promise.all([
    createWorkspace(app, { isAdmin: true }),
    createWorkspace(app),
    createWorkspace(bare, { isAdmin: true }),
    createWorkspace(bySetup, { isAdmin: true }),
  ]);
  // The inbox every test's mail arrives in (setup is idempotent, so its own test may call it again).
  await app.http.post("/support/admin/setup").set("Authorization", admin.bearer).expect(200);
});
afterAll(async () => {
  await Promise.all([app?.stop(), bare?.stop(), bySetup?.stop()]);
  await Promise.all([mail?.stop(), llm?.stop()]);
});

type Signed = SignedRequest;

/** A provider request: body and `provider-*` headers as Standard Webhooks senders make them. */
function signed(event: unknown, options: { id?: string; at?: Date; signWith?: Webhook } = {}): Signed {
  return signedRequest(event, options.signWith ?? signer, options);
}

function post(request: Signed, target: TestApp = app) {
  return target.http
    .post(WEBHOOK)
    .set({ "content-type": "application/json", ...request.headers })
    .send(request.body);
}

const threadCount = async (target: TestApp = app) =>
  Number((await target.service.services.knex("support_threads").count({ n: "*" }))[0]!.n);

/** Mail from a customer, delivered through the signed webhook; returns the thread id and the provider message. */
async function deliver(fields: { from?: string; subject?: string; text?: string; threadId?: string } = {}) {
  const { message, event } = mail.receive(INBOX, {
    from: fields.from ?? "Jane Doe <jane@customer.example>",
    subject: fields.subject ?? "A question",
    text: fields.text ?? "Hello, I have a question about Rivalscope.",
    threadId: fields.threadId,
  });
  const response = await post(signed(event)).expect(202);
  expect(response.body.thread_id).toEqual(expect.any(String));
  await queueSettled(app.service.services.knex, QUEUES.supportTriage);
  return { threadId: response.body.thread_id as string, message };
}

const getThread = (id: string, as: TestMember = admin, target: TestApp = app) =>
  target.http.get(`/support/threads/${id}`).set("Authorization", as.bearer);

describe("access", () => {
  it("answers 403 to a workspace member who is not a platform admin on every admin operation", async () => {
    const id = randomUUID();
    const calls = [
      app.http.post("/support/admin/setup"),
      app.http.post("/support/admin/sync"),
      app.http.get("/support/threads"),
      app.http.get(`/support/threads/${id}`),
      app.http.post(`/support/threads/${id}/close`),
      app.http.post(`/support/threads/${id}/escalate`),
      app.http.post(`/support/threads/${id}/reply`).send({ text: "hi" }),
    ];
    for (const call of calls) {
      const response = await call.set("Authorization", member.bearer).expect(403);
      expect(response.body.detail).toMatch(/administrators/);
    }
  });

  it("answers 401 without a token", async () => {
    await app.http.get("/support/threads").expect(401);
  });
});

describe("setup", () => {
  it("creates the inbox and the message.received webhook once, by client_id, and shows the webhook secret", async () => {
    const before = { inboxes: mail.inboxes.size, webhooks: mail.webhooks.size };
    mail.requests.length = 0;
    const first = await app.http.post("/support/admin/setup").set("Authorization", admin.bearer).expect(200);
    const second = await app.http.post("/support/admin/setup").set("Authorization", admin.bearer).expect(200);
    expect({ inboxes: mail.inboxes.size, webhooks: mail.webhooks.size }).toEqual(before);
    expect(before).toEqual({ inboxes: 1, webhooks: 1 });
    expect(first.body.webhook_url).toBe(`${PUBLIC_BASE_URL}${WEBHOOK}`);
    expect(first.body.inbox).toMatchObject({ inbox_id: INBOX, email: INBOX });
    expect(first.body.webhook.secret).toMatch(/^whsec_/);
    expect(second.body).toEqual(first.body);

    const [inboxCall] = mail.requestsTo("POST", /^\/v0\/inboxes$/);
    expect(inboxCall!.headers.authorization).toBe(`Bearer ${mail.apiKey}`);
    expect(inboxCall!.body).toMatchObject({
      username: "support",
      client_id: expect.stringMatching(/^rivalscope-support-/),
    });
    const [webhookCall] = mail.requestsTo("POST", /^\/v0\/webhooks$/);
    expect(webhookCall!.body).toEqual({
      url: `${PUBLIC_BASE_URL}${WEBHOOK}`,
      event_types: ["message.received"],
      inbox_ids: [INBOX],
      client_id: expect.stringMatching(/^rivalscope-support-webhook-/),
    });
  });

  it("answers 502 naming the provider's answer when the provider refuses the API key", async () => {
    mail.fail("POST", /^\/v0\/inboxes$/, {
      status: 401,
      body: { name: "UnauthorizedError", message: "Invalid API key" },
    });
    const response = await app.http.post("/support/admin/setup").set("Authorization", admin.bearer).expect(502);
    expect(response.body.detail).toMatch(/HTTP 401: Invalid API key.*SUPPORT_MAIL_API_KEY/);
  });
});

describe("inbound webhook signatures", () => {
  const event = () => mail.receive(INBOX, { from: "eve@customer.example", subject: "Hi", text: "Hello" }).event;

  it("rejects an unsigned request with 401 and stores nothing", async () => {
    const before = await threadCount();
    await app.http.post(WEBHOOK).send(event()).expect(401);
    expect(await threadCount()).toBe(before);
  });

  it("rejects a request signed with another secret", async () => {
    const before = await threadCount();
    const other = new Webhook(`whsec_${randomBytes(24).toString("base64")}`);
    await post(signed(event(), { signWith: other })).expect(401);
    expect(await threadCount()).toBe(before);
  });

  it("rejects a timestamp more than 300 s old", async () => {
    const before = await threadCount();
    const response = await post(signed(event(), { at: new Date(Date.now() - 301_000) })).expect(401);
    expect(response.body.detail).toMatch(/300 seconds/);
    expect(await threadCount()).toBe(before);
  });

  it("rejects a replayed delivery id, and a body changed after signing", async () => {
    const request = signed(event());
    const first = await post(request).expect(202);
    expect(first.body.thread_id).toEqual(expect.any(String));
    const before = await threadCount();
    await post(request).expect(401);
    await post(signed(event(), { id: request.headers["provider-id"] })).expect(401);
    await post({ ...request, body: request.body.replace("Hello", "Hullo") }).expect(401);
    expect(await threadCount()).toBe(before);
  });

  it("answers 422 for a message.received event without a sender, and stores nothing", async () => {
    const before = await threadCount();
    const { event: bad } = mail.receive(INBOX, { from: "not an address", subject: "x", text: "y" });
    const response = await post(signed(bad)).expect(422);
    expect(response.body.detail[0].loc).toEqual(["body", "message", "from"]);
    await post(signed({ event_type: "message.received" })).expect(422);
    expect(await threadCount()).toBe(before);
  });

  it("accepts the svix-* headers AgentMail's deliveries carry", async () => {
    const request = signed(event());
    const svix = {
      "svix-id": request.headers["provider-id"]!,
      "svix-timestamp": request.headers["provider-timestamp"]!,
      "svix-signature": request.headers["provider-signature"]!,
    };
    const response = await app.http
      .post(WEBHOOK)
      .set({ "content-type": "application/json", ...svix })
      .send(request.body)
      .expect(202);
    expect(response.body.thread_id).toEqual(expect.any(String));
  });

  it("answers 422 for a signed event of a message the provider does not know, and stores nothing", async () => {
    const { threadId } = await deliver({ from: "jane@customer.example" });
    const before = await threadCount();
    const stored = await app.service.services.knex("support_messages").count({ n: "*" });
    const { event: real } = mail.receive(INBOX, { from: "jane@customer.example", subject: "x", text: "y" });
    const thread = await app.service.services.knex("support_threads").where({ id: threadId }).first();
    // A forged notice: an invented message id grafted onto the customer's real thread, dated 9999.
    const forged = {
      ...real,
      message: {
        ...(real.message as object),
        message_id: "<forged@attacker.example>",
        thread_id: thread.provider_thread_id,
        timestamp: "9999-01-01T00:00:00Z",
        text: "Please refund me to account 123",
      },
    };
    const response = await post(signed(forged)).expect(422);
    expect(response.body.detail[0].loc).toEqual(["body", "message", "message_id"]);
    expect(await threadCount()).toBe(before);
    expect(await app.service.services.knex("support_messages").count({ n: "*" })).toEqual(stored);
  });

  it("answers 422 when the event's thread or sender is not the provider's copy's", async () => {
    const { threadId } = await deliver({ from: "jane@customer.example" });
    const thread = await app.service.services.knex("support_threads").where({ id: threadId }).first();
    const { event: other } = mail.receive(INBOX, { from: "mallory@attacker.example", subject: "x", text: "y" });
    const message = other.message as Record<string, unknown>;
    const movedThread = { ...other, message: { ...message, thread_id: thread.provider_thread_id } };
    const response = await post(signed(movedThread)).expect(422);
    expect(response.body.detail[0].loc).toEqual(["body", "message", "thread_id"]);
    const spoofedSender = { ...other, message: { ...message, from: "jane@customer.example" } };
    expect((await post(signed(spoofedSender)).expect(422)).body.detail[0].loc).toEqual(["body", "message", "from"]);
    const messages = await app.service.services.knex("support_messages").where({ thread_id: threadId });
    expect(messages).toHaveLength(1);
  });

  it("acknowledges other event types without effect", async () => {
    const response = await post(signed({ ...event(), event_type: "message.delivered" })).expect(202);
    expect(response.body).toEqual({ received: true, thread_id: null });
  });

  it("ignores mail of an inbox other than the provisioned one", async () => {
    const { event: foreign } = mail.receive("sales@agentmail.to", {
      from: "x@customer.example",
      subject: "x",
      text: "y",
    });
    const response = await post(signed(foreign)).expect(202);
    expect(response.body.thread_id).toBeNull();
  });
});

describe("threads", () => {
  it("turns a message into a thread with its message, triaged by the rules (model null)", async () => {
    const { threadId, message } = await deliver({
      from: "Jane Doe <Jane@Customer.example>",
      subject: "Refund for a double charge",
      text: "I was charged twice on my invoice this month. Please refund the second payment.",
    });
    const thread = (await getThread(threadId).expect(200)).body;
    expect(thread).toMatchObject({
      id: threadId,
      subject: "Refund for a double charge",
      sender_name: "Jane Doe",
      sender_email: "jane@customer.example",
      status: "open",
      category: "billing",
      severity: "high",
      needs_human: true,
      triage_model: null,
      message_count: 1,
    });
    expect(thread.triage_summary).toMatch(/^Billing from Jane Doe/);
    expect(thread.latest_draft).toMatch(/^Hi Jane,/);
    expect(thread.messages).toEqual([
      expect.objectContaining({
        direction: "inbound",
        from_email: "jane@customer.example",
        from_name: "Jane Doe",
        text: message.text,
        provider_message_id: message.message_id,
        created_at: new Date(message.timestamp).toISOString(),
      }),
    ]);
  });

  it("groups messages by the provider's thread id and lists them oldest first", async () => {
    const first = await deliver({ subject: "Feature idea", text: "Would be great to have a Slack digest." });
    const second = await deliver({
      threadId: first.message.thread_id,
      subject: "Re: Feature idea",
      text: "Also Teams.",
    });
    expect(second.threadId).toBe(first.threadId);
    const thread = (await getThread(first.threadId).expect(200)).body;
    expect(thread.message_count).toBe(2);
    expect(thread.subject).toBe("Feature idea");
    expect(thread.messages.map((m: { text: string }) => m.text)).toEqual([first.message.text, second.message.text]);
    expect(thread.last_message_at).toBe(new Date(second.message.timestamp).toISOString());
  });

  it("lists threads most recently active first", async () => {
    const older = await deliver({ subject: "Older" });
    const newer = await deliver({ subject: "Newer" });
    const list = (await app.http.get("/support/threads").set("Authorization", admin.bearer).expect(200)).body;
    const ids = list.map((t: { id: string }) => t.id);
    expect(ids.indexOf(newer.threadId)).toBeLessThan(ids.indexOf(older.threadId));
    expect(ids[0]).toBe(newer.threadId);
  });

  it("triages by keywords: a login problem is an account issue, an outage a critical bug", async () => {
    const login = await deliver({ subject: "Cannot log in", text: "I forgot my password and the reset link fails." });
    expect((await getThread(login.threadId).expect(200)).body).toMatchObject({ category: "account", severity: "high" });
    const outage = await deliver({ subject: "Dashboard is down", text: "Production down: every page shows an error." });
    expect((await getThread(outage.threadId).expect(200)).body).toMatchObject({
      category: "bug",
      severity: "critical",
      needs_human: true,
    });
    const hello = await deliver({ subject: "Hello", text: "Just saying thanks!" });
    expect((await getThread(hello.threadId).expect(200)).body).toMatchObject({
      category: "other",
      severity: "low",
      needs_human: false,
    });
  });

  it("escalates (needs_human true), closes (needs_human false), and reopens a closed thread on new mail", async () => {
    const { threadId, message } = await deliver({ subject: "Hello", text: "Just saying thanks!" });
    const escalated = await app.http
      .post(`/support/threads/${threadId}/escalate`)
      .set("Authorization", admin.bearer)
      .expect(200);
    expect(escalated.body).toMatchObject({ status: "escalated", needs_human: true });
    // Triage of new mail keeps an escalated thread with its human.
    await deliver({ threadId: message.thread_id, subject: "Re: Hello", text: "Thanks again!" });
    expect((await getThread(threadId).expect(200)).body).toMatchObject({ status: "escalated", needs_human: true });

    const closed = await app.http
      .post(`/support/threads/${threadId}/close`)
      .set("Authorization", admin.bearer)
      .expect(200);
    expect(closed.body).toMatchObject({ status: "closed", needs_human: false });
    await app.http.post(`/support/threads/${threadId}/close`).set("Authorization", admin.bearer).expect(200);
    await deliver({ threadId: message.thread_id, subject: "Re: Hello", text: "One more thing." });
    expect((await getThread(threadId).expect(200)).body).toMatchObject({ status: "open", message_count: 3 });
  });

  it("answers 404 for an unknown thread id and 422 for a malformed one", async () => {
    const unknown = randomUUID();
    for (const call of [
      app.http.get(`/support/threads/${unknown}`),
      app.http.post(`/support/threads/${unknown}/close`),
      app.http.post(`/support/threads/${unknown}/escalate`),
      app.http.post(`/support/threads/${unknown}/reply`).send({ text: "hi" }),
    ]) {
      const response = await call.set("Authorization", admin.bearer).expect(404);
      expect(response.body.detail).toBe("Support thread not found");
    }
    const malformed = await getThread("not-a-uuid").expect(422);
    expect(malformed.body.detail[0].loc).toEqual(["path", "thread_id"]);
    await app.http.post("/support/threads/42/close").set("Authorization", admin.bearer).expect(422);
  });
});

describe("sync", () => {
  it("ingests only the messages the webhook missed, across pages, and a second sync changes nothing", async () => {
    const delivered = await deliver({ subject: "Delivered by webhook" });
    const missed = Array.from({ length: 3 }, (_, i) =>
      mail.receive(INBOX, { from: `c${i}@customer.example`, subject: `Missed ${i}`, text: "Where is my invoice?" }),
    );
    const inInbox = mail.messages.filter((m) => m.inbox_id === INBOX && m.labels.includes("received"));
    const received = inInbox.length;
    // Missing here: the three, and the mail of requests the signature tests rejected (one of them without a sender).
    const knex = app.service.services.knex;
    const storedIds = new Set(await knex("support_messages").pluck("provider_message_id"));
    const missing = inInbox.filter((m) => !storedIds.has(m.message_id));
    const unreadable = missing.filter((m) => !m.from.includes("@")).length;
    // A provider answering fewer messages per page than asked: sync follows next_page_token to the end.
    const pageCap = Math.ceil(received / 3);
    mail.pageCap = pageCap;
    mail.requests.length = 0;
    const first = await app.http.post("/support/admin/sync").set("Authorization", admin.bearer).expect(200);
    mail.pageCap = 100;
    expect(missing.length).toBeGreaterThan(3);
    expect(first.body).toEqual({
      ingested: missing.length - unreadable,
      skipped: received - missing.length + unreadable,
    });
    // Every page of the received messages, and one fetch per missing message only.
    const lists = mail.requestsTo("GET", /\/messages$/);
    expect(lists).toHaveLength(Math.ceil(received / pageCap));
    expect(lists.every((r) => r.query.get("labels") === "received" && r.query.get("limit") === "100")).toBe(true);
    expect(lists[1]!.query.get("page_token")).toEqual(expect.any(String));
    expect(mail.requestsTo("GET", /\/messages\/[^/]+$/)).toHaveLength(missing.length);

    const second = await app.http.post("/support/admin/sync").set("Authorization", admin.bearer).expect(200);
    expect(second.body).toEqual({ ingested: 0, skipped: received });
    const copies = await knex("support_messages")
      .where({ provider_message_id: delivered.message.message_id })
      .count({ n: "*" });
    expect(Number(copies[0]!.n)).toBe(1);
    const stored = await knex("support_messages")
      .whereIn(
        "provider_message_id",
        missed.map((m) => m.message.message_id),
      )
      .count({ n: "*" });
    expect(Number(stored[0]!.n)).toBe(3);
    await queueSettled(knex, QUEUES.supportTriage);
    const one = await knex("support_threads").where({ subject: "Missed 0" }).first("category");
    expect(one.category).toBe("billing");
  });

  it("answers 502 when the provider fails mid-sync", async () => {
    mail.fail("GET", /\/messages$/, { status: 500, body: { name: "InternalServerError", message: "boom" } });
    const response = await app.http.post("/support/admin/sync").set("Authorization", admin.bearer).expect(502);
    expect(response.body.detail).toMatch(/HTTP 500: boom/);
  });
});

describe("reply", () => {
  it("sends `text` through the provider's reply endpoint, records it and clears the draft", async () => {
    const { threadId, message } = await deliver({ subject: "Invoice copy", text: "Can I get a copy of my invoice?" });
    mail.requests.length = 0;
    const response = await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ text: "Here it is." })
      .expect(200);
    expect(response.body).toMatchObject({ id: threadId, message_count: 2, latest_draft: null, status: "open" });
    const [call] = mail.requestsTo("POST", /\/reply$/);
    expect(call!.path).toBe(
      `/v0/inboxes/${encodeURIComponent(INBOX)}/messages/${encodeURIComponent(message.message_id)}/reply`,
    );
    expect(call!.headers.authorization).toBe(`Bearer ${mail.apiKey}`);
    expect(call!.body).toEqual({ text: "Here it is." });
    const messages = (await getThread(threadId).expect(200)).body.messages;
    expect(messages.at(-1)).toMatchObject({ direction: "outbound", from_email: INBOX, text: "Here it is." });
    expect(messages.at(-1).provider_message_id).toBe(mail.messages.at(-1)!.message_id);
  });

  it("never sends the draft unreviewed: `text` null or absent, without an approval of the draft, is 422", async () => {
    const { threadId } = await deliver({ subject: "Question", text: "Do you have an API?" });
    expect((await getThread(threadId).expect(200)).body.latest_draft).toEqual(expect.any(String));
    mail.requests.length = 0;
    for (const body of [{ text: null }, {}, { approved_draft: null }]) {
      const res = await app.http
        .post(`/support/threads/${threadId}/reply`)
        .set("Authorization", admin.bearer)
        .send(body)
        .expect(422);
      expect(res.body.detail).toEqual([
        {
          loc: ["body", "text"],
          msg: "Field required: the reply's text, or approved_draft (the latest draft as read) to send that draft",
          type: "missing",
        },
      ]);
    }
    expect(mail.requestsTo("POST", /\/reply$/)).toEqual([]);
    expect((await getThread(threadId).expect(200)).body.message_count).toBe(1);
  });

  it("sends the draft an admin approved as read, only while it is still the latest one; 409 otherwise", async () => {
    const { threadId } = await deliver({ subject: "Question", text: "Do you have an API?" });
    const draft = (await getThread(threadId).expect(200)).body.latest_draft as string;
    mail.requests.length = 0;
    // A draft that has changed since it was read (say, a new inbound message was triaged) is not the one approved.
    const stale = await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ approved_draft: `${draft} (an older version)` })
      .expect(409);
    expect(stale.body.detail).toMatch(/draft has changed/);
    expect(mail.requestsTo("POST", /\/reply$/)).toEqual([]);

    await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ text: null, approved_draft: draft })
      .expect(200);
    expect(mail.requestsTo("POST", /\/reply$/)[0]!.body).toEqual({ text: draft });
    const again = await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ approved_draft: draft })
      .expect(409);
    expect(again.body.detail).toMatch(/no drafted reply/);
    // Both at once is ambiguous.
    await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ text: "Yes.", approved_draft: draft })
      .expect(422);
  });

  it("answers 502 when the provider refuses the reply, and records nothing", async () => {
    const { threadId } = await deliver({ subject: "Question", text: "Do you have an API?" });
    const draft = (await getThread(threadId).expect(200)).body.latest_draft as string;
    mail.fail("POST", /\/reply$/, { status: 503, body: { name: "ServiceUnavailable", message: "try later" } });
    const response = await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ approved_draft: draft })
      .expect(502);
    expect(response.body.detail).toMatch(/HTTP 503: try later/);
    const thread = (await getThread(threadId).expect(200)).body;
    expect(thread.message_count).toBe(1);
    expect(thread.latest_draft).toEqual(expect.any(String));
  });

  it("answers 422 for an empty text", async () => {
    const { threadId } = await deliver();
    const response = await app.http
      .post(`/support/threads/${threadId}/reply`)
      .set("Authorization", admin.bearer)
      .send({ text: "" })
      .expect(422);
    expect(response.body.detail[0].loc).toEqual(["body", "text"]);
  });
});

describe("without the mail provider, the signing secret or with an LLM", () => {
  it("answers 503 to setup, sync and reply with a clear detail", async () => {
    for (const path of ["/support/admin/setup", "/support/admin/sync", `/support/threads/${randomUUID()}/reply`]) {
      const response = await bare.http
        .post(path)
        .set("Authorization", bareAdmin.bearer)
        .send({ text: "x" })
        .expect(503);
      expect(response.body.detail).toMatch(/SUPPORT_MAIL_API_KEY/);
    }
  });

  it("refuses every inbound request with 401 when no secret exists (none configured, no setup), and stores nothing", async () => {
    const { event } = mail.receive("help@agentmail.to", { from: "sam@customer.example", subject: "x", text: "y" });
    const unsigned = await bare.http.post(WEBHOOK).send(event).expect(401);
    expect(unsigned.body.detail).toMatch(/not configured/);
    await post(signed(event), bare).expect(401);
    expect(await threadCount(bare)).toBe(0);
    const triage = await bare.service.services
      .knex("pgboss.job")
      .where({ name: QUEUES.supportTriage })
      .count({ n: "*" });
    expect(Number(triage[0]!.n)).toBe(0);
  });

  it("verifies with the secret setup received when none is configured, and triages with the LLM", async () => {
    const { event: early } = mail.receive(HELP_INBOX, { from: "sam@customer.example", subject: "x", text: "y" });
    await bySetup.http.post(WEBHOOK).send(early).expect(401);
    const setup = await bySetup.http.post("/support/admin/setup").set("Authorization", bySetupAdmin.bearer).expect(200);
    const received = new Webhook(setup.body.webhook.secret as string);
    // The row keeps it sealed, not in plaintext.
    const row = await bySetup.service.services.knex("support_inboxes").first("webhook_secret");
    expect(row.webhook_secret).toMatch(/^sealed:v2:/);
    await bySetup.http.post(WEBHOOK).send(early).expect(401);
    await post(signed(early), bySetup).expect(401); // the other deployment's secret
    llm.reply(
      JSON.stringify({
        category: "feature_request",
        severity: "medium",
        needs_human: false,
        summary: "Asks for a Teams integration.",
        draft_reply: "Thanks, we have noted the request.",
      }),
    );
    const { event } = mail.receive(HELP_INBOX, {
      from: "Sam <sam@customer.example>",
      subject: "Teams",
      text: "Please add a Microsoft Teams integration.",
    });
    const response = await post(signed(event, { signWith: received }), bySetup).expect(202);
    await queueSettled(bySetup.service.services.knex, QUEUES.supportTriage);
    const thread = (await getThread(response.body.thread_id, bySetupAdmin, bySetup).expect(200)).body;
    expect(thread).toMatchObject({
      category: "feature_request",
      severity: "medium",
      needs_human: false,
      triage_summary: "Asks for a Teams integration.",
      latest_draft: "Thanks, we have noted the request.",
      triage_model: llm.model,
    });
    const [completion] = llm.completions().slice(-1);
    expect(completion!.messages.at(-1)!.content).toContain("Please add a Microsoft Teams integration.");
  });

  it("falls back to the rules (model null) when the LLM's answer is unusable", async () => {
    const setup = await bySetup.http.post("/support/admin/setup").set("Authorization", bySetupAdmin.bearer).expect(200);
    const received = new Webhook(setup.body.webhook.secret as string);
    llm.reply("I think this is about billing.");
    const { event } = mail.receive(HELP_INBOX, {
      from: "sam@customer.example",
      subject: "Invoice",
      text: "Where is my invoice?",
    });
    const response = await post(signed(event, { signWith: received }), bySetup).expect(202);
    await queueSettled(bySetup.service.services.knex, QUEUES.supportTriage);
    const thread = (await getThread(response.body.thread_id, bySetupAdmin, bySetup).expect(200)).body;
    expect(thread).toMatchObject({ category: "billing", triage_model: null, sender_name: "" });
    expect(thread.latest_draft).toMatch(/^Hello,/);
  });
  it("dates a message by the provider's copy, never later than its receipt", async () => {
    const { message, event: real } = mail.receive(HELP_INBOX, {
      from: "kim@customer.example",
      subject: "x",
      text: "y",
    });
    message.timestamp = "9999-12-31T00:00:00.000Z"; // the provider's own copy says so too
    const setup = await bySetup.http.post("/support/admin/setup").set("Authorization", bySetupAdmin.bearer).expect(200);
    const response = await post(signed(real, { signWith: new Webhook(setup.body.webhook.secret as string) }), bySetup);
    expect(response.status).toBe(202);
    const thread = (await getThread(response.body.thread_id, bySetupAdmin, bySetup).expect(200)).body;
    expect(Date.parse(thread.last_message_at)).toBeLessThanOrEqual(Date.now());
  });
});
