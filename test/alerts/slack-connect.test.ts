import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_CLI_TIMEOUT_MS, runAdminCli, stderrLines } from "../setup/admin-cli.js";
import { isSealed, sealedPlace, secretBoxOf } from "../../src/lib/secret-box.js";
import { validateSlackWebhookUrl } from "../../src/alerts/slack.js";
import { runAdminCommand } from "../../src/cli/admin.js";
import type { ResolvedAddress } from "../../src/lib/ssrf-guard.js";
import { createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

const HOOK = "https://hooks.slack.com/services/T0RIVAL01/B0SCOPE01/abcdefghijklmnopqrstuvwx";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const admin = (...argv: string[]) => runAdminCommand(argv, app.service.services);
/** The stored URL: sealed at rest (src/lib/secret-box.ts), so the column never holds it in plaintext. */
const stored = async (workspaceId: string) => {
  const { slack_webhook_url: sealed } = await app.service.services
    .knex("workspaces")
    .where({ id: workspaceId })
    .first("slack_webhook_url");
  if (sealed === null) return null;
  expect(isSealed(sealed)).toBe(true);
  return secretBoxOf(app.config).open(sealed, sealedPlace.slackWebhookUrl(workspaceId));
};

describe("npm run admin -- slack-connect", () => {
  it("stores the workspace's incoming-webhook URL and prints it", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    expect(await admin("slack-connect", owner.workspaceId, "--webhook-url", HOOK)).toEqual({
      workspace_id: owner.workspaceId,
      slack_webhook_url: HOOK,
    });
    expect(await stored(owner.workspaceId)).toBe(HOOK);

    // Connecting again replaces it.
    const next = `${HOOK}yz`;
    await admin("slack-connect", owner.workspaceId, "--webhook-url", next);
    expect(await stored(owner.workspaceId)).toBe(next);
  });

  it("lets rules use the slack channel once connected", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const rule = { frequency: "daily", delivery_channels: ["slack"] };
    await app.http.post("/alert-rules").set("Authorization", owner.bearer).send(rule).expect(403);
    await admin("slack-connect", owner.workspaceId, "--webhook-url", HOOK);
    await app.http.post("/alert-rules").set("Authorization", owner.bearer).send(rule).expect(201);
  });

  it("refuses a plan without the slack flag", async () => {
    const owner = await createWorkspace(app, { plan: "free" });
    await expect(admin("slack-connect", owner.workspaceId, "--webhook-url", HOOK)).rejects.toThrow(
      "the Free plan does not include Slack alerts (Starter, Growth, Enterprise do)",
    );
    expect(await stored(owner.workspaceId)).toBeNull();
  });

  it("refuses bad input with a one-line reason", async () => {
    const owner = await createWorkspace(app, { plan: "growth" });
    const id = owner.workspaceId;
    await expect(admin("slack-connect", id)).rejects.toThrow(
      "usage: npm run admin -- slack-connect <workspace_id> --webhook-url U",
    );
    await expect(admin("slack-connect", "--webhook-url", HOOK)).rejects.toThrow(/^usage:/);
    await expect(admin("slack-connect", "nope", "--webhook-url", HOOK)).rejects.toThrow("not a workspace id: nope");
    await expect(admin("slack-connect", "00000000-0000-4000-8000-000000000000", "--webhook-url", HOOK)).rejects.toThrow(
      "no workspace 00000000-0000-4000-8000-000000000000",
    );
    await expect(admin("slack-connect", id, "--webhook-url", "hooks.slack.com/x")).rejects.toThrow(
      "invalid --webhook-url: not a URL: hooks.slack.com/x",
    );
    await expect(admin("slack-connect", id, "--webhook-url", "ftp://hooks.slack.com/x")).rejects.toThrow(
      "invalid --webhook-url: it must be an https:// URL",
    );
    await expect(admin("slack-connect", id, "--webhook-url", "https://u:p@hooks.slack.com/x")).rejects.toThrow(
      "invalid --webhook-url: it must not contain a user name or password",
    );
    expect(await stored(id)).toBeNull();
  });

  it(
    "exits non-zero with one line when the SSRF guard refuses the URL",
    async () => {
      const owner = await createWorkspace(app, { plan: "growth" });
      // ALLOW_PRIVATE_TARGETS off, as in production: http and private addresses are refused.
      const env = { DATABASE_URL: app.config.databaseUrl!, DATA_DIR: app.config.dataDir, ALLOW_PRIVATE_TARGETS: "" };
      const cli = (url: string) =>
        runAdminCli(["slack-connect", owner.workspaceId, "--webhook-url", url], env).catch((error) => error);
      const plain = await cli("http://hooks.slack.com/services/T/B/x");
      expect(plain.code).toBe(1);
      expect(stderrLines(plain)).toEqual(["invalid --webhook-url: it must be an https:// URL"]);
      const loopback = await cli("https://127.0.0.1:8443/services/T/B/x");
      expect(loopback.code).toBe(1);
      expect(stderrLines(loopback)).toEqual(["invalid --webhook-url: blocked: 127.0.0.1 is a private address"]);
      expect(await stored(owner.workspaceId)).toBeNull();
    },
    ADMIN_CLI_TIMEOUT_MS,
  );
});

describe("validateSlackWebhookUrl", () => {
  const resolvesTo =
    (...addresses: string[]) =>
    async (): Promise<ResolvedAddress[]> =>
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const guarded = (url: string, resolve = resolvesTo("3.3.3.3")) =>
    validateSlackWebhookUrl(url, { allowPrivateTargets: false, resolve });

  it("accepts an https URL whose host resolves to public addresses", async () => {
    expect(await guarded(HOOK)).toBe(HOOK);
  });

  it("refuses private, loopback and metadata addresses, literal or resolved", async () => {
    await expect(guarded("https://10.0.0.8/hook")).rejects.toThrow("blocked: 10.0.0.8 is a private address");
    await expect(guarded("https://[::1]/hook")).rejects.toThrow("blocked: ::1 is a private address");
    await expect(guarded("https://169.254.169.254/hook")).rejects.toThrow("blocked: 169.254.169.254");
    await expect(guarded(HOOK, resolvesTo("3.3.3.3", "192.168.1.4"))).rejects.toThrow(
      "invalid --webhook-url: blocked: hooks.slack.com resolves to a private address",
    );
  });

  it("refuses a host that does not resolve", async () => {
    const nowhere = async (): Promise<ResolvedAddress[]> => {
      throw new Error("ENOTFOUND");
    };
    await expect(guarded(HOOK, nowhere)).rejects.toThrow("invalid --webhook-url: could not resolve hooks.slack.com");
  });

  it("allows http and private addresses only with ALLOW_PRIVATE_TARGETS=1", async () => {
    await expect(guarded("http://hooks.slack.com/x")).rejects.toThrow("it must be an https:// URL");
    const local = "http://127.0.0.1:4000/services/T/B/x";
    expect(await validateSlackWebhookUrl(local, { allowPrivateTargets: true })).toBe(local);
  });

  it("refuses an overlong URL", async () => {
    await expect(guarded(`${HOOK}${"a".repeat(2048)}`)).rejects.toThrow("longer than 2048 characters");
  });
});
