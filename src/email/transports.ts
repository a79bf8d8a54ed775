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
import { QUEUES } from "../jobs/queues.js";

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
  /**
   * Stable for one message, whatever the number of attempts (derived from its row's id: the outgoing email, the digest
   * delivery), so a provider recognises a retry of a message it already took: SMTP sends it as the Message-ID, Resend
   * as the Idempotency-Key header, and the `log` transport writes the message once.
   */
  idempotencyKey?: string;
}

export interface SentEmail {
  /** The provider's id for the message (the `log` transport makes one up). */
  messageId: string;
}

export interface EmailTransport {
  send(message: EmailMessage): Promise<SentEmail>;
  close(): Promise<void>;
}

/**
 * The longest one hand-over to a transport may take: half the `email-send` job's expiry (src/jobs/queues.ts), so a
 * slow mail server fails the attempt, which is retried later, rather than outliving its job, which pg-boss would then
 * start a second time while the first still runs. The `digest-deliver` job's expiry is longer still.
 */
export const EMAIL_SEND_DEADLINE_MS = (QUEUES.emailSend.options.expireInSeconds! * 1000) / 2;

/**
 * nodemailer's own phase timeouts, each a share of the deadline (its defaults are minutes: two to connect, ten of
 * silence); a server slow in every phase is still cut at the deadline by `withinDeadline`.
 */
export const SMTP_TIMEOUTS = {
  dnsTimeout: EMAIL_SEND_DEADLINE_MS / 6,
  connectionTimeout: EMAIL_SEND_DEADLINE_MS / 3,
  greetingTimeout: EMAIL_SEND_DEADLINE_MS / 3,
  socketTimeout: EMAIL_SEND_DEADLINE_MS / 2,
} as const;

/** Resend's HTTP phases; the whole request is aborted at the deadline. */
const HTTP_PHASE_TIMEOUT_MS = EMAIL_SEND_DEADLINE_MS / 2;

/** The Message-ID of a message with an idempotency key: `<key@domain of the sender>`. */
export function messageIdFor(idempotencyKey: string, from: string): string {
  const domain = /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? "rivalscope.invalid";
  return `<${idempotencyKey}@${domain}>`;
}

class LogTransport implements EmailTransport {
  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
  ) {}

  async send(message: EmailMessage): Promise<SentEmail> {
    const messageId = `log-${message.idempotencyKey ?? randomUUID()}`;
    // A repeated key is a message already written: like a provider, take it again without a second copy.
    if (message.idempotencyKey && (await this.knex("email_outbox").where({ message_id: messageId }).first("id"))) {
      return { messageId };
    }
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
    this.transporter = nodemailer.createTransport(withSmtpTimeouts(url));
  }

  async send(message: EmailMessage): Promise<SentEmail> {
    const { idempotencyKey, ...mail } = message;
    const sending = this.transporter.sendMail({
      from: this.from,
      ...mail,
      ...(idempotencyKey ? { messageId: messageIdFor(idempotencyKey, this.from) } : {}),
    });
    // nodemailer cannot abort one message: past the deadline it is abandoned, not stopped, and the server may still
    // take it. The retry then carries the same Message-ID, so the repeat is recognisable.
    const info = await withinDeadline(sending, "the SMTP server");
    return { messageId: String(info.messageId) };
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}

class ResendTransport implements EmailTransport {
  constructor(private readonly config: Config["email"]) {}

  async send(message: EmailMessage): Promise<SentEmail> {
    const { idempotencyKey, ...mail } = message;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.resendApiKey}`,
      "content-type": "application/json",
    };
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    const deadline = AbortSignal.timeout(EMAIL_SEND_DEADLINE_MS);
    const response = await request(`${this.config.resendApiBase}/emails`, {
      method: "POST",
      headers,
      body: JSON.stringify({ from: this.config.from, ...mail }),
      headersTimeout: HTTP_PHASE_TIMEOUT_MS,
      bodyTimeout: HTTP_PHASE_TIMEOUT_MS,
      signal: deadline,
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

/** The SMTP URL with SMTP_TIMEOUTS as its options (nodemailer reads a connection URL's query as options). */
function withSmtpTimeouts(url: string): string {
  const parsed = new URL(url);
  for (const [name, value] of Object.entries(SMTP_TIMEOUTS)) parsed.searchParams.set(name, String(value));
  return parsed.href;
}

/** `sending`, or a rejection once EMAIL_SEND_DEADLINE_MS has passed. */
async function withinDeadline<T>(sending: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not take the message within ${EMAIL_SEND_DEADLINE_MS / 1000} s`)),
      EMAIL_SEND_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([sending, deadline]);
  } finally {
    clearTimeout(timer);
  }
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
