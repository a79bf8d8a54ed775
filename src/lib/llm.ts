/**
 * The one LLM client: an OpenAI-compatible chat-completions API at `LLM_BASE_URL` (`POST {base}/chat/completions`,
 * `Authorization: Bearer LLM_API_KEY`, model `LLM_MODEL`), reached through the project's one outbound client
 * (src/lib/http-client.ts: SSRF guard, byte cap, timeouts). Chat, teardowns and the support inbox's triage use it; each
 * has a rule-based path for when it is not configured (`llmFromConfig` returns null), so no feature needs an LLM
 * (docs/product-rules.md#admin-views: what an LLM wrote records `LLM_MODEL`, the rule-based writer `null`).
 *
 * Failures are one error, `LlmError`, an ApiError 502 with a plain message: the provider could not be reached, timed
 * out, kept answering 429/5xx after bounded retries, refused the request, or answered something that is not a chat
 * completion. Retries: 429 and 5xx (and 408), and connections that failed before an answer, up to `maxAttempts`
 * in all, waiting the provider's `Retry-After` when it sends one (at most `maxRetryAfterSeconds`: a longer wait fails at
 * once, because a request is waiting on the answer) or a short exponential backoff otherwise. A timed-out attempt is
 * not retried: a model that took the whole timeout once would hold the caller that long again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Config } from "../config.js";
import { ApiError } from "../http/errors.js";
import { parseRetryAfter } from "../webhooks/policy.js";
import { FetchError, type HttpClient } from "./http-client.js";

export interface LlmMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface LlmRequest {
  /** The service's instructions, sent first as a `system` message. */
  system: string;
  /** The rest of the conversation, in order (further `system` messages allowed). */
  messages: LlmMessage[];
  /** `max_tokens` of the completion; default 800. */
  maxTokens?: number;
  /** Default 0.2: answers grounded in data, not creative writing. */
  temperature?: number;
}

/** Token counts as the provider reported them. */
export interface LlmUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The provider's total, or the sum of the two when it sends none. */
  total_tokens: number | null;
}

export interface LlmCompletion {
  /** The assistant's text. */
  content: string;
  /** `LLM_MODEL`: what the product records as the writer. */
  model: string;
  /** `null` when the provider reports no usage. */
  usage: LlmUsage | null;
}

export interface LlmClient {
  /** `LLM_MODEL`. */
  readonly model: string;
  complete(request: LlmRequest): Promise<LlmCompletion>;
}

export interface LlmOptions {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** Attempts in all, the first included; default 3. */
  maxAttempts?: number;
  /** Headers and idle-body timeout of one attempt; default 60 000 ms (completions take seconds, not milliseconds). */
  timeoutMs?: number;
  /** Whole-exchange deadline of one attempt; default 90 000 ms. */
  totalTimeoutMs?: number;
  /** The longest `Retry-After` waited out; default 10 s. */
  maxRetryAfterSeconds?: number;
  /** First backoff when the provider sends no `Retry-After`; doubled per attempt, with jitter. Default 500 ms. */
  retryBaseMs?: number;
}

/**
 * The provider failed; the caller's request answers 502 with this message. `reachedProvider` says whether any
 * attempt may have been billed: the request reached the provider (it answered, even with an error or an empty
 * completion, or it timed out or dropped the connection while working on it). Callers that bound what the provider
 * costs (the chat quota, docs/product-rules.md#chat) count such a call.
 */
export class LlmError extends ApiError {
  constructor(
    message: string,
    readonly reachedProvider = true,
  ) {
    super(502, message);
    this.name = "LlmError";
  }
}

const DEFAULT_MAX_TOKENS = 800;
const DEFAULT_TEMPERATURE = 0.2;

/** The configured client, or null when `LLM_BASE_URL` is unset: callers then use their rule-based writer. */
export function llmFromConfig(config: Pick<Config, "llm">, http: HttpClient): LlmClient | null {
  const { baseUrl, apiKey, model } = config.llm;
  if (baseUrl === null || model === null) return null;
  return new OpenAiCompatibleClient(http, { baseUrl, apiKey, model });
}

interface Failure {
  message: string;
  retryable: boolean;
  retryAfterSeconds: number | null;
  /** Whether the request reached the provider (see LlmError). */
  reached: boolean;
}

