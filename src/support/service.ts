/**
 * The vendor's support inbox (docs/product-rules.md#support-inbox, spec/support.tsp): setup and sync against the mail
 * provider (src/support/agentmail.ts), the threads platform admins read and answer, and the public inbound-mail
 * webhook. Its tables belong to no workspace (migrations/20261124190000_support_inbox.ts), so queries name them
 * directly; who may call what is decided in src/http/access.ts (`/support/*`: platform admins).
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { ApiError, conflict, invalid, notFound } from "../http/errors.js";
import type { Jobs } from "../jobs/boss.js";
import type { HttpClient } from "../lib/http-client.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import { claimWebhookMessage, verifyStandardWebhook } from "../lib/standard-webhooks.js";
import { AgentMailClient, SupportProviderError, type ProviderObject } from "./agentmail.js";
import { ingestInbound, parseProviderMessage, type InboundMail } from "./ingest.js";
import { SupportInbox, SupportMessage, SupportThread } from "./models.js";

export interface SupportDeps {
  config: Readonly<Config>;
  knex: Knex;
  http: HttpClient;
  jobs: Jobs;
  log: Logger;
}

/** docs/product-rules.md#bounded-lists: support threads 500. */
export const MAX_LISTED_THREADS = 500;
/** Sync looks at this many of the inbox's most recent received messages per call (spec/support.tsp). */
export const MAX_SYNCED_MESSAGES = 1000;
const SYNC_PAGE_SIZE = 100;

/** The path the provider calls; setup registers `PUBLIC_BASE_URL` + this. */
export const WEBHOOK_PATH = "/support/webhooks/agentmail";
/** The replay store's endpoint name for this webhook (src/lib/standard-webhooks.ts). */
const RECEIPT_ENDPOINT = "support";

// Type aliases, not interfaces: the contract documents these bodies as JSON objects, which an interface (closed to
// index signatures) would not satisfy.
export type SyncResult = { ingested: number; skipped: number };
export type InboundResult = { received: true; thread_id: string | null };

interface InboundRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer | undefined;
  body: { event_type: string; inbox_id?: string; message: Record<string, unknown> };
}

export class SupportService {
  constructor(private readonly deps: SupportDeps) {}

  /** Finds or creates the inbox and registers the webhook, both idempotent by the provider's `client_id`. */
  async setup(): Promise<{ inbox: ProviderObject; webhook: ProviderObject; webhook_url: string }> {
    const client = this.client();
    const inbox = await this.provisionInbox(client);
    const webhookUrl = `${this.deps.config.publicBaseUrl}${WEBHOOK_PATH}`;
    const webhook = await client.createWebhook({
      url: webhookUrl,
      event_types: ["message.received"],
      inbox_ids: [inbox.inbox_id],
      // A new PUBLIC_BASE_URL or inbox is a new registration; the same ones are the same registration.
      client_id: `rivalscope-support-webhook-${digest(`${inbox.inbox_id}\n${webhookUrl}`)}`,
    });
    // The secret the provider signs with is kept (sealed): the inbound webhook verifies with it when no
    // INBOUND_MAIL_WEBHOOK_SECRET is configured, so a deployment is never left accepting unsigned mail.
    await this.deps
      .knex("support_inboxes")
      .where({ client_id: this.inboxClientId() })
      .update({
        webhook_id: webhook.webhook_id,
        webhook_secret: secretBoxOf(this.deps.config).seal(
          webhook.secret,
          sealedPlace.supportWebhookSecret(this.inboxClientId()),
        ),
        updated_at: this.deps.knex.fn.now(),
      });
    return { inbox, webhook, webhook_url: webhookUrl };
  }

  /**
   * Ingests the received messages the service does not have yet, most recent first, up to MAX_SYNCED_MESSAGES. Each
   * message is stored in its own short transaction after its fetch (docs/architecture.md#no-transaction-across-the-network).
   */
  async sync(): Promise<SyncResult> {
    const client = this.client();
    const stored = await SupportInbox.query(this.deps.knex).findById(this.inboxClientId());
    const inboxId = stored?.provider_inbox_id ?? (await this.provisionInbox(client)).inbox_id;
    const result: SyncResult = { ingested: 0, skipped: 0 };
    let pageToken: string | null = null;
    let seen = 0;
    do {
      const page = await client.listReceived(inboxId, SYNC_PAGE_SIZE, pageToken);
      const items = page.messages.slice(0, MAX_SYNCED_MESSAGES - seen);
      seen += items.length;
      const ids = items.map((m) => m.message_id).filter((id): id is string => typeof id === "string" && id !== "");
      const known = new Set(
        (await this.deps
          .knex("support_messages")
          .whereIn("provider_message_id", ids)
          .pluck("provider_message_id")) as string[],
      );
      result.skipped += items.length - ids.length;
      for (const id of ids) {
        if (known.has(id)) {
          result.skipped++;
          continue;
        }
        const message = await client.getMessage(inboxId, id);
        let mail;
        try {
          mail = parseProviderMessage(message, inboxId, ["provider", "message"]);
        } catch (error) {
          // A provider message without a usable sender cannot become a thread; it is reported, not fatal.
          if (!(error instanceof ApiError)) throw error;
          this.deps.log.warn({ message_id: id }, "support sync: skipped a message without a usable sender");
          result.skipped++;
          continue;
        }
        const threadId = await this.deps.knex.transaction((trx) => ingestInbound(trx, this.deps.jobs, mail));
        if (threadId === null) result.skipped++;
        else result.ingested++;
      }
      pageToken = page.next_page_token;
    } while (pageToken !== null && seen < MAX_SYNCED_MESSAGES);
    return result;
  }

