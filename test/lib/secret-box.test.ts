/**
 * Credentials at rest (src/lib/secret-box.ts, src/db/sealed-secrets.ts): webhook signing secrets, CRM tokens and Slack
 * webhook URLs are stored sealed with AES-256-GCM, opened only where they are used, and plaintext rows left from before
 * are sealed when a process starts.
 */
import { createCipheriv, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectSlack } from "../../src/alerts/slack.js";
import { connectCrm } from "../../src/crm/connections.js";
import { sealPlaintextSecrets } from "../../src/db/sealed-secrets.js";
import { isSealed, needsResealing, SecretBox, secretBoxOf, sealedPlace } from "../../src/lib/secret-box.js";
import { upsertSubscription } from "../../src/webhooks/subscriptions.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

/** A value as the first sealing stored it (`sealed:v1:`, AES-256-GCM without additional data). */
function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `sealed:v1:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
}

describe("SecretBox", () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const here = sealedPlace.crmToken("0b6c3c3e-4f3a-4d0c-9a53-0d3c1d2b9e01");

  it("round-trips, with a fresh IV per value, and never stores the plaintext", () => {
    const first = box.seal("whsec_c2VjcmV0", here);
    const second = box.seal("whsec_c2VjcmV0", here);
    expect(first).not.toBe(second);
    expect(first).not.toContain("c2VjcmV0");
    expect(isSealed(first)).toBe(true);
    expect(box.open(first, here)).toBe("whsec_c2VjcmV0");
  });

  it("refuses a value altered or sealed under another key", () => {
    const sealed = box.seal("pat-na1-token", here);
    // A character of the body changed for another (the one it replaces is checked, so the value always differs; the
    // last character can hold only padding bits, so it is left alone).
    const at = sealed.length - 10;
    const flipped = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
    expect(flipped).not.toBe(sealed);
    expect(() => box.open(flipped, here)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, here)).toThrow();
  });

  it("binds a value to its row and column: moved to another row, or read as another column, it does not open", () => {
    const sealed = box.seal(
      "https://hooks.slack.com/services/T1/B1/secret",
      sealedPlace.slackWebhookUrl("a-workspace"),
    );
    expect(box.open(sealed, sealedPlace.slackWebhookUrl("a-workspace"))).toBe(
      "https://hooks.slack.com/services/T1/B1/secret",
    );
    expect(() => box.open(sealed, sealedPlace.slackWebhookUrl("another-workspace"))).toThrow();
    expect(() => box.open(sealed, { table: "workspaces", column: "name", id: "a-workspace" })).toThrow();
  });

  it("still opens values sealed before they were bound (v1), and plaintext, which start-up re-seals", () => {
    const legacy = legacySeal(key, "pat-na1-old");
    expect(isSealed(legacy)).toBe(false);
    expect(needsResealing(legacy)).toBe(true);
    expect(box.open(legacy, here)).toBe("pat-na1-old");
    expect(box.open("plain-old", here)).toBe("plain-old");
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
    const connectionId = (await knex()("crm_connections").where({ workspace_id: owner.workspaceId }).first()).id;
    expect(box.open(stored.secret, sealedPlace.webhookSigningSecret(subscription.id))).toBe(
      subscription.signing_secret,
    );
    expect(box.open(stored.token, sealedPlace.crmToken(connectionId))).toBe("pat-na1-secret-1234");
    expect(box.open(stored.slack, sealedPlace.slackWebhookUrl(owner.workspaceId))).toBe(hook);
    // Nothing of the plaintext in the table's text.
    const dump = JSON.stringify(await knex()("crm_connections").where({ workspace_id: owner.workspaceId }));
    expect(dump).not.toContain("pat-na1-secret");
  });

  it("seals plaintext rows and re-seals unbound (v1) ones, each bound to its row, once", async () => {
    const plain = await createWorkspace(app, { plan: "growth" });
    const legacy = await createWorkspace(app, { plan: "growth" });
    await knex()("workspaces")
      .where({ id: plain.workspaceId })
      .update({ slack_webhook_url: "https://hooks.example/old" });
    await knex()("workspaces")
      .where({ id: legacy.workspaceId })
      .update({ slack_webhook_url: legacySeal(app.config.secretsKey, "https://hooks.example/v1") });
    const box = secretBoxOf(app.config);
    expect(await sealPlaintextSecrets(knex(), box)).toBeGreaterThanOrEqual(2);
    for (const [member, url] of [
      [plain, "https://hooks.example/old"],
      [legacy, "https://hooks.example/v1"],
    ] as const) {
      const sealed = (await knex()("workspaces").where({ id: member.workspaceId }).first()).slack_webhook_url;
      expect(isSealed(sealed)).toBe(true);
      expect(box.open(sealed, sealedPlace.slackWebhookUrl(member.workspaceId))).toBe(url);
      expect(() => box.open(sealed, sealedPlace.slackWebhookUrl(plain.userId))).toThrow();
    }
    expect(await sealPlaintextSecrets(knex(), box)).toBe(0);
  });

  it("does not hand one workspace's Slack webhook to another whose row it was copied into", async () => {
    const victim = await createWorkspace(app, { plan: "growth" });
    const thief = await createWorkspace(app, { plan: "growth" });
    await connectSlack(knex(), app.config, victim.workspaceId, "https://hooks.slack.com/services/T9/B9/victim");
    const { slack_webhook_url: sealed } = await knex()("workspaces").where({ id: victim.workspaceId }).first();
    await knex()("workspaces").where({ id: thief.workspaceId }).update({ slack_webhook_url: sealed });
    const box = secretBoxOf(app.config);
    expect(() => box.open(sealed, sealedPlace.slackWebhookUrl(thief.workspaceId))).toThrow();
  });
});