/**
 * Whether a failed exchange may have reached the provider: anything but a failure before the request could be sent
 * (refused by the SSRF guard, a name that does not resolve, a refused, unreachable or untrusted connection).
 * Timeouts count (the request may be being answered), and so does a connection closed mid-exchange.
 */
function reachedProvider(error: FetchError): boolean {
  if (error.kind === "blocked" || error.kind === "dns" || error.kind === "invalid_url") return false;
  if (error.kind === "network") return error.message.includes("closed unexpectedly");
  return true;
}

export class OpenAiCompatibleClient implements LlmClient {
  readonly model: string;
  private readonly url: string;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly retryBaseMs: number;

  constructor(
    private readonly http: HttpClient,
    private readonly options: LlmOptions,
  ) {
    this.model = options.model;
    this.url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.totalTimeoutMs = options.totalTimeoutMs ?? 90_000;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 10;
    this.retryBaseMs = options.retryBaseMs ?? 500;
  }

  async complete(request: LlmRequest): Promise<LlmCompletion> {
    const body = JSON.stringify({
      model: this.model,
      messages: [{ role: "system", content: request.system }, ...request.messages],
      max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
      temperature: request.temperature ?? DEFAULT_TEMPERATURE,
    });
    let reached = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(body);
      if ("content" in outcome) return outcome;
      reached ||= outcome.reached;
      if (!outcome.retryable || attempt >= this.maxAttempts) {
        const after = attempt > 1 ? ` (after ${attempt} attempts)` : "";
        throw new LlmError(`The language model provider failed: ${outcome.message}${after}`, reached);
      }
      if (outcome.retryAfterSeconds !== null && outcome.retryAfterSeconds > this.maxRetryAfterSeconds) {
        throw new LlmError(
          `The language model provider is rate limiting: ${outcome.message}; it asked to wait ${Math.ceil(outcome.retryAfterSeconds)} s`,
          reached,
        );
      }
      const backoffMs = this.retryBaseMs * 2 ** (attempt - 1) * (1 + Math.random() * 0.25);
      await sleep(outcome.retryAfterSeconds !== null ? outcome.retryAfterSeconds * 1000 : backoffMs);
    }
  }

  /** One POST: the completion, or why it failed and whether another attempt may help. */
  private async attempt(body: string): Promise<LlmCompletion | Failure> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.options.apiKey !== null) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response;
    try {
      response = await this.http.send(this.url, {
        method: "POST",
        headers,
        body,
        timeoutMs: this.timeoutMs,
        totalTimeoutMs: this.totalTimeoutMs,
      });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      return {
        message: error.message,
        retryable: error.kind === "network",
        retryAfterSeconds: null,
        reached: reachedProvider(error),
      };
    }
    const json = parseJson(response.body);
    if (response.status < 200 || response.status > 299) {
      const said = providerMessage(json) ?? (response.body.trim().slice(0, 200) || "no details");
      const status = response.status;
      return {
        message: `HTTP ${status}: ${said}`,
        retryable: status === 408 || status === 429 || status >= 500,
        retryAfterSeconds: parseRetryAfter(response.headers["retry-after"], Date.now()),
        reached: true,
      };
    }
    const content = json?.choices?.[0]?.message?.content;
    if (typeof content !== "string" || content.trim() === "") {
      return {
        message: "the answer holds no completion text",
        retryable: false,
        retryAfterSeconds: null,
        reached: true,
      };
    }
    return { content: content.trim(), model: this.model, usage: usageOf(json?.usage) };
  }
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** OpenAI's error envelope: `{"error": {"message": "…", "type": "…", "code": "…"}}`. */
function providerMessage(json: any): string | null {
  const message = json?.error?.message ?? (typeof json?.error === "string" ? json.error : null);
  return typeof message === "string" && message.trim() !== "" ? message.trim().slice(0, 200) : null;
}

function tokens(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

function usageOf(usage: any): LlmUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const prompt = tokens(usage.prompt_tokens);
  const completion = tokens(usage.completion_tokens);
  const total = tokens(usage.total_tokens) ?? (prompt !== null && completion !== null ? prompt + completion : null);
  if (prompt === null && completion === null && total === null) return null;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}
