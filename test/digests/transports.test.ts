/**
 * Digest mail through the real transports of `EMAIL_TRANSPORT` (docs/operations.md#environment-variables): SMTP
 * (nodemailer) to an SMTP sink on 127.0.0.1, and an HTTP provider speaking Resend's API. Asserts what a mail client
 * receives: multipart text + HTML, the RFC 8058 headers, and the provider's message id kept for the delivery webhook.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { mailHeader, mailPart, SmtpSink } from "../fakes/smtp-sink.js";
import { addMember, createCompetitor, createEvent, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

/** Resend's `POST /emails`: bearer key, JSON body, `200 {"id": …}`; 422 with its error body for a bad address. */
class FakeResend {
  readonly requests: { authorization: string | undefined; body: any }[] = [];
  private server!: Server;
  baseUrl = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        this.requests.push({ authorization: req.headers.authorization, body });
        res.setHeader("content-type", "application/json");
        if (req.headers.authorization !== "Bearer re_test_key") {
          res
            .writeHead(401)
            .end(JSON.stringify({ statusCode: 401, name: "missing_api_key", message: "Missing API key" }));
        } else if (String(body.to).endsWith("@invalid.test")) {
          res
            .writeHead(422)
            .end(JSON.stringify({ statusCode: 422, name: "validation_error", message: "Invalid `to` field." }));
        } else {
          res.writeHead(200).end(JSON.stringify({ id: `re_${this.requests.length}` }));
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let sink: SmtpSink;
let resend: FakeResend;
let smtpApp: TestApp;
let resendApp: TestApp;
beforeAll(async () => {
  [sink, resend] = await Promise.all([new SmtpSink().start(), new FakeResend().start()]);
  [smtpApp, resendApp] = await Promise.all([
    startTestApp({ EMAIL_TRANSPORT: sink.url, EMAIL_FROM: "Rivalscope <digests@rivalscope.test>" }),
    startTestApp({ EMAIL_TRANSPORT: "resend", RESEND_API_BASE: resend.baseUrl, RESEND_API_KEY: "re_test_key" }),
  ]);
});
afterAll(async () => {
  await Promise.all([smtpApp?.stop(), resendApp?.stop()]);
  await Promise.all([sink?.stop(), resend?.stop()]);
});

async function sendDigest(app: TestApp, owner: { bearer: string }) {
  const digest = await app.http.post("/digests?period_type=daily").set("Authorization", owner.bearer).expect(201);
  const sent = await app.http.post(`/digests/${digest.body.id}/send`).set("Authorization", owner.bearer).expect(200);
  return sent.body;
}

describe("SMTP", () => {
  it("delivers a multipart text and HTML mail with the unsubscribe headers", async () => {
    const owner = await createWorkspace(smtpApp, { name: "Northwind" });
    const acme = await createCompetitor(smtpApp, owner, { name: "Acme" });
    await createEvent(smtpApp, owner, { competitorId: acme.id, severity: "high", title: "Acme raised Pro to $59 ✓" });
    const digest = await sendDigest(smtpApp, owner);
    expect(digest.delivery_summary).toMatchObject({ sent: 1, total: 1 });

    const mail = sink.messages.find((m) => m.to.includes(owner.email))!;
    expect(mail.from).toBe("digests@rivalscope.test");
    expect(mailHeader(mail.raw, "Subject")).toMatch(/Daily digest for Northwind/);
    expect(mailHeader(mail.raw, "Content-Type")).toMatch(/^multipart\/alternative/);
    expect(mailHeader(mail.raw, "List-Unsubscribe")).toMatch(/^<http:\/\/127\.0\.0\.1:8000\/unsubscribe\?token=.+>$/);
    expect(mailHeader(mail.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mailPart(mail.raw, "text/plain")).toContain("[High] Acme raised Pro to $59 ✓");
    expect(mailPart(mail.raw, "text/html")).toContain(">Acme raised Pro to $59 ✓</a>");

    // The provider's message id is the Message-ID the webhook events will name.
    const res = await smtpApp.http
      .get(`/digests/${digest.id}/deliveries`)
      .set("Authorization", owner.bearer)
      .expect(200);
    expect(res.body[0].provider).toBe("smtp");
    expect(res.body[0].provider_message_id).toBe(mailHeader(mail.raw, "Message-ID"));
  });

  it("records a refused recipient as failed without failing the request, and retries it on the next send", async () => {
    const owner = await createWorkspace(smtpApp, { plan: "starter" });
    const member = await addMember(smtpApp, owner.workspaceId);
    sink.refused.add(member.email);
    const first = await sendDigest(smtpApp, owner);
    expect(first.delivery_summary).toMatchObject({ sent: 1, failed: 1, total: 2 });

    sink.refused.delete(member.email);
    const again = await smtpApp.http.post(`/digests/${first.id}/send`).set("Authorization", owner.bearer).expect(200);
    expect(again.body.delivery_summary).toMatchObject({ sent: 2, failed: 0, total: 2 });
    expect(sink.messages.filter((m) => m.to.includes(owner.email))).toHaveLength(1);
    expect(sink.messages.filter((m) => m.to.includes(member.email))).toHaveLength(1);
  });
});

describe("immediate alert emails over SMTP", () => {
  it("mark each alert row sent once the server took the mail, and keep a refused one queued with the reason", async () => {
    const owner = await createWorkspace(smtpApp, { plan: "growth" });
    const refused = await addMember(smtpApp, owner.workspaceId);
    sink.refused.add(refused.email);
    const acme = await createCompetitor(smtpApp, owner, { name: "Acme" });
    await smtpApp.http
      .post("/alert-rules")
      .set("Authorization", owner.bearer)
      .send({ frequency: "immediate", severity_threshold: "low" })
      .expect(201);
    const event = await createEvent(smtpApp, owner, { competitorId: acme.id, severity: "high" });
    await new EventFanOut(smtpApp.service.services).deliver(event.id);

    const rows = () =>
      smtpApp.service.services.knex("alert_deliveries").where({ event_id: event.id, channel: "email" });
    await waitFor(async () => (await rows()).some((r) => r.recipient === owner.email && r.status === "sent"));
    const failed = await waitFor(async () => (await rows()).find((r) => r.recipient === refused.email && r.error));
    expect(failed.status).toBe("queued");
    expect(failed.error).toMatch(/550/);
    expect(sink.messages.filter((m) => m.to.includes(refused.email))).toEqual([]);
  });
});

describe("HTTP provider (Resend's API)", () => {
  it("posts the mail with the key and keeps the provider's id", async () => {
    const owner = await createWorkspace(resendApp);
    const digest = await sendDigest(resendApp, owner);
    expect(digest.delivery_summary).toMatchObject({ sent: 1, total: 1 });
    const request = resend.requests.find((r) => r.body.to === owner.email)!;
    expect(request.authorization).toBe("Bearer re_test_key");
    expect(request.body).toMatchObject({
      subject: expect.stringMatching(/^Daily digest for /),
      text: expect.stringContaining("No competitor changes"),
      html: expect.stringContaining("<!doctype html>"),
      headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    const res = await resendApp.http
      .get(`/digests/${digest.id}/deliveries`)
      .set("Authorization", owner.bearer)
      .expect(200);
    expect(res.body[0]).toMatchObject({
      provider: "resend",
      provider_message_id: `re_${resend.requests.indexOf(request) + 1}`,
    });
  });
});
