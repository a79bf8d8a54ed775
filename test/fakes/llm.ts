/**
 * A fake OpenAI-compatible chat-completions API on 127.0.0.1 (docs/architecture.md#external-systems): `POST
 * /v1/chat/completions` with `Authorization: Bearer <apiKey>`, answering OpenAI's wire format (`choices[0].message`,
 * `usage`, the `{"error": {...}}` envelope). It records every request, and answers scripted replies and failures
 * (with `Retry-After`, or a delay longer than the client's timeout) before its default answer.
 *
 * Point the service at it with `LLM_BASE_URL: fake.baseUrl` (which ends in `/v1`), `LLM_API_KEY: fake.apiKey`,
 * `LLM_MODEL: fake.model`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface LlmRecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it is not JSON). */
  body: any;
}

export interface ChatCompletionRequest {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens?: number;
  temperature?: number;
}

export type Answer =
  | { kind: "reply"; content: string | ((request: ChatCompletionRequest) => string); usage?: boolean }
  | { kind: "error"; status: number; message?: string; retryAfter?: string; rawBody?: string }
  | { kind: "hang"; ms: number };

export class FakeLlm {
  readonly requests: LlmRecordedRequest[] = [];
  baseUrl = "";
  apiKey = "sk-test-fake-llm-key";
  model = "fake-gpt-test";
  /** The answer when nothing is scripted; by default it repeats the question and cites the first context item. */
  defaultContent: (request: ChatCompletionRequest) => string = (request) =>
    `From the workspace's data [1]: ${request.messages.at(-1)?.content.slice(0, 80) ?? ""}`;
  private readonly scripted: Answer[] = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let body: any = null;
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
        const request = {
          method: req.method ?? "",
          path: new URL(req.url ?? "/", "http://x").pathname,
          headers: req.headers,
          body,
        };
        this.requests.push(request);
        void this.answer(request).then(({ status, headers, payload }) => {
          if (res.destroyed) return;
          res.writeHead(status, { "content-type": "application/json", ...headers });
          res.end(payload);
        });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next answers, in order, before the default one. */
  script(...answers: Answer[]): this {
    this.scripted.push(...answers);
    return this;
  }

  /** The next answer is `content` (a string, or built from the request). */
  reply(content: string | ((request: ChatCompletionRequest) => string), options: { usage?: boolean } = {}): this {
    return this.script({ kind: "reply", content, ...options });
  }

  /** The next `times` answers are this error, in OpenAI's envelope. */
  fail(status: number, options: { message?: string; retryAfter?: string; rawBody?: string } = {}, times = 1): this {
    for (let i = 0; i < times; i++) this.script({ kind: "error", status, ...options });
    return this;
  }

  /** Forgets recorded requests and scripted answers. */
  reset(): void {
    this.requests.length = 0;
    this.scripted.length = 0;
  }

  /** The chat-completion bodies received, in order. */
  completions(): ChatCompletionRequest[] {
    return this.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as ChatCompletionRequest);
  }

  private async answer(
    request: LlmRecordedRequest,
  ): Promise<{ status: number; headers: Record<string, string>; payload: string }> {
    const error = (status: number, message: string, type: string, code: string | null) => ({
      status,
      headers: {},
      payload: JSON.stringify({ error: { message, type, param: null, code } }),
    });
    if (request.path !== "/v1/chat/completions") {
      return error(
        404,
        `Unknown request URL: ${request.method} ${request.path}`,
        "invalid_request_error",
        "unknown_url",
      );
    }
    if (request.method !== "POST") {
      return error(405, "Method not allowed", "invalid_request_error", null);
    }
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return error(401, "Incorrect API key provided", "invalid_request_error", "invalid_api_key");
    }
    const body = request.body as ChatCompletionRequest | null;
    if (!body || typeof body.model !== "string" || !Array.isArray(body.messages) || body.messages.length === 0) {
      return error(400, "'messages' and 'model' are required", "invalid_request_error", null);
    }

    const next = this.scripted.shift() ?? { kind: "reply", content: this.defaultContent };
    if (next.kind === "hang") {
      await new Promise((resolve) => setTimeout(resolve, next.ms));
      return this.completion(body, this.defaultContent(body), true);
    }
    if (next.kind === "error") {
      const reply = error(next.status, next.message ?? "The server had an error", "server_error", null);
      if (next.rawBody !== undefined) reply.payload = next.rawBody;
      if (next.retryAfter !== undefined) reply.headers = { "retry-after": next.retryAfter };
      return reply;
    }
    const content = typeof next.content === "function" ? next.content(body) : next.content;
    return this.completion(body, content, next.usage ?? true);
  }

  private completion(body: ChatCompletionRequest, content: string, withUsage: boolean) {
    const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + String(m.content).length, 0) / 4);
    const completionTokens = Math.ceil(content.length / 4);
    return {
      status: 200,
      headers: {},
      payload: JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        ...(withUsage
          ? {
              usage: {
                prompt_tokens: promptTokens,
                completion_tokens: completionTokens,
                total_tokens: promptTokens + completionTokens,
              },
            }
          : {}),
      }),
    };
  }
}
