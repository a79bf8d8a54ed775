/**
 * `npm run admin -- crm-connect` and `crm-status` (docs/operations.md#admin-cli): validation, upsert, re-activation, no
 * token shown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/admin.js";
import { connectCrm } from "../../src/crm/connections.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { FakeSalesforce } from "../fakes/salesforce.js";
import { admin, connect, newEvent, workspaceWithCompetitor } from "./helpers.js";

let app: TestApp;
let sf: FakeSalesforce;
beforeAll(async () => {
  [app, sf] = await Promise.all([startTestApp(), new FakeSalesforce().start()]);
});
afterAll(async () => {
  await app?.stop();
  await sf?.stop();
});

const SF_ACCOUNT = "0015e00000AbCdEAAZ";
const TOKEN = "00D5e000000AbCd!AQ0AQtoken-that-ends-in-WXYZ";

describe("crm-connect", () => {
  it("stores a connection with the provider's default fields and a high threshold, printing the token's last 4 only", async () => {
    const setup = await workspaceWithCompetitor(app);
    const mapping = { [setup.competitor.id]: { account_ids: [SF_ACCOUNT] } };
    const created = (await admin(
      app,
      "crm-connect",
      setup.owner.workspaceId,
      "--provider",
      "salesforce",
      "--base-url",
      "https://acme.my.salesforce.com/",
      "--token",
      TOKEN,
      "--mapping",
      JSON.stringify(mapping),
    )) as any;
    expect(created).toEqual({
      id: expect.any(String),
      workspace_id: setup.owner.workspaceId,
      provider: "salesforce",
      base_url: "https://acme.my.salesforce.com",
      token_hint: "…WXYZ",
      severity_threshold: "high",
      field_names: {
        last_move: "Competitor_Last_Move__c",
        last_move_date: "Competitor_Last_Move_Date__c",
        last_move_severity: "Competitor_Last_Move_Severity__c",
      },
      mapping,
      status: "active",
      last_error: null,
      errored_at: null,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    expect(JSON.stringify(created)).not.toContain("AQ0AQtoken");

    const hubspot = (await admin(
      app,
      "crm-connect",
      setup.owner.workspaceId,
      "--provider",
      "hubspot",
      "--base-url",
      "https://api.hubapi.com",
      "--token",
      "pat-0000",
    )) as any;
    expect(hubspot).toMatchObject({
      provider: "hubspot",
      mapping: {},
      token_hint: "…",
      field_names: {
        last_move: "competitor_last_move",
        last_move_date: "competitor_last_move_date",
        last_move_severity: "competitor_last_move_severity",
      },
    });
    expect((await admin(app, "crm-status", setup.owner.workspaceId)) as any[]).toHaveLength(2);
  });

  it("running it again updates the connection, keeps what was not given, and re-activates an errored one", async () => {
    const setup = await workspaceWithCompetitor(app);
    const base = [
      "crm-connect",
      setup.owner.workspaceId,
      "--provider",
      "salesforce",
      "--base-url",
      "https://acme.my.salesforce.com",
    ];
    const fields = { last_move: "Rival__c", last_move_date: "Rival_Date__c", last_move_severity: "Rival_Severity__c" };
    const first = (await admin(
      app,
      ...base,
      "--token",
      TOKEN,
      "--severity-threshold",
      "medium",
      "--fields",
      JSON.stringify(fields),
      "--mapping",
      JSON.stringify({ [setup.competitor.id]: { filter: { Industry: "Banking", IsTarget__c: true } } }),
    )) as any;
    await app.service.services
      .knex("crm_connections")
      .where({ id: first.id })
      .update({ status: "errored", last_error: "Salesforce rejected the token (401 …)", errored_at: new Date() });

    const second = (await admin(app, ...base, "--token", "00D5e000000AbCd!new-token-9876")) as any;
    expect(second).toMatchObject({
      id: first.id,
      token_hint: "…9876",
      severity_threshold: "medium",
      field_names: fields,
      mapping: { [setup.competitor.id]: { filter: { Industry: "Banking", IsTarget__c: true } } },
      status: "active",
      last_error: null,
      errored_at: null,
    });
  });

  it("refuses bad input with a one-line error", async () => {
    const setup = await workspaceWithCompetitor(app);
    const other = await workspaceWithCompetitor(app);
    const ws = setup.owner.workspaceId;
    const run = (...extra: string[]) =>
      admin(
        app,
        "crm-connect",
        ws,
        "--provider",
        "salesforce",
        "--base-url",
        "https://x.my.salesforce.com",
        "--token",
        TOKEN,
        ...extra,
      );
    const fieldsWith = (values: Record<string, unknown>) =>
      JSON.stringify({ last_move: "A__c", last_move_date: "B__c", last_move_severity: "C__c", ...values });
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => admin(app, "crm-connect", ws, "--provider", "pipedrive", "--base-url", "https://x.com", "--token", "t"),
        /--provider must be one of salesforce, hubspot, got pipedrive/,
      ],
      [
        () => admin(app, "crm-connect", ws, "--provider", "salesforce", "--token", "t"),
        /^usage: npm run admin -- crm-connect/,
      ],
      [
        () =>
          admin(app, "crm-connect", "nope", "--provider", "salesforce", "--base-url", "https://x.com", "--token", "t"),
        /not a workspace id: nope/,
      ],
      [
        () =>
          admin(
            app,
            "crm-connect",
            ws,
            "--provider",
            "salesforce",
            "--base-url",
            "https://x.com",
            "--token",
            "t",
            "--bogus",
            "1",
          ),
        /Unknown option '--bogus'/,
      ],
      [
        () => admin(app, "crm-connect", ws, "--provider", "salesforce", "--base-url", "ftp://x.com", "--token", "t"),
        /--base-url must be an https:\/\/ URL/,
      ],
      [
        () =>
          admin(
            app,
            "crm-connect",
            ws,
            "--provider",
            "salesforce",
            "--base-url",
            "https://x.com/services/data",
            "--token",
            "t",
          ),
        /origin only, like https:\/\/x.com/,
      ],
      [
        () =>
          admin(app, "crm-connect", ws, "--provider", "salesforce", "--base-url", "https://u:p@x.com", "--token", "t"),
        /must not contain a user name/,
      ],
      [
        () =>
          admin(
            app,
            "crm-connect",
            ws,
            "--provider",
            "salesforce",
            "--base-url",
            "https://x.com",
            "--token",
            "two words",
          ),
        /--token must be printable ASCII without spaces/,
      ],
      [
        () => run("--severity-threshold", "urgent"),
        /--severity-threshold must be one of low, medium, high, critical, got urgent/,
      ],
      [() => run("--fields", "{"), /--fields is not valid JSON/],
      [
        () => run("--fields", JSON.stringify({ last_move: "A__c" })),
        /--fields must have exactly the keys last_move, last_move_date, last_move_severity/,
      ],
      [() => run("--fields", fieldsWith({ extra: "D__c" })), /--fields must have exactly the keys/],
      [
        () => run("--fields", fieldsWith({ last_move: "Amount" })),
        /--fields last_move must not be Amount: it is never written/,
      ],
      [() => run("--fields", fieldsWith({ last_move_date: "CloseDate" })), /must not be CloseDate/],
      [() => run("--fields", fieldsWith({ last_move: "A__c; DROP" })), /must be a field name/],
      [() => run("--fields", fieldsWith({ last_move_severity: "A__c" })), /three different fields/],
      [() => run("--mapping", "not json"), /--mapping is not valid JSON/],
      [
        () => run("--mapping", JSON.stringify({ [other.competitor.id]: { account_ids: [SF_ACCOUNT] } })),
        /which is not a competitor of the workspace/,
      ],
      [
        () => run("--mapping", JSON.stringify({ [setup.competitor.id]: { account_ids: ["42"] } })),
        /is not a 15- or 18-character Salesforce id/,
      ],
      [
        () => run("--mapping", JSON.stringify({ [setup.competitor.id]: { filter: {} } })),
        /filter must be a non-empty object/,
      ],
      [
        () => run("--mapping", JSON.stringify({ [setup.competitor.id]: { filter: { StageName: "Won" } } })),
        /filter field StageName is not allowed/,
      ],
      [
        () => run("--mapping", JSON.stringify({ [setup.competitor.id]: { segment: "x" } })),
        /exactly one of account_ids, filter, view_id/,
      ],
      [
        () =>
          admin(
            app,
            "crm-connect",
            "5b0f8a4e-0000-4000-8000-000000000009",
            "--provider",
            "hubspot",
            "--base-url",
            "https://api.hubapi.com",
            "--token",
            "t",
          ),
        /no workspace 5b0f8a4e/,
      ],
      [() => admin(app, "crm-status", "not-a-uuid"), /not a workspace id: not-a-uuid/],
      [() => admin(app, "crm-status", ws, "extra"), /usage: npm run admin -- crm-status/],
    ];
    for (const [attempt, message] of cases) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, String(message)).toBeInstanceOf(UsageError);
      expect((error as Error).message, String(message)).toMatch(message);
      expect((error as Error).message).not.toContain("\n");
    }
    expect(await app.service.services.knex("crm_connections").where({ workspace_id: ws })).toEqual([]);
  });

  it("refuses the free and starter plans (CRM write-back needs api_access)", async () => {
    for (const plan of ["free", "starter"] as const) {
      const owner = await createWorkspace(app, { plan });
      await createCompetitor(app, owner);
      await expect(
        admin(
          app,
          "crm-connect",
          owner.workspaceId,
          "--provider",
          "hubspot",
          "--base-url",
          "https://api.hubapi.com",
          "--token",
          "t",
        ),
      ).rejects.toThrow(
        `workspace ${owner.workspaceId} is on the ${plan} plan; CRM write-back needs api_access (growth or enterprise)`,
      );
    }
  });

  it("refuses a private base URL unless ALLOW_PRIVATE_TARGETS is set, through the SSRF guard", async () => {
    const setup = await workspaceWithCompetitor(app);
    const input = { workspaceId: setup.owner.workspaceId, provider: "hubspot", token: "pat-na1-0000" };
    const guarded = { knex: app.service.services.knex, config: { ...app.config, allowPrivateTargets: false } };
    await expect(connectCrm(guarded, { ...input, baseUrl: "http://127.0.0.1:9" })).rejects.toThrow(
      "--base-url must be an https:// URL",
    );
    await expect(connectCrm(guarded, { ...input, baseUrl: "https://169.254.169.254" })).rejects.toThrow(
      "--base-url refused: blocked: 169.254.169.254 is a private address",
    );
    await expect(
      connectCrm(
        { ...guarded, resolve: async () => [{ address: "10.0.0.7", family: 4 }] },
        { ...input, baseUrl: "https://crm.internal.example" },
      ),
    ).rejects.toThrow("--base-url refused: blocked: crm.internal.example resolves to a private address");
  });
});

describe("crm-rollup", () => {
  it("posts the day's rollup now, once: a second run of the same day posts nothing", async () => {
    const setup = await workspaceWithCompetitor(app);
    const account = sf.addAccount();
    const connection = await connect(app, setup, "salesforce", sf, {
      [setup.competitor.id]: { account_ids: [account] },
    });
    const day = "2026-02-10";
    await newEvent(app, setup, {
      severity: "high",
      title: "Acme doubled its prices",
      detected_at: new Date(`${day}T12:00:00Z`),
    });
    const tasksFor = () => [...sf.tasks.values()].filter((task) => task.WhatId === account);

    const first = await admin(app, "crm-rollup", setup.owner.workspaceId, "--date", day);
    expect(first).toEqual({
      workspace_id: setup.owner.workspaceId,
      day,
      connections: [{ connection_id: connection.id, provider: "salesforce", outcome: "done" }],
    });
    expect(tasksFor()).toEqual([expect.objectContaining({ Subject: `Competitor activity ${day}`, ActivityDate: day })]);

    const second = (await admin(app, "crm-rollup", setup.owner.workspaceId, "--date", day)) as any;
    expect(second.connections[0].outcome).toBe("skipped");
    expect(tasksFor()).toHaveLength(1);
  });

  it("refuses a malformed date, a workspace without a connection and a bad id with one-line errors", async () => {
    const setup = await workspaceWithCompetitor(app);
    await expect(admin(app, "crm-rollup", setup.owner.workspaceId, "--date", "10/02/2026")).rejects.toThrow(
      "--date must be a day as YYYY-MM-DD, got 10/02/2026",
    );
    await expect(admin(app, "crm-rollup", setup.owner.workspaceId)).rejects.toThrow(
      `workspace ${setup.owner.workspaceId} has no CRM connection`,
    );
    await expect(admin(app, "crm-rollup", "nope")).rejects.toThrow(UsageError);
  });
});
