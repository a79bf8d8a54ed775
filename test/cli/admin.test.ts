import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_CLI_TIMEOUT_MS, runAdminCli, stderrLines } from "../setup/admin-cli.js";
import { runAdminCommand } from "../../src/cli/admin.js";
import { addMember, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { untilCallerSees, waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const admin = (...argv: string[]) => runAdminCommand(argv, app.service.services);

const adminProcess = (argv: string[], env: Record<string, string> = {}) =>
  runAdminCli(argv, { DATABASE_URL: app.config.databaseUrl!, DATA_DIR: app.config.dataDir, ...env });

describe("npm run admin", () => {
  it("grant-admin makes a user a platform admin, who can then reach /admin/*", async () => {
    const member = await createWorkspace(app);
    await app.http.get("/admin/sources/health").set("Authorization", member.bearer).expect(403);
    expect(await admin("grant-admin", member.email.toUpperCase())).toMatchObject({
      email: member.email,
      is_admin: true,
    });
    // The cached caller is dropped by the change's notice (test/auth/consistency.test.ts).
    await untilCallerSees(() => app.http.get("/admin/sources/health").set("Authorization", member.bearer), 200);
    await expect(admin("grant-admin", "nobody@example.com")).rejects.toThrow(/no user/);
  });

  it("set-plan changes the plan, which changes the limits at once", async () => {
    const member = await createWorkspace(app, { plan: "free" });
    await app.http.get(`/v1/workspaces/${member.workspaceId}`).set("Authorization", member.bearer).expect(403);
    expect(await admin("set-plan", member.workspaceId, "growth")).toMatchObject({ plan: "growth" });
    await untilCallerSees(
      () => app.http.get(`/v1/workspaces/${member.workspaceId}`).set("Authorization", member.bearer),
      200,
    );
    await expect(admin("set-plan", member.workspaceId, "platinum")).rejects.toThrow(/plan must be one of/);
    await expect(admin("set-plan", "not-a-uuid", "growth")).rejects.toThrow(/not a workspace id/);
  });

  it("set-plan moves a partner's customer workspaces with it, and refuses to set one of theirs alone", async () => {
    const partner = await createWorkspace(app, { plan: "growth" });
    const child = await app.http
      .post("/v1/workspaces")
      .set("Authorization", partner.bearer)
      .send({ company_name: "Customer", customer_email: "c@customer.example" })
      .expect(201);
    await expect(admin("set-plan", child.body.id, "enterprise")).rejects.toThrow(/its plan follows the partner's/);
    await admin("set-plan", partner.workspaceId, "enterprise");
    const row = await app.service.services.knex("workspaces").where({ id: child.body.id }).first("plan");
    expect(row.plan).toBe("enterprise");
  });

  it("add-member creates the user with an invitation mail, respects seats and is idempotent", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    const added = (await admin("add-member", owner.workspaceId, "New.Person@example.com", "--name", "New Person")) as {
      user_id: string;
      created_user: boolean;
    };
    expect(added).toMatchObject({ email: "new.person@example.com", role: "member", created_user: true });
    const again = await admin("add-member", owner.workspaceId, "new.person@example.com", "--role", "owner");
    expect(again).toMatchObject({ role: "owner", created_user: false });

    const knex = app.service.services.knex;
    const mail = await waitFor(() => knex("email_outbox").where({ to_address: "new.person@example.com" }).first());
    expect(mail.subject).toContain("Test workspace");
    const token = /token=([\w-]+)/.exec(mail.text_body)![1]!;
    await app.http.post("/auth/reset-password").send({ token, password: "my own password" }).expect(200);
    const login = await app.http
      .post("/auth/login")
      .send({ email: "new.person@example.com", password: "my own password" })
      .expect(200);
    expect(login.body.access_token).toBeTruthy();

    // Starter has 3 seats: the owner and the new person hold two.
    await addMember(app, owner.workspaceId);
    await expect(admin("add-member", owner.workspaceId, "fourth@example.com")).rejects.toThrow(/3 seat\(s\)/);
    await expect(admin("add-member", owner.workspaceId, "not-an-email")).rejects.toThrow(/not an email/);
    await expect(admin("add-member", owner.workspaceId, "x@example.com", "--role", "boss")).rejects.toThrow(/--role/);
  });

  it(
    "exits non-zero with a one-line error on bad input",
    async () => {
      const failure = await adminProcess(["set-plan", "nope", "gold"]).catch((e) => e);
      expect(failure.code).toBe(1);
      expect(stderrLines(failure)).toEqual(["not a workspace id: nope"]);
      const member = await createWorkspace(app);
      const success = await adminProcess(["set-plan", member.workspaceId, "enterprise"]);
      expect(JSON.parse(success.stdout)).toMatchObject({ id: member.workspaceId, plan: "enterprise" });
      const unreachable = await adminProcess(["set-plan", member.workspaceId, "growth"], {
        DATABASE_URL: "postgres://127.0.0.1:1/nothing",
      }).catch((e) => e);
      expect(unreachable.code).toBe(1);
      expect(stderrLines(unreachable)).toEqual([expect.stringContaining("ECONNREFUSED")]);
    },
    ADMIN_CLI_TIMEOUT_MS,
  );
});
