/**
 * The Slack URL of `subscribePartnerAlerts` passes the SSRF guard like every outbound target
 * (docs/product-rules.md#partner-api, src/alerts/slack.ts): with ALLOW_PRIVATE_TARGETS off, as in production, http
 * and private or loopback addresses answer 422 and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTNER_RULE_NAME } from "../../src/alert-rules/name.js";
import { createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let partner: TestMember;
beforeAll(async () => {
  app = await startTestApp({ ALLOW_PRIVATE_TARGETS: "" });
  partner = await createWorkspace(app, { plan: "growth" });
});
afterAll(async () => app?.stop());

describe("subscribePartnerAlerts with private targets refused", () => {
  it.each([
    ["http://hooks.slack.com/services/T0/B0/x", "it must be an https:// URL"],
    ["https://127.0.0.1/services/T0/B0/x", "blocked: 127.0.0.1 is a private address"],
    ["https://10.20.30.40/services/T0/B0/x", "blocked: 10.20.30.40 is a private address"],
    ["https://[::1]/services/T0/B0/x", "blocked: ::1 is a private address"],
    ["https://user:pw@hooks.slack.com/services/T0/B0/x", "it must not contain a user name or password"],
  ])("answers 422 for %s", async (url, msg) => {
    const res = await app.http
      .post(`/v1/workspaces/${partner.workspaceId}/alerts/subscribe`)
      .set("Authorization", partner.bearer)
      .send({ workspace_id: partner.workspaceId, slack_webhook_url: url })
      .expect(422);
    expect(res.body.detail).toEqual([{ loc: ["body", "slack_webhook_url"], msg, type: "value_error" }]);
    const knex = app.service.services.knex;
    expect(await knex("alert_rules").where({ workspace_id: partner.workspaceId, name: PARTNER_RULE_NAME })).toEqual([]);
    expect((await knex("workspaces").where({ id: partner.workspaceId }).first()).slack_webhook_url).toBeNull();
  });
});
