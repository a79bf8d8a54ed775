/**
 * `webhook-add` and `webhook-promote` (docs/operations.md#admin-cli): the vendor's manual onboarding of webhook
 * subscriptions.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_CLI_TIMEOUT_MS, runAdminCli, stderrLines } from "../setup/admin-cli.js";
import { runAdminCommand } from "../../src/cli/admin.js";
import type { WebhookSubscription } from "../../src/webhooks/subscriptions.js";
import { createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const admin = (...argv: string[]) => runAdminCommand(argv, app.service.services);
const add = async (...argv: string[]) => (await admin("webhook-add", ...argv)) as WebhookSubscription;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe("webhook-add", () => {
  it("creates the environment's subscription and prints it with its signing secret and default filters", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const created = await add(
      owner.workspaceId,
      "--url",
      "https://hooks.example.com/rivalscope",
      "--environment",
      "staging",
    );
    expect(created).toEqual({
      id: expect.any(String),
      workspace_id: owner.workspaceId,
      environment: "staging",
      url: "https://hooks.example.com/rivalscope",
      signing_secret: expect.stringMatching(SECRET),
      min_severity: "low",
      event_types: null,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    // What the CLI prints: JSON with the secret in it.
    expect(JSON.parse(JSON.stringify(created)).signing_secret).toBe(created.signing_secret);
  });

  it("updates the same environment's subscription on a second call, keeping its secret unless --rotate-secret", async () => {
    const owner = await createWorkspace(app, { plan: "enterprise" });
    const first = await add(owner.workspaceId, "--url", "https://a.example.com/hook", "--environment", "production");
    const updated = await add(
      owner.workspaceId,
      "--url",
      "https://b.example.com/hook",
      "--environment",
      "production",
      "--min-severity",
      "high",
      "--event-types",
      "pricing_change, hiring_change,pricing_change",
    );
    expect(updated).toMatchObject({
      id: first.id,
      url: "https://b.example.com/hook",
      signing_secret: first.signing_secret,
      min_severity: "high",
      event_types: ["pricing_change", "hiring_change"],
    });
    expect(updated.updated_at.getTime()).toBeGreaterThanOrEqual(first.updated_at.getTime());

    // Flags left out keep their values; `--event-types all` goes back to every type.
    const urlOnly = await add(owner.workspaceId, "--url", "https://c.example.com/hook", "--environment", "production");
    expect(urlOnly).toMatchObject({ min_severity: "high", event_types: ["pricing_change", "hiring_change"] });
    const allTypes = await add(
      owner.workspaceId,
      "--url",
      "https://c.example.com/hook",
      "--environment",
      "production",
      "--event-types",
      "all",
    );
    expect(allTypes).toMatchObject({ id: first.id, event_types: null, signing_secret: first.signing_secret });

    const rotated = await add(
      owner.workspaceId,
      "--url",
      "https://c.example.com/hook",
      "--environment",
      "production",
      "--rotate-secret",
    );
    expect(rotated.id).toBe(first.id);
    expect(rotated.signing_secret).toMatch(SECRET);
    expect(rotated.signing_secret).not.toBe(first.signing_secret);

    const rows = await app.service.services.knex("webhook_subscriptions").where({ workspace_id: owner.workspaceId });
    expect(rows).toHaveLength(1);
  });

  it("refuses a workspace whose plan has no api_access", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    await expect(
      add(owner.workspaceId, "--url", "https://hooks.example.com/x", "--environment", "production"),
    ).rejects.toThrow(
      `workspace ${owner.workspaceId} is on the starter plan; webhooks need api_access (growth or enterprise)`,
    );
  });

  it("refuses bad input with a one-line reason", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const id = owner.workspaceId;
    const url = "https://hooks.example.com/x";
    const cases: [string[], string][] = [
      [[id, "--url", url, "--environment", "dev"], "--environment must be one of staging, production, got dev"],
      [
        [id, "--url", "ftp://hooks.example.com/x", "--environment", "staging"],
        "--url must be an http(s) URL, got ftp:",
      ],
      [[id, "--url", "not a url", "--environment", "staging"], "--url is not a URL: not a url"],
      [
        [id, "--url", "https://user:pw@hooks.example.com/", "--environment", "staging"],
        "--url must not contain credentials",
      ],
      [
        [id, "--url", url, "--environment", "staging", "--min-severity", "urgent"],
        "--min-severity must be one of low, medium, high, critical, got urgent",
      ],
      [
        [id, "--url", url, "--environment", "staging", "--event-types", "pricing_change,funding"],
        "--event-types must be among pricing_change, product_change, hiring_change, narrative_change, source_broken, source_recovered (or all), got funding",
      ],
      [
        [id, "--url", url, "--environment", "staging", "--event-types", " , "],
        "--event-types needs at least one event type, or all",
      ],
      [["nope", "--url", url, "--environment", "staging"], "not a workspace id: nope"],
      [[randomUUID(), "--url", url, "--environment", "staging"], "no workspace"],
      [[id, "--environment", "staging"], "usage: npm run admin -- webhook-add"],
      [[id, "--url", url, "--environment", "staging", "--secret", "x"], "Unknown option '--secret'"],
    ];
    for (const [argv, message] of cases) {
      const error = await add(...argv).catch((e: Error) => e);
      expect(error, argv.join(" ")).toBeInstanceOf(Error);
      expect((error as Error).message, argv.join(" ")).toContain(message);
      expect((error as Error).message, argv.join(" ")).not.toContain("\n");
    }
    expect(await app.service.services.knex("webhook_subscriptions").where({ workspace_id: id })).toEqual([]);
  });

  it(
    "exits non-zero with a one-line error when run as a command",
    async () => {
      const owner = await createWorkspace(app, { plan: "free" });
      const env = { DATABASE_URL: app.config.databaseUrl!, DATA_DIR: app.config.dataDir };
      const argv = ["webhook-add", owner.workspaceId, "--url", "https://h.example.com/", "--environment", "production"];
      const failure = await runAdminCli(argv, env).catch((e) => e);
      expect(failure.code).toBe(1);
      expect(stderrLines(failure)).toEqual([
        `workspace ${owner.workspaceId} is on the free plan; webhooks need api_access (growth or enterprise)`,
      ]);
    },
    ADMIN_CLI_TIMEOUT_MS,
  );
});

describe("webhook-promote", () => {
  it("moves a staging subscription to production with its secret, replacing the production one", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const production = await add(
      owner.workspaceId,
      "--url",
      "https://old.example.com/hook",
      "--environment",
      "production",
    );
    const staging = await add(
      owner.workspaceId,
      "--url",
      "https://new.example.com/hook",
      "--environment",
      "staging",
      "--min-severity",
      "medium",
    );
    const promoted = await admin("webhook-promote", staging.id);
    expect(promoted).toMatchObject({
      id: staging.id,
      environment: "production",
      url: "https://new.example.com/hook",
      signing_secret: staging.signing_secret,
      min_severity: "medium",
      replaced_subscription_id: production.id,
    });
    const rows = await app.service.services
      .knex("webhook_subscriptions")
      .where({ workspace_id: owner.workspaceId })
      .select("id", "environment");
    expect(rows).toEqual([{ id: staging.id, environment: "production" }]);

    // Staging is free again for the next integration; promoting it with no production subscription replaces nothing.
    const next = await add(owner.workspaceId, "--url", "https://next.example.com/hook", "--environment", "staging");
    expect(next.id).not.toBe(staging.id);
    expect(await admin("webhook-promote", next.id)).toMatchObject({
      id: next.id,
      replaced_subscription_id: staging.id,
    });
  });

  it("promotes a staging subscription when there is no production one", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const staging = await add(owner.workspaceId, "--url", "https://s.example.com/hook", "--environment", "staging");
    expect(await admin("webhook-promote", staging.id)).toMatchObject({
      id: staging.id,
      environment: "production",
      replaced_subscription_id: null,
    });
  });

  it("refuses a production subscription, an unknown id and a malformed one", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const production = await add(
      owner.workspaceId,
      "--url",
      "https://p.example.com/hook",
      "--environment",
      "production",
    );
    await expect(admin("webhook-promote", production.id)).rejects.toThrow(
      `webhook subscription ${production.id} is already in production`,
    );
    const unknown = randomUUID();
    await expect(admin("webhook-promote", unknown)).rejects.toThrow(`no webhook subscription ${unknown}`);
    await expect(admin("webhook-promote", "nope")).rejects.toThrow("not a subscription id: nope");
    await expect(admin("webhook-promote")).rejects.toThrow("usage: npm run admin -- webhook-promote <subscription_id>");
  });
});
