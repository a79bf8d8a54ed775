import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "rivalscope-config-"));
const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir(), ...env });

describe("config (docs/operations.md#environment-variables)", () => {
  it("has the documented defaults", () => {
    const config = load({});
    expect(config).toMatchObject({
      databaseUrl: null,
      host: "127.0.0.1",
      port: 8000,
      role: "all",
      publicBaseUrl: "http://127.0.0.1:8000",
      jwtTtlSeconds: 86400,
      allowPrivateTargets: false,
      webhookRetryBaseSeconds: 30,
      webhookRetryWindowSeconds: 86400,
      schedulerTickSeconds: 60,
    });
    expect(config.email.transport).toBe("log");
    expect(config.email.webhookSecret).toBeNull();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("generates a JWT secret once and keeps it in the data directory", () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).jwtSecret;
    const second = loadConfig({ DATA_DIR: dir }).jwtSecret;
    expect(Buffer.from(first).toString()).toBe(Buffer.from(second).toString());
    expect(first.length).toBeGreaterThanOrEqual(32);
  });

  it.each([
    [{ PORT: "eighty" }, /PORT must be a whole number/],
    [{ PORT: "70000" }, /PORT must be between/],
    [{ ROLE: "both" }, /ROLE must be one of all, api, worker/],
    [{ PUBLIC_BASE_URL: "ftp://x" }, /PUBLIC_BASE_URL must be an http\(s\) URL/],
    [{ JWT_SECRET: "short" }, /JWT_SECRET must be at least 32 characters/],
    [{ EMAIL_TRANSPORT: "pigeon" }, /EMAIL_TRANSPORT must be/],
    [{ EMAIL_TRANSPORT: "resend" }, /needs RESEND_API_KEY/],
    [{ EMAIL_WEBHOOK_SECRET: "secret" }, /EMAIL_WEBHOOK_SECRET must start with "whsec_"/],
    [{ SCHEDULER_TICK_SECONDS: "0" }, /SCHEDULER_TICK_SECONDS must be between/],
    [{ LLM_BASE_URL: "not a url" }, /LLM_BASE_URL must be an http\(s\) URL/],
  ])("fails fast on %j", (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });

  it("reads SMTP URLs, secrets and provider settings", () => {
    const config = load({
      EMAIL_TRANSPORT: "smtp://user:pass@127.0.0.1:2525",
      EMAIL_WEBHOOK_SECRET: "whsec_abc",
      ALLOW_PRIVATE_TARGETS: "1",
      PUBLIC_BASE_URL: "https://app.example.com/",
      ROLE: "worker",
    });
    expect(config.email).toMatchObject({
      transport: "smtp",
      smtpUrl: "smtp://user:pass@127.0.0.1:2525",
      webhookSecret: "whsec_abc",
    });
    expect(config.allowPrivateTargets).toBe(true);
    expect(config.publicBaseUrl).toBe("https://app.example.com");
    expect(config.role).toBe("worker");
  });
});
