/**
 * The only reader of `process.env` (docs/operations.md#environment-variables). Everything else receives this frozen,
 * typed object. Bad values fail fast at start-up with a message naming the variable, instead of surfacing later as odd
 * behaviour.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export type Role = "all" | "api" | "worker";

export interface Config {
  /** Postgres connection string; `null` starts the embedded Postgres under `dataDir/pg`. */
  databaseUrl: string | null;
  host: string;
  port: number;
  role: Role;
  publicBaseUrl: string;
  jwtSecret: Uint8Array;
  /** AES-256-GCM key (32 bytes) sealing stored credentials: webhook signing secrets, CRM tokens, Slack URLs. */
  secretsKey: Buffer;
  jwtTtlSeconds: number;
  jwtIssuer: string;
  jwtAudience: string;
  allowPrivateTargets: boolean;
  email: {
    transport: "log" | "smtp" | "resend";
    smtpUrl: string | null;
    from: string;
    resendApiBase: string;
    resendApiKey: string | null;
    webhookSecret: string | null;
  };
  inboundMailWebhookSecret: string | null;
  /** Checkout and the portal need `apiKey`, the payments webhook `webhookSecret` (503 without). */
  payments: { apiBase: string; apiKey: string | null; webhookSecret: string | null };
  llm: { baseUrl: string | null; apiKey: string | null; model: string | null };
  /**
   * The AgentMail-compatible support inbox API (docs/product-rules.md#support-inbox); setup, sync and replies need
   * `apiKey` (503 without).
   */
  supportMail: { apiBase: string; apiKey: string | null; inboxUsername: string; inboxDomain: string | null };
  /** Bearer token of `GET /metrics`; null: loopback clients only (docs/operations.md#metrics). */
  metricsToken: string | null;
  /** Where a worker without an HTTP server serves `/metrics`; null: it does not. */
  metricsPort: number | null;
  /** Per firehose source: its API base and credential (docs/product-rules.md#firehose). */
  firehose: Record<FirehoseSourceName, { apiBase: string; token: string | null }>;
  webhookRetryBaseSeconds: number;
  webhookRetryWindowSeconds: number;
  schedulerTickSeconds: number;
  /** Time one fetched page's parsing may take in the parse pool before it fails (src/detection/parse/parse-pool.ts). */
  parseBudgetMs: number;
  /**
   * Rendering of `browser` sources (src/detection/fetch/render.ts): the time one page may take to load and render, the
   * JavaScript heap its scripts may use, and the Chromium to run (null: the one inside @sparticuz/chromium).
   */
  browser: { timeoutMs: number; heapMb: number; chromiumPath: string | null };
  /** Where evidence files (screenshots) are stored: an S3-compatible bucket, or null for `dataDir/assets`. */
  assets: {
    s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string } | null;
  };
  /** Where local state lives: the embedded Postgres and the generated JWT secret. */
  dataDir: string;
  logLevel: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value.trim() === "" ? null : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  try {
    const parsed = new URL(raw);
    if (!["http:", "https:"].includes(parsed.protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
}

/** A JWT secret from the environment, or one generated once and kept in `dataDir` so tokens survive restarts. */
function jwtSecret(env: Env, dataDir: string): Uint8Array {
  const fromEnv = optional(env, "JWT_SECRET");
  if (fromEnv !== null) {
    if (fromEnv.length < 32) throw new ConfigError("JWT_SECRET must be at least 32 characters");
    return new TextEncoder().encode(fromEnv);
  }
  const file = path.join(dataDir, "jwt-secret");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(48).toString("base64url"), { mode: 0o600 });
  }
  return new TextEncoder().encode(readFileSync(file, "utf8").trim());
}

/**
 * The key that seals credentials at rest (src/lib/secret-box.ts): `SECRETS_KEY` as 64 hex characters, or one
 * generated once and kept in `dataDir`, like the JWT secret. Every process sharing a database needs the same key.
 */
