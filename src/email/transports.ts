/**
 * The transports outgoing email leaves through, chosen by EMAIL_TRANSPORT (docs/operations.md#environment-variables):
 * `log` (application log + `email_outbox` table), SMTP via nodemailer, or Resend's HTTP API. Messages reach them
 * through the queue (src/email/outbox.ts), except digests, which their own job sends (src/digests/send.ts).
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import nodemailer from "nodemailer";
import type { Logger } from "pino";
import { request } from "undici";
import type { Config } from "../config.js";

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export interface SentEmail {
  /** The provider's id for the message (the `log` transport makes one up). */
  messageId: string;
}

export interface EmailTransport {
  send(message: EmailMessage): Promise<SentEmail>;
  close(): Promise<void>;
}

class LogTransport implements EmailTransport {
  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
  ) {}

  async send(message: EmailMessage): Promise<SentEmail> {
    const messageId = `log-${randomUUID()}`;
    await this.knex("email_outbox").insert({
      message_id: messageId,
      to_address: message.to,
      subject: message.subject,
      text_body: message.text,
      html_body: message.html ?? null,
      headers: JSON.stringify(message.headers ?? {}),
    });
    this.log.info({ email: { messageId, to: message.to, subject: message.subject } }, "email written to outbox");
    return { messageId };
  }

  async close(): Promise<void> {}
}

class SmtpTransport implements EmailTransport {
  private readonly transporter: nodemailer.Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transporter = nodemailer.createTransport(url);
  }

  async send(message: EmailMessage): Promise<SentEmail> {
    const info = await this.transporter.sendMail({ from: this.from, ...message });
    return { messageId: String(info.messageId) };
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}

class ResendTransport implements EmailTransport {
  constructor(private readonly config: Config["email"]) {}

  async send(message: EmailMessage): Promise<SentEmail> {
    const response = await request(`${this.config.resendApiBase}/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.config.resendApiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ from: this.config.from, ...message }),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    const text = await response.body.text();
    if (response.statusCode >= 300)
      throw new Error(`email provider answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    const id = (JSON.parse(text) as { id?: unknown }).id;
    if (typeof id !== "string") throw new Error("email provider answered without a message id");
    return { messageId: id };
  }

  async close(): Promise<void> {}
}

export function createEmailTransport(config: Config, knex: Knex, log: Logger): EmailTransport {
  switch (config.email.transport) {
    case "smtp":
      return new SmtpTransport(config.email.smtpUrl!, config.email.from);
    case "resend":
      return new ResendTransport(config.email);
    case "log":
      return new LogTransport(knex, log);
  }
}
