/**
 * The `email-send` job's hand-over (src/email/send.ts, src/email/transports.ts): every attempt at one queued message
 * carries the same idempotency key, derived from its row (SMTP: the Message-ID; Resend: the Idempotency-Key header),
 * and a mail server that never answers fails the attempt well before the job's expiry, so pg-boss never starts a
 * second run of a job whose first is still talking to the server.
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.js";
import { OutgoingEmailDelivery } from "../../src/email/send.js";
import {
  createEmailTransport,
  EMAIL_SEND_DEADLINE_MS,
  SMTP_TIMEOUTS,
  type EmailTransport,
} from "../../src/email/transports.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { mailHeader, SmtpSink } from "../fakes/smtp-sink.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

/** Resend's `POST /emails` answering `503` to the first `failures` requests, then `200 {"id": …}`; keeps the headers. */
class FlakyResend {
  readonly requests: { idempotencyKey: string | undefined; body: any }[] = [];
  failures = 0;
  private server!: HttpServer;
  baseUrl = "";

  async start(): Promise<this> {
    this.server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const key = req.headers["idempotency-key"];
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        this.requests.push({ idempotencyKey: typeof key === "string" ? key : undefined, body });
        res.setHeader("content-type", "application/json");
        if (this.failures > 0) {
          this.failures--;
          res.writeHead(503).end(JSON.stringify({ statusCode: 503, name: "internal_server_error", message: "busy" }));
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

/** A "mail server" that accepts connections and never says a word (no SMTP greeting). */
class SilentServer {
  private server!: TcpServer;
  private readonly sockets = new Set<Socket>();
  url = "";

  async start(): Promise<this> {
    this.server = createTcpServer((socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `smtp://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const FROM = "Rivalscope <accounts@rivalscope.test>";
let app: TestApp;
let sink: SmtpSink;
let resend: FlakyResend;
let silent: SilentServer;
const transports: EmailTransport[] = [];
beforeAll(async () => {
  [app, sink, resend, silent] = await Promise.all([
    startTestApp(),
    new SmtpSink().start(),
    new FlakyResend().start(),
    new SilentServer().start(),
  ]);
});
afterAll(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  await app?.stop();
  await Promise.all([sink?.stop(), resend?.stop(), silent?.stop()]);
});

/** The `email-send` rules over a transport configured as EMAIL_TRANSPORT would (SMTP URL, or Resend's API). */
function sender(email: Partial<Config["email"]>): OutgoingEmailDelivery {
  const config: Config = { ...app.config, email: { ...app.config.email, from: FROM, ...email } };
  const log = pino({ level: "silent" });
  const transport = createEmailTransport(config, app.service.services.knex, log);
  transports.push(transport);
  return new OutgoingEmailDelivery({ config, knex: app.service.services.knex, email: transport, log });
}

/** A queued message's row, without its job (the test app's own worker must not send it through the log transport). */
async function queuedEmail(to: string): Promise<string> {
  const [row] = await app.service.services
    .knex("outgoing_emails")
    .insert({ to_address: to, subject: "Reset your password", text_body: "Follow the link." })
    .returning("id");
  return row.id;
}

const emailRow = (id: string) => app.service.services.knex("outgoing_emails").where({ id }).first();
/** As if the worker had died after the hand-over and before recording it: the row still unsent. */
const forgetSent = (id: string) =>
  app.service.services.knex("outgoing_emails").where({ id }).update({ sent_at: null, provider_message_id: null });

describe("email-send idempotency", () => {
  it("sends every attempt at one row over SMTP with the same Message-ID, derived from the row", async () => {
    const to = "reset-smtp@example.com";
    const id = await queuedEmail(to);
    const smtp = sender({ transport: "smtp", smtpUrl: sink.url });
    await smtp.send(id);
    await forgetSent(id);
    await smtp.send(id);

    const mails = sink.messages.filter((mail) => mail.to.includes(to));
    expect(mails).toHaveLength(2);
    const messageIds = mails.map((mail) => mailHeader(mail.raw, "Message-ID"));
    expect(messageIds).toEqual([`<outgoing-email-${id}@rivalscope.test>`, `<outgoing-email-${id}@rivalscope.test>`]);
    expect((await emailRow(id)).provider_message_id).toBe(messageIds[0]);
  });

  it("sends every attempt at one row to Resend with the same Idempotency-Key", async () => {
    const to = "reset-resend@example.com";
    const id = await queuedEmail(to);
    const http = sender({ transport: "resend", resendApiBase: resend.baseUrl, resendApiKey: "re_test_key" });
    resend.failures = 1;
    await expect(http.send(id)).rejects.toThrow(/HTTP 503/);
    expect((await emailRow(id)).error).toMatch(/HTTP 503/);
    await http.send(id);

    const attempts = resend.requests.filter((request) => request.body.to === to);
    expect(attempts.map((attempt) => attempt.idempotencyKey)).toEqual([`outgoing-email-${id}`, `outgoing-email-${id}`]);
    // The key travels as a header only: the message Resend is given is unchanged.
    expect(attempts[0]!.body).not.toHaveProperty("idempotencyKey");
    expect(await emailRow(id)).toMatchObject({ error: null, provider_message_id: `re_${resend.requests.length}` });
  });
});

describe("email-send timeouts", () => {
  it("keeps every transport timeout inside the hand-over deadline, and the deadline inside the job's expiry", () => {
    const expiryMs = QUEUES.emailSend.options.expireInSeconds! * 1000;
    expect(EMAIL_SEND_DEADLINE_MS).toBeLessThan(expiryMs);
    for (const timeout of Object.values(SMTP_TIMEOUTS)) expect(timeout).toBeLessThan(EMAIL_SEND_DEADLINE_MS);
  });

  it("fails an attempt at a mail server that never greets well before the job would expire", async () => {
    const id = await queuedEmail("reset-silent@example.com");
    const started = Date.now();
    await expect(sender({ transport: "smtp", smtpUrl: silent.url }).send(id)).rejects.toThrow(/greeting/i);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThanOrEqual(EMAIL_SEND_DEADLINE_MS);
    expect(elapsed).toBeLessThan(QUEUES.emailSend.options.expireInSeconds! * 1000);
    expect(await emailRow(id)).toMatchObject({ sent_at: null, error: expect.stringMatching(/greeting/i) });
  }, 45_000);
});
