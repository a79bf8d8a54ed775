/**
 * The support mail provider: AgentMail's REST API (`SUPPORT_MAIL_API_BASE`, default https://api.agentmail.to/v0) with
 * `Authorization: Bearer SUPPORT_MAIL_API_KEY`, reached through the project's one outbound client
 * (src/lib/http-client.ts). Only what the support inbox uses (docs/product-rules.md#support-inbox):
 *
 * - `POST /inboxes` `{username, domain, display_name, client_id}` → the inbox (`inbox_id`, `email`, …); the provider
 *   returns the existing inbox for a known `client_id`;
 * - `POST /webhooks` `{url, event_types, inbox_ids, client_id}` → the webhook (`webhook_id`, `secret`, …), idempotent
 *   by `client_id` the same way;
 * - `GET /inboxes/{inbox_id}/messages?limit&page_token&labels` → `{count, limit, next_page_token, messages}` (items
 *   without bodies), and `GET /inboxes/{inbox_id}/messages/{message_id}` → the message with `text`/`extracted_text`;
 * - `POST /inboxes/{inbox_id}/messages/{message_id}/reply` `{text}` → `{message_id, thread_id}`.
 *
 * Every failure is one error, SupportProviderError, an ApiError 502 whose detail names the status and the provider's
 * message (AgentMail's error body is `{name, message}`), never a 500 (docs/product-rules.md#status-codes).
 */
import type { Config } from "../config.js";
import { ApiError } from "../http/errors.js";
import { FetchError, type HttpClient } from "../lib/http-client.js";

/** The provider failed or refused the call: the operation answers 502 with this message. */
export class SupportProviderError extends ApiError {
  constructor(
    message: string,
    /** The provider's HTTP status when it answered one (404: it does not know the message), else null. */
    readonly providerStatus: number | null = null,
  ) {
    super(502, `The support mail provider failed: ${message}`);
    this.name = "SupportProviderError";
  }
}

/** Provider JSON objects are passed through to the setup response as the provider describes them. */
export type ProviderObject = Record<string, unknown>;

export interface ProviderInbox extends ProviderObject {
  inbox_id: string;
  email: string;
}

export interface ProviderWebhook extends ProviderObject {
  webhook_id: string;
  secret: string;
}

/** A message as the provider describes it; only the fields read are typed, and all are checked before use. */
export type ProviderMessage = Record<string, unknown>;

export interface MessagePage {
  messages: ProviderMessage[];
  next_page_token: string | null;
}

/** Provider calls answer in well under this; a stuck call must not hold an admin's request for the client's 60 s. */
const CALL_TIMEOUT_MS = 20_000;

export class AgentMailClient {
  private readonly base: string;

  constructor(
    private readonly http: HttpClient,
    settings: Pick<Config["supportMail"], "apiBase">,
    private readonly apiKey: string,
  ) {
    this.base = settings.apiBase.replace(/\/+$/, "");
  }

  async createInbox(body: {
    username: string;
    domain: string | null;
    display_name: string;
    client_id: string;
  }): Promise<ProviderInbox> {
    const { domain, ...rest } = body;
    const inbox = await this.call("POST", "/inboxes", domain === null ? rest : { ...rest, domain });
    if (typeof inbox.inbox_id !== "string" || typeof inbox.email !== "string") {
      throw new SupportProviderError("the created inbox has no inbox_id or email");
    }
    return inbox as ProviderInbox;
  }

  async createWebhook(body: {
    url: string;
    event_types: string[];
    inbox_ids: string[];
    client_id: string;
  }): Promise<ProviderWebhook> {
    const webhook = await this.call("POST", "/webhooks", body);
    if (typeof webhook.webhook_id !== "string" || typeof webhook.secret !== "string") {
      throw new SupportProviderError("the created webhook has no webhook_id or secret");
    }
    return webhook as ProviderWebhook;
  }

  /** One page of the inbox's received messages, most recent first. */
  async listReceived(inboxId: string, limit: number, pageToken: string | null): Promise<MessagePage> {
    const query = new URLSearchParams({ limit: String(limit), labels: "received" });
    if (pageToken !== null) query.set("page_token", pageToken);
    const page = await this.call("GET", `/inboxes/${encodeURIComponent(inboxId)}/messages?${query}`);
    if (!Array.isArray(page.messages)) throw new SupportProviderError("the message list has no messages array");
    const next = page.next_page_token;
    return {
      messages: page.messages.filter((m): m is ProviderMessage => m !== null && typeof m === "object"),
      next_page_token: typeof next === "string" && next !== "" ? next : null,
    };
  }

  async getMessage(inboxId: string, messageId: string): Promise<ProviderMessage> {
    return this.call("GET", `/inboxes/${encodeURIComponent(inboxId)}/messages/${encodeURIComponent(messageId)}`);
  }

  async reply(
    inboxId: string,
    messageId: string,
    text: string,
  ): Promise<{ message_id: string; thread_id: string | null }> {
    const sent = await this.call(
      "POST",
      `/inboxes/${encodeURIComponent(inboxId)}/messages/${encodeURIComponent(messageId)}/reply`,
      { text },
    );
    if (typeof sent.message_id !== "string") throw new SupportProviderError("the reply has no message_id");
    return { message_id: sent.message_id, thread_id: typeof sent.thread_id === "string" ? sent.thread_id : null };
  }

  private async call(method: string, path: string, body?: unknown): Promise<ProviderObject> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response;
    try {
      response = await this.http.send(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: CALL_TIMEOUT_MS,
        totalTimeoutMs: CALL_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof FetchError) throw new SupportProviderError(error.message);
      throw error;
    }
    let json: unknown = null;
    try {
      json = response.body === "" ? null : JSON.parse(response.body);
    } catch {
      json = null;
    }
    if (response.status < 200 || response.status > 299) {
      const said = providerMessage(json) ?? (response.body.trim().slice(0, 200) || "no details");
      const hint = response.status === 401 || response.status === 403 ? " (check SUPPORT_MAIL_API_KEY)" : "";
      throw new SupportProviderError(
        `${method} ${path.split("?")[0]} answered HTTP ${response.status}: ${said}${hint}`,
        response.status,
      );
    }
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      throw new SupportProviderError(`${method} ${path.split("?")[0]} answered something that is not a JSON object`);
    }
    return json as ProviderObject;
  }
}

/** AgentMail's error body: `{"name": "...", "message": "..."}`. */
function providerMessage(json: unknown): string | null {
  const message = (json as { message?: unknown } | null)?.message;
  return typeof message === "string" && message.trim() !== "" ? message.trim().slice(0, 200) : null;
}
