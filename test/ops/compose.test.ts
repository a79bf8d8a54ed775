/**
 * Static checks of the container files (Dockerfile, compose.yaml, .dockerignore): no container engine runs where the
 * tests run, so these read the files instead of building or starting anything. No database, no service.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/config.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/**
 * Every variable name src/config.ts reads, recorded by running loadConfig on a Proxy environment (the two required
 * keys given, so it neither fails nor writes generated ones to DATA_DIR). Templated names (`FIREHOSE_<SOURCE>_…`)
 * come out expanded, as the service reads them.
 */
function configVariableNames(): Set<string> {
  const names = new Set<string>();
  const values: Record<string, string> = { JWT_SECRET: "x".repeat(48), SECRETS_KEY: "ab".repeat(32) };
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name !== "string") return undefined;
      names.add(name);
      return values[name];
    },
  });
  loadConfig(env);
  return names;
}

/** The variable names src/config.ts spells out as string literals (all but the templated ones). */
function namesInConfigSource(): string[] {
  return [...read("src/config.ts").matchAll(/"([A-Z][A-Z0-9_]{2,})"/g)].map((match) => match[1]!);
}

type Environment = Record<string, string>;

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Environment | string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string | string[] };
  volumes?: string[];
}

const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
};

function environment(service: string): Environment {
  const raw = compose.services[service]?.environment ?? {};
  if (!Array.isArray(raw)) return Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, String(value)]));
  return Object.fromEntries(raw.map((entry) => [entry.split("=")[0]!, entry.slice(entry.indexOf("=") + 1)]));
}

/** A compose value with `${VAR:-default}` / `${VAR-default}` replaced by the default, as with an empty `.env`. */
function withDefaults(value: string): string {
  return value.replace(/\$\{\w+(?::?-([^}]*))?\}/g, (_whole, fallback: string | undefined) => fallback ?? "");
}

/** Backticked variable names in a markdown section; `FIREHOSE_<SOURCE>_…` becomes a pattern. */
function documentedNames(markdown: string, heading: string): { names: Set<string>; patterns: RegExp[] } {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `${heading} not found`).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf("\n## ", start + heading.length + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  const names = new Set<string>();
  const patterns: RegExp[] = [];
  for (const [, token] of section.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)) {
    if (token!.includes("<")) patterns.push(new RegExp(`^${token!.replace(/<[A-Z]+>/g, "[A-Z0-9]+")}$`));
    else names.add(token!);
  }
  return { names, patterns };
}

