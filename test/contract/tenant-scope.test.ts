/**
 * Tenancy in one place (docs/architecture.md#tenancy-in-the-query): the list of tenant tables matches the schema, the
 * scope filters what it builds, and the check behind `npm run lint` (scripts/lint-tenancy.ts) both catches each
 * unscoped shape and finds none in src/.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnscopedTenantAccess, lintTenancy } from "../../scripts/lint-tenancy.js";
import { Competitor } from "../../src/competitors/models.js";
import { TENANT_TABLES, WorkspaceScope } from "../../src/db/tenancy.js";
import { createCompetitor, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

const check = (code: string) =>
  findUnscopedTenantAccess("src/example.ts", code, new Set(["Competitor"])).map((v) => v.line);

describe("tenant tables", () => {
  it("are exactly the migrated tables with a workspace_id column", async () => {
    const { rows } = await app.service.services.knex.raw(
      `SELECT table_name FROM information_schema.columns
       WHERE column_name = 'workspace_id' AND table_schema = 'public' ORDER BY table_name`,
    );
    expect(rows.map((r: { table_name: string }) => r.table_name)).toEqual([...TENANT_TABLES].sort());
  });
});

describe("WorkspaceScope", () => {
  it("reads, writes and counts only its own workspace's rows", async () => {
    const knex = app.service.services.knex;
    const [a, b] = await Promise.all([createWorkspace(app), createWorkspace(app)]);
    const ours = await createCompetitor(app, a, { name: "Ours", domain: "ours.example" });
    await createCompetitor(app, b, { name: "Theirs", domain: "theirs.example" });
    const scope = new WorkspaceScope(knex, a.workspaceId);

    expect((await scope.from("competitors").select("id")).map((r: { id: string }) => r.id)).toEqual([ours.id]);
    expect((await scope.from("competitors as c").select("c.id")).map((r: { id: string }) => r.id)).toEqual([ours.id]);
    expect((await scope.query(Competitor)).map((c) => c.id)).toEqual([ours.id]);
    const { rows } = await scope.raw<{ n: number }>(
      "SELECT count(*)::int AS n FROM competitors WHERE workspace_id = :workspace_id AND name <> :name",
      { name: "nobody" },
    );
    expect(rows[0]!.n).toBe(1);

    // An update through the scope cannot reach the other workspace's rows, whatever its own filter says.
    expect(await scope.from("competitors").where("name", "Theirs").update({ description: "x" })).toBe(0);
    // A row inserted through the scope belongs to it, even if it names another workspace.
    const [inserted] = await scope
      .insert("competitors", { name: "Inserted", domain: "inserted.example", workspace_id: b.workspaceId })
      .returning(["workspace_id"]);
    expect(inserted.workspace_id).toBe(a.workspaceId);
  });

  it("refuses raw SQL that does not filter by :workspace_id", async () => {
    const scope = new WorkspaceScope(app.service.services.knex, "00000000-0000-0000-0000-000000000000");
    expect(() => scope.raw("SELECT count(*) FROM competitors")).toThrow(/:workspace_id/);
  });
});

describe("the tenancy check (npm run lint)", () => {
  it("flags each unscoped shape", () => {
    expect(check(`knex("events").where({ id });`)).toEqual([1]);
    expect(check(`trx("sources as s").first();`)).toEqual([1]);
    expect(check(`db.select("*").from("digests");`)).toEqual([1]);
    expect(check(`knex.raw("SELECT * FROM events WHERE id = ?", [id]);`)).toEqual([1]);
    expect(check(`const sql = \`UPDATE sources SET is_active = false\`;\nscope.raw(sql);`)).toEqual([1]);
    expect(check(`Competitor.query(knex).findById(id);`)).toEqual([1]);
    expect(check(`scope.db("alert_rules").delete();`)).toEqual([1]);
    expect(check(`scope.from("events").where({ a }).orWhere({ b });`)).toEqual([1]);
    expect(check(`this.workspace.scope.query(Competitor).where("x", 1).orWhereNull("y");`)).toEqual([1]);
  });

  it("allows the scoped shapes, joins, cross-workspace access by name and prose", () => {
    expect(
      check(`
        scope.from("events as e").join("competitors as c", "c.id", "e.competitor_id");
        this.workspace.scope.query(Competitor).findById(id);
        scope.raw("SELECT * FROM events WHERE workspace_id = :workspace_id");
        scope.insert("competitors", row);
        acrossWorkspaces(knex).from("sources").where({ id });
        acrossWorkspaces(trx).raw("UPDATE sources SET fetch_job_id = null WHERE id = ?", [id]);
        scope.on(trx).from("digests");
        scope.from("events").where((q) => q.where({ a }).orWhere({ b }));
        acrossWorkspaces(knex).from("sources").where({ a }).orWhere({ b });
        const loc = ["body", "sources", 0, "url"];
        const text = "Unsubscribe from digests";
        knex("evidence").where({ event_id });
      `),
    ).toEqual([]);
  });

  it("finds no unscoped tenant access in src/", () => {
    const violations = lintTenancy(path.resolve(import.meta.dirname, "../.."));
    expect(violations.map((v) => `${v.file}:${v.line} ${v.why}`)).toEqual([]);
  });
});