function secretsKey(env: Env, dataDir: string): Buffer {
  const fromEnv = optional(env, "SECRETS_KEY");
  if (fromEnv !== null) {
    if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new ConfigError("SECRETS_KEY must be 64 hex characters (32 bytes)");
    return Buffer.from(fromEnv, "hex");
  }
  const file = path.join(dataDir, "secrets-key");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  }
  return Buffer.from(readFileSync(file, "utf8").trim(), "hex");
}

function emailTransport(env: Env): Config["email"] {
  const raw = optional(env, "EMAIL_TRANSPORT") ?? "log";
  let transport: Config["email"]["transport"];
  let smtpUrl: string | null = null;
  if (raw === "log" || raw === "resend") transport = raw;
  else if (/^smtps?:\/\//.test(raw)) {
    transport = "smtp";
    smtpUrl = raw;
  } else throw new ConfigError(`EMAIL_TRANSPORT must be log, resend or smtp://user:pass@host:port, got "${raw}"`);
  const resendApiKey = optional(env, "RESEND_API_KEY");
  if (transport === "resend" && resendApiKey === null) {
    throw new ConfigError("EMAIL_TRANSPORT=resend needs RESEND_API_KEY");
  }
  return {
    transport,
    smtpUrl,
    from: optional(env, "EMAIL_FROM") ?? "Rivalscope <noreply@rivalscope.local>",
    resendApiBase: url(env, "RESEND_API_BASE") ?? "https://api.resend.com",
    resendApiKey,
    webhookSecret: whsecSecret(env, "EMAIL_WEBHOOK_SECRET"),
  };
}

/** The firehose's six sources, in the order the admin view lists them, with each provider's public API. */
export const FIREHOSE_DEFAULT_BASES = {
  hn: "https://hn.algolia.com/api/v1",
  reddit: "https://oauth.reddit.com",
  x: "https://api.x.com",
  youtube: "https://www.googleapis.com",
  github: "https://api.github.com",
  podcast: "https://api.podcastindex.org/api/1.0",
} as const;

export type FirehoseSourceName = keyof typeof FIREHOSE_DEFAULT_BASES;

/** `FIREHOSE_<SOURCE>_API_BASE` and `FIREHOSE_<SOURCE>_TOKEN` for every source. */
function firehoseSources(env: Env): Config["firehose"] {
  const entries = Object.entries(FIREHOSE_DEFAULT_BASES).map(([name, fallback]) => {
    const prefix = `FIREHOSE_${name.toUpperCase()}`;
    return [name, { apiBase: url(env, `${prefix}_API_BASE`) ?? fallback, token: optional(env, `${prefix}_TOKEN`) }];
  });
  return Object.fromEntries(entries) as Config["firehose"];
}

function whsecSecret(env: Env, name: string): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  if (!raw.startsWith("whsec_")) throw new ConfigError(`${name} must start with "whsec_"`);
  return raw;
}

/**
 * The OpenAI-compatible LLM (src/lib/llm.ts). `LLM_MODEL` names what is recorded as the writer of every answer, so a
 * base URL without it is refused at start-up rather than sending requests without a model.
 */
function llmProvider(env: Env): Config["llm"] {
  const baseUrl = url(env, "LLM_BASE_URL");
  const model = optional(env, "LLM_MODEL");
  if (baseUrl !== null && model === null) throw new ConfigError("LLM_BASE_URL needs LLM_MODEL (the model to ask)");
  return { baseUrl, apiKey: optional(env, "LLM_API_KEY"), model };
}

/**
 * The S3-compatible bucket of the asset store (src/lib/asset-store.ts). Every name is read whether or not the
 * endpoint is set; an endpoint without its bucket or keys is refused at start-up.
 */
