import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHttpClient, type HttpClient } from "../../src/lib/http-client.js";
import { LlmError, OpenAiCompatibleClient, llmFromConfig, type LlmOptions } from "../../src/lib/llm.js";
import { FakeLlm } from "../fakes/llm.js";

let fake: FakeLlm;
let http: HttpClient;
beforeAll(async () => {
  fake = await new FakeLlm().start();
  http = createHttpClient({ allowPrivateTargets: true });
});
afterAll(async () => {
  await http?.close();
  await fake?.stop();
});
beforeEach(() => fake.reset());

const client = (options: Partial<LlmOptions> = {}) =>
  new OpenAiCompatibleClient(http, {
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    model: fake.model,
    retryBaseMs: 10,
    ...options,
  });
const ask = (options: Partial<LlmOptions> = {}) =>
  client(options).complete({ system: "Be brief.", messages: [{ role: "user", content: "What changed?" }] });

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe("the LLM client", () => {
  it("posts an OpenAI chat completion with the bearer key and returns the text, the model and the usage", async () => {
    fake.reply("Acme raised prices [1].");
    const answer = await client().complete({
      system: "Answer from the context.",
      messages: [
        { role: "system", content: "Answer in French." },
        { role: "user", content: "What did Acme do?" },
      ],
      maxTokens: 123,
    });
    expect(answer.content).toBe("Acme raised prices [1].");
    expect(answer.model).toBe(fake.model);
    expect(answer.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens! + answer.usage!.completion_tokens!);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body).toEqual({
      model: fake.model,
      messages: [
        { role: "system", content: "Answer from the context." },
        { role: "system", content: "Answer in French." },
        { role: "user", content: "What did Acme do?" },
      ],
      max_tokens: 123,
      temperature: 0.2,
    });
  });

  it("reports null usage when the provider sends none", async () => {
    fake.reply("No usage here.", { usage: false });
    expect((await ask()).usage).toBeNull();
  });

  it("retries a 5xx and returns the next answer", async () => {
    fake.fail(500).reply("Second time lucky.");
    expect((await ask()).content).toBe("Second time lucky.");
    expect(fake.requests).toHaveLength(2);
  });

  it("waits out a 429's Retry-After before retrying", async () => {
    fake.fail(429, { message: "Rate limit reached", retryAfter: "1" }).reply("After the wait.");
    const started = Date.now();
    expect((await ask()).content).toBe("After the wait.");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);
  });

  it("fails at once with 502 when Retry-After asks for longer than it waits", async () => {
    fake.fail(429, { message: "Rate limit reached", retryAfter: "120" });
    const error = await failure(ask());
    expect(error.status).toBe(502);
    expect(error.detail).toMatch(/rate limiting.*Rate limit reached.*120 s/);
    expect(fake.requests).toHaveLength(1);
  });

  it("gives up with 502 after the bounded attempts when the provider keeps failing", async () => {
    fake.fail(503, { message: "Overloaded" }, 5);
    const error = await failure(ask({ maxAttempts: 3 }));
    expect(error.status).toBe(502);
    expect(error.detail).toBe("The language model provider failed: HTTP 503: Overloaded (after 3 attempts)");
    expect(error.body).toEqual({ detail: error.detail });
    expect(fake.requests).toHaveLength(3);
  });

  it("does not retry a refused request (401) and says why", async () => {
    const error = await failure(ask({ apiKey: "sk-wrong" }));
    expect(error.detail).toBe("The language model provider failed: HTTP 401: Incorrect API key provided");
    expect(fake.requests).toHaveLength(1);
  });

  it("times out a provider that does not answer, without retrying", async () => {
    fake.script({ kind: "hang", ms: 3000 });
    const started = Date.now();
    const error = await failure(ask({ timeoutMs: 300, totalTimeoutMs: 400 }));
    expect(error.detail).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(fake.requests).toHaveLength(1);
  });

  it("answers 502 for a reply that is not a chat completion", async () => {
    fake.script({ kind: "error", status: 200, rawBody: '{"choices": []}' });
    const error = await failure(ask());
    expect(error.detail).toMatch(/no completion text/);
    fake.script({ kind: "error", status: 200, rawBody: "<html>gateway</html>" });
    await failure(ask());
  });

  it("retries a connection that fails and then answers 502", async () => {
    const closed = await new FakeLlm().start();
    await closed.stop();
    const error = await failure(ask({ baseUrl: closed.baseUrl, maxAttempts: 2 }));
    expect(error.detail).toMatch(/The language model provider failed: .*\(after 2 attempts\)/);
  });

  it("says whether a failed call reached the provider (and may be billed) or never left", async () => {
    fake.fail(503, { message: "Overloaded" }, 2);
    expect((await failure(ask({ maxAttempts: 2 }))).reachedProvider).toBe(true);
    fake.reply("   ");
    expect((await failure(ask())).reachedProvider).toBe(true);
    fake.script({ kind: "hang", ms: 3000 });
    expect((await failure(ask({ timeoutMs: 300, totalTimeoutMs: 400 }))).reachedProvider).toBe(true);
    const closed = await new FakeLlm().start();
    await closed.stop();
    expect((await failure(ask({ baseUrl: closed.baseUrl, maxAttempts: 2 }))).reachedProvider).toBe(false);
  });

  it("is absent when LLM_BASE_URL is unset, so callers use their rule-based writers", () => {
    expect(llmFromConfig({ llm: { baseUrl: null, apiKey: null, model: null } }, http)).toBeNull();
    const configured = llmFromConfig({ llm: { baseUrl: fake.baseUrl, apiKey: null, model: "m" } }, http);
    expect(configured?.model).toBe("m");
  });
});
