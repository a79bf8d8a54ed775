/**
 * Credentials at rest (src/lib/secret-box.ts, src/db/sealed-secrets.ts): webhook signing secrets, CRM tokens and Slack
 * webhook URLs are stored sealed with AES-256-GCM, opened only where they are used, and plaintext rows left from before
 * are sealed when a process starts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSlack } from "../../src/alerts/slack.js";
import { connectCrm } from "../../src/crm/connections.js";
import { sealPlaintextSecrets } from "../../src/db/sealed-secrets.js";
import { isSealed, SecretBox, secretBoxOf } from "../../src/lib/secret-box.js";
import { upsertSubscription } from "../../src/webhooks/subscriptions.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

describe("SecretBox", () => {
  const box = new SecretBox(randomBytes(32));

  it("round-trips, with a fresh IV per value, and never stores the plaintext", () => {
    const first = box.seal("whsec_c2VjcmV0");
    const second = box.seal("whsec_c2VjcmV0");
    expect(first).not.toBe(second);
    expect(first).not.toContain("c2VjcmV0");
    expect(isSealed(first)).toBe(true);
    expect(box.open(first)).toBe("whsec_c2VjcmV0");
  });

  it("refuses a value altered or sealed under another key", () => {
    const sealed = box.seal("pat-na1-token");
    const flipped = sealed.slice(0, -2) + (sealed.endsWith("A") ? "B" : "A") + sealed.slice(-1);
    expect(() => box.open(flipped)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});

describe("stored credentials", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });
  const knex = () => app.service.services.knex;

  it("stores webhook secrets, CRM tokens and Slack URLs sealed, and shows the operator the plaintext", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    await createCompetitor(app, owner);
    const subscription = await upsertSubscription(
      { knex: knex(), config: app.config },
      { workspaceId: owner.workspaceId, url: "https://93.184.215.14/hook", environment: "production" },
    );
    expect(subscription.signing_secret).toMatch(/^whsec_/);
    const connection = await connectCrm(
      { knex: knex(), config: app.config },
      {
        workspaceId: owner.workspaceId,
        provider: "hubspot",
        baseUrl: "https://93.184.215.14",
        token: "pat-na1-secret-1234",
      },
    );
    expect(connection.token_hint).toBe("…1234");
    const hook = "https://hooks.slack.com/services/T000/B000/SECRETXYZ";
    await connectSlack(knex(), app.config, owner.workspaceId, hook);

    const stored = {
      secret: (await knex()("webhook_subscriptions").where({ id: subscription.id }).first()).signing_secret,
      token: (await knex()("crm_connections").where({ workspace_id: owner.workspaceId }).first()).token,
      slack: (await knex()("workspaces").where({ id: owner.workspaceId }).first()).slack_webhook_url,
    };
    for (const value of Object.values(stored)) expect(isSealed(value)).toBe(true);
    const box = secretBoxOf(app.config);
    expect(box.open(stored.secret)).toBe(subscription.signing_secret);
    expect(box.open(stored.token)).toBe("pat-na1-secret-1234");
    expect(box.open(stored.slack)).toBe(hook);
    // Nothing of the plaintext in the table's text.
    const dump = JSON.stringify(await knex()("crm_connections").where({ workspace_id: owner.workspaceId }));
    expect(dump).not.toContain("pat-na1-secret");
  });

  it("seals plaintext rows written before sealing existed, once", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    await knex()("workspaces")
      .where({ id: owner.workspaceId })
      .update({ slack_webhook_url: "https://hooks.example/old" });
    const box = secretBoxOf(app.config);
    expect(await sealPlaintextSecrets(knex(), box)).toBeGreaterThanOrEqual(1);
    const sealed = (await knex()("workspaces").where({ id: owner.workspaceId }).first()).slack_webhook_url;
    expect(isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe("https://hooks.example/old");
    expect(await sealPlaintextSecrets(knex(), box)).toBe(0);
  });
});