function assetBucket(env: Env): Config["assets"]["s3"] {
  const endpoint = url(env, "ASSET_S3_ENDPOINT");
  const bucket = optional(env, "ASSET_S3_BUCKET");
  const region = optional(env, "ASSET_S3_REGION") ?? "us-east-1";
  const accessKeyId = optional(env, "ASSET_S3_ACCESS_KEY_ID");
  const secretAccessKey = optional(env, "ASSET_S3_SECRET_ACCESS_KEY");
  if (endpoint === null) return null;
  if (bucket === null || accessKeyId === null || secretAccessKey === null) {
    throw new ConfigError(
      "ASSET_S3_ENDPOINT needs ASSET_S3_BUCKET, ASSET_S3_ACCESS_KEY_ID and ASSET_S3_SECRET_ACCESS_KEY",
    );
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(`ASSET_S3_BUCKET must be a bucket name (lower case, digits, dots, hyphens), got "${bucket}"`);
  }
  return { endpoint, bucket, region, accessKeyId, secretAccessKey };
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const host = optional(env, "HOST") ?? "127.0.0.1";
  const port = integer(env, "PORT", 8000, 0, 65535);
  const dataDir = path.resolve(optional(env, "DATA_DIR") ?? ".data");
  const config: Config = {
    databaseUrl: optional(env, "DATABASE_URL"),
    host,
    port,
    role: oneOf(env, "ROLE", ["all", "api", "worker"] as const, "all"),
    publicBaseUrl: url(env, "PUBLIC_BASE_URL") ?? `http://${host}:${port}`,
    jwtSecret: jwtSecret(env, dataDir),
    secretsKey: secretsKey(env, dataDir),
    jwtTtlSeconds: integer(env, "JWT_TTL_SECONDS", 86400, 60, 30 * 86400),
    jwtIssuer: "rivalscope",
    jwtAudience: "rivalscope-api",
    allowPrivateTargets: optional(env, "ALLOW_PRIVATE_TARGETS") === "1",
    email: emailTransport(env),
    inboundMailWebhookSecret: whsecSecret(env, "INBOUND_MAIL_WEBHOOK_SECRET"),
    payments: {
      // Stripe's own API unless another Stripe-compatible base is given; payments are configured by the key.
      apiBase: url(env, "PAYMENTS_API_BASE") ?? "https://api.stripe.com",
      apiKey: optional(env, "PAYMENTS_API_KEY"),
      webhookSecret: optional(env, "PAYMENTS_WEBHOOK_SECRET"),
    },
    llm: llmProvider(env),
    supportMail: {
      apiBase: url(env, "SUPPORT_MAIL_API_BASE") ?? "https://api.agentmail.to/v0",
      apiKey: optional(env, "SUPPORT_MAIL_API_KEY"),
      inboxUsername: optional(env, "SUPPORT_INBOX_USERNAME") ?? "support",
      inboxDomain: optional(env, "SUPPORT_INBOX_DOMAIN"),
    },
    firehose: firehoseSources(env),
    metricsToken: optional(env, "METRICS_TOKEN"),
    metricsPort: optional(env, "METRICS_PORT") === null ? null : integer(env, "METRICS_PORT", 0, 1, 65535),
    webhookRetryBaseSeconds: integer(env, "WEBHOOK_RETRY_BASE_SECONDS", 30, 0, 86400),
    webhookRetryWindowSeconds: integer(env, "WEBHOOK_RETRY_WINDOW_SECONDS", 86400, 1, 30 * 86400),
    schedulerTickSeconds: integer(env, "SCHEDULER_TICK_SECONDS", 60, 1, 86400),
    parseBudgetMs: integer(env, "PARSE_BUDGET_MS", 5000, 50, 600_000),
    browser: {
      // At most 60 s: with up to 30 s waiting for a free page and 15 s of screenshots, a fetch stays inside its job's
      // 120 s expiry (src/jobs/queues.ts), so a slow render is never run twice at once.
      timeoutMs: integer(env, "BROWSER_TIMEOUT_MS", 20_000, 1000, 60_000),
      heapMb: integer(env, "BROWSER_HEAP_MB", 256, 32, 4096),
      chromiumPath: optional(env, "CHROMIUM_PATH"),
    },
    assets: { s3: assetBucket(env) },
    dataDir,
    logLevel: oneOf(env, "LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
  };
  return Object.freeze(config);
}
