/**
 * A fake AgentMail API on 127.0.0.1 (docs/architecture.md#external-systems), speaking its wire format under `/v0`:
 *
 * - `POST /v0/inboxes` `{username?, domain?, display_name?, client_id?}` → 200 Inbox `{pod_id, inbox_id, email,
 *   display_name, client_id, created_at, updated_at}`; a known `client_id` returns the existing inbox;
 * - `POST /v0/webhooks` `{url, event_types, inbox_ids?, client_id?}` → 200 Webhook `{webhook_id, url, event_types,
 *   inbox_ids, secret: "whsec_…", enabled, created_at, updated_at, client_id}`, idempotent by `client_id` likewise;
 * - `GET /v0/inboxes/{inbox_id}/messages?limit&page_token&labels` → `{count, limit, next_page_token?, messages}` of
 *   message items (no bodies), most recent first;
 * - `GET /v0/inboxes/{inbox_id}/messages/{message_id}` → the Message with `text` and `extracted_text`;
 * - `POST /v0/inboxes/{inbox_id}/messages/{message_id}/reply` `{text?, html?}` → `{message_id, thread_id}`.
 *
 * Every call needs `Authorization: Bearer <apiKey>`; errors are AgentMail's `{name, message}`. It records every
 * request and answers scripted failures first. `receive` puts a customer's mail into an inbox and returns the
 * `message.received` event AgentMail would post.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface AgentMailRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeReply {
  status: number;
  body?: unknown;
}

interface Scripted {
  method: string;
  path: RegExp;
  reply: FakeReply;
  remaining: number;
}

export interface AgentMailMessage {
  inbox_id: string;
  thread_id: string;
  message_id: string;
  labels: string[];
  timestamp: string;
  from: string;
  to: string[];
  subject: string;
  preview: string;
  text: string;
  extracted_text: string;
  size: number;
  created_at: string;
  updated_at: string;
}

export class FakeAgentMail {
  readonly requests: AgentMailRequest[] = [];
  apiKey = "am_test_fake_agentmail_key";
  baseUrl = "";
  readonly inboxes = new Map<string, Record<string, unknown>>();
  readonly webhooks = new Map<string, Record<string, unknown>>();
  /** Every message of every inbox, in the order they arrived. */
  readonly messages: AgentMailMessage[] = [];
  /** The most messages one list page holds, whatever `limit` asks (tests lower it to page through few messages). */
  pageCap = 100;
  private readonly scripted: Scripted[] = [];
  private server!: Server;
  private clock = Date.parse("2026-11-20T09:00:00.000Z");

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://fake");
        const raw = Buffer.concat(chunks).toString("utf8");
        let body: any = null;
        try {
          body = raw === "" ? null : JSON.parse(raw);
        } catch {
          body = raw;
        }
        const request = {
          method: req.method ?? "",
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
        };
        this.requests.push(request);
        const reply = this.takeScripted(request) ?? this.handle(request);
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v0`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers the next `times` requests of `method` to a path matching `path` with `reply`. */
  fail(method: string, path: RegExp, reply: FakeReply, times = 1): this {
    this.scripted.push({ method, path, reply, remaining: times });
    return this;
  }

  requestsTo(method: string, path: RegExp): AgentMailRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  /**
   * A customer's mail arriving in `inboxId` (a new thread unless `threadId` names one); returns the stored message and
   * the `message.received` event AgentMail posts for it.
   */
  receive(
    inboxId: string,
    mail: { from: string; subject: string; text: string; threadId?: string },
  ): { message: AgentMailMessage; event: Record<string, unknown> } {
    const message = this.store(inboxId, {
      from: mail.from,
      to: [this.addressOf(inboxId)],
      subject: mail.subject,
      text: mail.text,
      labels: ["received", "unread"],
      threadId: mail.threadId ?? `thd_${randomUUID()}`,
    });
    const threadMessages = this.messages.filter((m) => m.thread_id === message.thread_id);
    const event = {
      type: "event",
      event_type: "message.received",
      event_id: `evt_${randomUUID()}`,
      message,
      thread: {
        inbox_id: inboxId,
        thread_id: message.thread_id,
        labels: ["received"],
        timestamp: message.timestamp,
        senders: [...new Set(threadMessages.map((m) => m.from))],
        recipients: [this.addressOf(inboxId)],
        subject: message.subject,
        preview: message.preview,
        last_message_id: message.message_id,
        message_count: threadMessages.length,
        size: message.size,
        created_at: threadMessages[0]!.created_at,
        updated_at: message.updated_at,
      },
    };
    return { message, event };
  }

  private addressOf(inboxId: string): string {
    return String(this.inboxes.get(inboxId)?.email ?? inboxId);
  }

  private store(
    inboxId: string,
    fields: { from: string; to: string[]; subject: string; text: string; labels: string[]; threadId: string },
  ): AgentMailMessage {
    this.clock += 60_000; // one minute apart, so the order of arrival is the order of time
    const at = new Date(this.clock).toISOString();
    const message: AgentMailMessage = {
      inbox_id: inboxId,
      thread_id: fields.threadId,
      message_id: `<${randomUUID()}@agentmail.to>`,
      labels: fields.labels,
      timestamp: at,
      from: fields.from,
      to: fields.to,
      subject: fields.subject,
      preview: fields.text.slice(0, 100),
      text: fields.text,
      extracted_text: fields.text,
      size: fields.text.length,
      created_at: at,
      updated_at: at,
    };
    this.messages.push(message);
    return message;
  }

  private takeScripted(request: AgentMailRequest): FakeReply | null {
    const entry = this.scripted.find((s) => s.method === request.method && s.path.test(request.path));
    if (!entry) return null;
    if (--entry.remaining <= 0) this.scripted.splice(this.scripted.indexOf(entry), 1);
    return entry.reply;
  }

  private handle(request: AgentMailRequest): FakeReply {
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return { status: 401, body: { name: "UnauthorizedError", message: "Invalid API key" } };
    }
    const { method, path } = request;
    if (method === "POST" && path === "/v0/inboxes") return this.createInbox(request.body ?? {});
    if (method === "POST" && path === "/v0/webhooks") return this.createWebhook(request.body ?? {});
    const messages = /^\/v0\/inboxes\/([^/]+)\/messages$/.exec(path);
    if (method === "GET" && messages) return this.listMessages(decodeURIComponent(messages[1]!), request.query);
    const one = /^\/v0\/inboxes\/([^/]+)\/messages\/([^/]+)$/.exec(path);
    if (method === "GET" && one) return this.getMessage(decodeURIComponent(one[1]!), decodeURIComponent(one[2]!));
    const reply = /^\/v0\/inboxes\/([^/]+)\/messages\/([^/]+)\/reply$/.exec(path);
    if (method === "POST" && reply) {
      return this.reply(decodeURIComponent(reply[1]!), decodeURIComponent(reply[2]!), request.body ?? {});
    }
    return notFound("Route");
  }

  private createInbox(body: any): FakeReply {
    if (typeof body.client_id === "string") {
      const existing = [...this.inboxes.values()].find((inbox) => inbox.client_id === body.client_id);
      if (existing) return { status: 200, body: existing };
    }
    const email = `${body.username ?? randomBytes(4).toString("hex")}@${body.domain ?? "agentmail.to"}`;
    if (this.inboxes.has(email)) {
      return { status: 409, body: { name: "AlreadyExistsError", message: `Inbox ${email} already exists` } };
    }
    const now = new Date().toISOString();
    const inbox = {
      pod_id: "pod_default",
      inbox_id: email,
      email,
      display_name: body.display_name ?? null,
      client_id: body.client_id ?? null,
      created_at: now,
      updated_at: now,
    };
    this.inboxes.set(email, inbox);
    return { status: 200, body: inbox };
  }

  private createWebhook(body: any): FakeReply {
    if (typeof body.url !== "string" || !Array.isArray(body.event_types) || body.event_types.length === 0) {
      return {
        status: 400,
        body: { name: "ValidationError", errors: [{ message: "url and event_types are required" }] },
      };
    }
    if (typeof body.client_id === "string") {
      const existing = [...this.webhooks.values()].find((webhook) => webhook.client_id === body.client_id);
      if (existing) return { status: 200, body: existing };
    }
    const now = new Date().toISOString();
    const webhook = {
      webhook_id: `ep_${randomBytes(8).toString("hex")}`,
      url: body.url,
      event_types: body.event_types,
      inbox_ids: body.inbox_ids ?? null,
      secret: `whsec_${randomBytes(24).toString("base64")}`,
      enabled: true,
      created_at: now,
      updated_at: now,
      client_id: body.client_id ?? null,
    };
    this.webhooks.set(webhook.webhook_id, webhook);
    return { status: 200, body: webhook };
  }

  private listMessages(inboxId: string, query: URLSearchParams): FakeReply {
    if (!this.inboxes.has(inboxId)) return notFound("Inbox");
    const limit = Math.min(Number(query.get("limit") ?? 10), this.pageCap);
    const offset = query.get("page_token") ? Number(Buffer.from(query.get("page_token")!, "base64url").toString()) : 0;
    const labels = query.getAll("labels");
    const all = this.messages
      .filter((m) => m.inbox_id === inboxId && labels.every((label) => m.labels.includes(label)))
      .reverse();
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString("base64url") : undefined;
    return {
      status: 200,
      body: {
        count: page.length,
        limit,
        ...(next ? { next_page_token: next } : {}),
        messages: page.map(({ text: _text, extracted_text: _extracted, ...item }) => item),
      },
    };
  }

  private getMessage(inboxId: string, messageId: string): FakeReply {
    const message = this.messages.find((m) => m.inbox_id === inboxId && m.message_id === messageId);
    return message ? { status: 200, body: message } : notFound("Message");
  }

  private reply(inboxId: string, messageId: string, body: any): FakeReply {
    const original = this.messages.find((m) => m.inbox_id === inboxId && m.message_id === messageId);
    if (!original) return notFound("Message");
    if (typeof body.text !== "string" && typeof body.html !== "string") {
      return { status: 400, body: { name: "ValidationError", errors: [{ message: "text or html is required" }] } };
    }
    const sent = this.store(inboxId, {
      from: this.addressOf(inboxId),
      to: [original.from],
      subject: original.subject.startsWith("Re:") ? original.subject : `Re: ${original.subject}`,
      text: body.text ?? "",
      labels: ["sent"],
      threadId: original.thread_id,
    });
    return { status: 200, body: { message_id: sent.message_id, thread_id: sent.thread_id } };
  }
}

function notFound(what: string): FakeReply {
  return { status: 404, body: { name: "NotFoundError", message: `${what} not found` } };
}