  /** Most recently active first, at most MAX_LISTED_THREADS. */
  async list(): Promise<SupportThread[]> {
    return SupportThread.query(this.deps.knex)
      .orderBy([
        { column: "last_message_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(MAX_LISTED_THREADS);
  }

  async get(threadId: string): Promise<{ thread: SupportThread; messages: SupportMessage[] }> {
    const thread = await this.thread(threadId);
    const messages = await SupportMessage.query(this.deps.knex)
      .where({ thread_id: thread.id })
      .orderBy([{ column: "created_at" }, { column: "seq" }]);
    return { thread, messages };
  }

  /** Idempotent; a later inbound message reopens the thread (src/support/ingest.ts). */
  async close(threadId: string): Promise<SupportThread> {
    return this.setStatus(threadId, { status: "closed", needs_human: false });
  }

  /** From any state; an escalated thread has needs_human true (docs/product-rules.md#support-inbox). */
  async escalate(threadId: string): Promise<SupportThread> {
    return this.setStatus(threadId, { status: "escalated", needs_human: true });
  }

  /**
   * Sends `text`, or the draft the admin approved (`approved_draft`, which must still be the thread's latest draft:
   * 409 otherwise), as a reply to the thread's latest inbound message, then records it. The draft is written by the
   * triage (an LLM) from mail anyone can send, so it never goes out unreviewed: with neither field the answer is 422
   * (docs/product-rules.md#support-inbox). The provider call runs outside any transaction; nothing is recorded when
   * it fails (502), so the draft is kept for another try.
   */
  async reply(
    threadId: string,
    input: { text?: string | null; approved_draft?: string | null },
  ): Promise<SupportThread> {
    const text = input.text ?? null;
    const approved = input.approved_draft ?? null;
    if (text !== null && approved !== null) {
      throw invalid(["body", "approved_draft"], "Give the reply's text or approved_draft, not both");
    }
    if (text === null && approved === null) {
      throw invalid(
        ["body", "text"],
        "Field required: the reply's text, or approved_draft (the latest draft as read) to send that draft",
        "missing",
      );
    }
    const client = this.client();
    const thread = await this.thread(threadId);
    if (approved !== null) {
      if (thread.latest_draft === null || thread.latest_draft.trim() === "") {
        throw conflict("This thread has no drafted reply to send; send the reply's `text`");
      }
      if (thread.latest_draft !== approved) {
        throw conflict(
          "The thread's draft has changed since it was read (a newer message was triaged); read latest_draft again and approve that one, or send `text`",
        );
      }
    }
    const body = text ?? approved!;
    const repliedTo = await SupportMessage.query(this.deps.knex)
      .where({ thread_id: thread.id, direction: "inbound" })
      .whereNotNull("provider_message_id")
      .orderBy([
        { column: "created_at", order: "desc" },
        { column: "seq", order: "desc" },
      ])
      .first();
    if (!repliedTo) throw conflict("This thread has no received message to reply to");
    const inbox = await SupportInbox.query(this.deps.knex).findOne({ provider_inbox_id: thread.provider_inbox_id });
    const fromEmail = thread.inbox_address ?? inbox?.email ?? null;
    if (fromEmail === null) {
      throw conflict("The support inbox's address is unknown; run POST /support/admin/setup first");
    }
    const sent = await client.reply(thread.provider_inbox_id, repliedTo.provider_message_id!, body);
    return this.deps.knex.transaction(async (trx) => {
      await trx("support_messages")
        .insert({
          thread_id: thread.id,
          direction: "outbound",
          provider_message_id: sent.message_id,
          from_email: fromEmail,
          from_name: null,
          text: body,
        })
        .onConflict("provider_message_id")
        .ignore();
      return SupportThread.query(trx).patchAndFetchById(thread.id, {
        message_count: trx.raw("message_count + 1") as unknown as number,
        last_message_at: trx.fn.now() as unknown as Date,
        latest_draft: null,
      });
    });
  }

  /**
   * The public webhook (docs/product-rules.md#support-inbox). It fails closed: the Standard Webhooks signature is
   * verified with INBOUND_MAIL_WEBHOOK_SECRET, or else with the secret setup received from the provider, and without
   * either every request answers 401. A verified body is still only a notice: the message stored is the provider's
   * own copy, fetched by id, whose thread and sender must be the body's (422 otherwise), dated no later than its
   * receipt. The delivery id is claimed in the transaction that stores the message, so a rejected or failed request
   * stores nothing and marks nothing seen.
   */
  async receive(request: InboundRequest): Promise<InboundResult> {
    const deliveryId = verifyStandardWebhook(await this.webhookSecrets(), request.headers, request.rawBody);
    const { body } = request;
    const notice =
      body.event_type === "message.received"
        ? parseProviderMessage(body.message, body.inbox_id ?? null, ["body", "message"])
        : null;
    // Once setup has provisioned the inbox, mail of other inboxes (another webhook's) is not the support inbox's.
    const inboxes = (await SupportInbox.query(this.deps.knex).select("provider_inbox_id")).map(
      (i) => i.provider_inbox_id,
    );
    const ours = notice !== null && (inboxes.length === 0 || inboxes.includes(notice.providerInboxId));
    const known =
      ours &&
      (await this.deps
        .knex("support_messages")
        .where({ provider_message_id: notice.providerMessageId })
        .first("id")) !== undefined;
    const mail = ours && !known ? await this.providerCopy(notice) : null;
    return this.deps.knex.transaction(async (trx) => {
      await claimWebhookMessage(trx, RECEIPT_ENDPOINT, deliveryId);
      const threadId = mail ? await ingestInbound(trx, this.deps.jobs, mail) : null;
      return { received: true, thread_id: threadId };
    });
  }

  /** The secrets inbound mail may be signed with: the configured one, else those setup stored (none: all refused). */
  private async webhookSecrets(): Promise<string[]> {
    const configured = this.deps.config.inboundMailWebhookSecret;
    if (configured !== null) return [configured];
    const stored: { client_id: string; webhook_secret: string }[] = await this.deps
      .knex("support_inboxes")
      .whereNotNull("webhook_secret")
      .select("client_id", "webhook_secret");
    const box = secretBoxOf(this.deps.config);
    return stored.map((row) => box.open(row.webhook_secret, sealedPlace.supportWebhookSecret(row.client_id)));
  }

  /**
   * The message as the provider holds it, checked against the notice that announced it: the provider must know the
   * message, in the same thread and from the same sender (a forged body cannot graft mail onto a customer's thread).
   */
  private async providerCopy(notice: InboundMail): Promise<InboundMail> {
    const client = this.client();
    let message;
    try {
      message = await client.getMessage(notice.providerInboxId, notice.providerMessageId);
    } catch (error) {
      if (error instanceof SupportProviderError && error.providerStatus === 404) {
        throw invalid(["body", "message", "message_id"], "The mail provider does not know this message");
      }
      throw error;
    }
    const mail = parseProviderMessage(message, notice.providerInboxId, ["body", "message"]);
    if (mail.providerMessageId !== notice.providerMessageId) {
      throw invalid(["body", "message", "message_id"], "Does not match the provider's copy of the message");
    }
    if (mail.providerThreadId !== notice.providerThreadId) {
      throw invalid(["body", "message", "thread_id"], "Does not match the provider's copy of the message");
    }
    if (mail.fromEmail !== notice.fromEmail) {
      throw invalid(["body", "message", "from"], "Does not match the provider's copy of the message");
    }
    return mail;
  }

  /** The provider client, or 503 when this deployment has not configured one. */
  private client(): AgentMailClient {
    const { supportMail } = this.deps.config;
    if (supportMail.apiKey === null) {
      throw new ApiError(
        503,
        "The support mail provider is not configured on this deployment: set SUPPORT_MAIL_API_KEY (and SUPPORT_MAIL_API_BASE for a provider other than AgentMail)",
      );
    }
    return new AgentMailClient(this.deps.http, supportMail, supportMail.apiKey);
  }

  /** The provider's `client_id` for the configured inbox: the same settings always name the same inbox. */
  private inboxClientId(): string {
    const { inboxUsername, inboxDomain } = this.deps.config.supportMail;
    return `rivalscope-support-${digest(`${inboxUsername}@${inboxDomain ?? ""}`)}`;
  }

  private async provisionInbox(client: AgentMailClient) {
    const { inboxUsername, inboxDomain } = this.deps.config.supportMail;
    const clientId = this.inboxClientId();
    const inbox = await client.createInbox({
      username: inboxUsername,
      domain: inboxDomain,
      display_name: "Rivalscope Support",
      client_id: clientId,
    });
    await this.deps
      .knex("support_inboxes")
      .insert({ client_id: clientId, provider_inbox_id: inbox.inbox_id, email: inbox.email })
      .onConflict("client_id")
      .merge({ provider_inbox_id: inbox.inbox_id, email: inbox.email, updated_at: this.deps.knex.fn.now() });
    return inbox;
  }

  private async thread(threadId: string): Promise<SupportThread> {
    const thread = await SupportThread.query(this.deps.knex).findById(threadId);
    if (!thread) throw notFound("Support thread");
    return thread;
  }

  private async setStatus(
    threadId: string,
    change: Pick<SupportThread, "status" | "needs_human">,
  ): Promise<SupportThread> {
    const thread = await SupportThread.query(this.deps.knex).patchAndFetchById(threadId, change);
    if (!thread) throw notFound("Support thread");
    return thread;
  }
}

/** A short stable digest for provider `client_id`s. */
function digest(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}