describe("compose.yaml", () => {
  const configNames = configVariableNames();

  it("finds the variables src/config.ts reads", () => {
    expect(configNames.size).toBeGreaterThanOrEqual(25);
    for (const name of [
      "DATABASE_URL",
      "ROLE",
      "JWT_SECRET",
      "SECRETS_KEY",
      "METRICS_PORT",
      "FIREHOSE_PODCAST_TOKEN",
    ]) {
      expect(configNames).toContain(name);
    }
    // A name read only on some branch of loadConfig would be missing from the recorded set: every name the source
    // spells out must have been read.
    for (const name of namesInConfigSource()) expect(configNames, `${name} not read by loadConfig`).toContain(name);
  });

  it("runs postgres, api and worker", () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(["postgres", "api", "worker"]));
    const postgres = compose.services.postgres!;
    expect(postgres.image).toMatch(/^postgres:17\b/);
    expect(JSON.stringify(postgres.healthcheck?.test)).toContain("pg_isready");
    const volume = postgres.volumes?.[0]?.split(":")[0];
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(compose.services.api!.build).toBeTruthy();
    expect(compose.services.worker!.build).toBeTruthy();
  });

  it("gives the api ROLE=api and the worker ROLE=worker, with METRICS_PORT", () => {
    expect(environment("api").ROLE).toBe("api");
    expect(environment("worker").ROLE).toBe("worker");
    expect(withDefaults(environment("worker").METRICS_PORT ?? "")).toMatch(/^\d+$/);
  });

  for (const service of ["api", "worker"]) {
    it(`points ${service} at the postgres service, started once healthy`, () => {
      const url = new URL(withDefaults(environment(service).DATABASE_URL ?? ""));
      expect(url.protocol).toMatch(/^postgres(ql)?:$/);
      expect(url.hostname).toBe("postgres");
      const dependsOn = compose.services[service]!.depends_on;
      expect(Array.isArray(dependsOn)).toBe(false);
      expect((dependsOn as Record<string, { condition?: string }>).postgres?.condition).toBe("service_healthy");
    });

    it(`gives ${service} exactly the variables src/config.ts reads`, () => {
      expect(new Set(Object.keys(environment(service)))).toEqual(configNames);
    });
  }

  it("shares one environment between api and worker, with required secrets", () => {
    const api = environment("api");
    const worker = environment("worker");
    for (const name of configNames) if (name !== "ROLE") expect(worker[name], name).toBe(api[name]);
    expect(api.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/);
    expect(api.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
  });

  it("lists only documented variables (README configuration table or docs/operations.md)", () => {
    const readme = documentedNames(read("README.md"), "## Configuration");
    const operations = documentedNames(read("docs/operations.md"), "## Environment variables");
    const names = new Set([...readme.names, ...operations.names]);
    const patterns = [...readme.patterns, ...operations.patterns];
    for (const name of configNames) {
      expect(names.has(name) || patterns.some((pattern) => pattern.test(name)), `${name} is undocumented`).toBe(true);
    }
    // The firehose pattern stands for the sources the docs name.
    for (const name of configNames) {
      const source = /^FIREHOSE_([A-Z0-9]+)_/.exec(name)?.[1];
      if (source) expect(operations.names, `firehose source ${source} is undocumented`).toContain(source);
    }
  });
});

describe("Dockerfile", () => {
  // One instruction per entry, continuation lines joined, comments dropped.
  const instructions = read("Dockerfile")
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const named = (keyword: string) => instructions.filter((line) => line.toUpperCase().startsWith(`${keyword} `));

  it("is multi-stage on Node 20", () => {
    expect(named("FROM").length).toBeGreaterThanOrEqual(2);
    for (const from of named("FROM")) expect(from).toMatch(/^FROM node:20-bookworm-slim\b/);
  });

  it("installs production dependencies only in the runtime stage", () => {
    const lastStage = instructions.slice(instructions.lastIndexOf(named("FROM").at(-1)!));
    expect(lastStage.some((line) => /^RUN .*npm ci .*--omit=dev/.test(line))).toBe(true);
    // tsx runs the TypeScript sources, so it must be a production dependency.
    const packageJson = JSON.parse(read("package.json")) as { dependencies: Record<string, string> };
    expect(Object.keys(packageJson.dependencies)).toContain("tsx");
  });

  it("runs as a non-root user, in production mode, on port 8000", () => {
    const users = named("USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER (root|0)(:|$)/);
    expect(named("ENV").join(" ")).toMatch(/NODE_ENV=production/);
    expect(named("ENV").join(" ")).toMatch(/HOST=0\.0\.0\.0/);
    expect(named("EXPOSE").join(" ")).toMatch(/\b8000\b/);
  });

  it("checks /health", () => {
    expect(named("HEALTHCHECK").join(" ")).toContain("/health");
  });
});

describe(".dockerignore", () => {
  const patterns = read(".dockerignore")
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\/$/, ""))
    .filter((line) => line !== "" && !line.startsWith("#"));

  it("keeps node_modules, local state and git out, and what the image needs in", () => {
    expect(patterns).toEqual(expect.arrayContaining(["node_modules", ".data", ".git"]));
    for (const needed of ["src", "migrations", "generated", "package.json", "package-lock.json", "tsconfig.json"]) {
      expect(patterns).not.toContain(needed);
    }
  });
});
