import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as migration from "../../migrations/20261122000300_alert_rules.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

// Its own file: the test drops and recreates the table, which no other test of the run may see.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

describe("the alert_rules migration", () => {
  it("gives every existing workspace the default rule", async () => {
    const knex = app.service.services.knex;
    await migration.down(knex);
    const workspaces = await knex("workspaces")
      .insert([{ name: "Made before alert rules" }, { name: "Also made before", plan: "growth" }])
      .returning("id");
    await migration.up(knex);
    const rules = await knex("alert_rules")
      .whereIn(
        "workspace_id",
        workspaces.map((w: { id: string }) => w.id),
      )
      .select("workspace_id", "name", "confidence_threshold", "delivery_channels_json", "event_types_json")
      .select("frequency", "severity_threshold", "is_active", "is_default", "competitor_id");
    expect(rules).toHaveLength(2);
    for (const rule of rules) {
      expect(rule).toEqual({
        workspace_id: expect.any(String),
        competitor_id: null,
        name: "Medium+ changes — every competitor",
        confidence_threshold: 0.5,
        delivery_channels_json: ["email"],
        event_types_json: null,
        frequency: "daily",
        severity_threshold: "medium",
        is_active: true,
        is_default: true,
      });
    }
  });

  it("refuses rows outside the enumerations and a second default rule per workspace", async () => {
    const knex = app.service.services.knex;
    const [workspace] = await knex("workspaces").insert({ name: "Checks" }).returning("id");
    const row = (fields: Record<string, unknown>) => ({
      workspace_id: workspace.id,
      name: "x",
      confidence_threshold: 0.5,
      delivery_channels_json: JSON.stringify(["email"]),
      frequency: "daily",
      severity_threshold: "medium",
      ...fields,
    });
    await expect(knex("alert_rules").insert(row({ frequency: "hourly" }))).rejects.toThrow(/frequency_check/);
    await expect(knex("alert_rules").insert(row({ severity_threshold: "urgent" }))).rejects.toThrow(/severity_check/);
    await expect(knex("alert_rules").insert(row({ confidence_threshold: 1.5 }))).rejects.toThrow(/confidence_check/);
    await expect(knex("alert_rules").insert(row({ delivery_channels_json: '"email"' }))).rejects.toThrow(
      /channels_check/,
    );
    await expect(knex("alert_rules").insert(row({ delivery_channels_json: '["sms"]' }))).rejects.toThrow(
      /channels_check/,
    );
    await expect(knex("alert_rules").insert(row({ event_types_json: "[]" }))).rejects.toThrow(/event_types_check/);
    await knex("alert_rules").insert(row({ is_default: true }));
    await expect(knex("alert_rules").insert(row({ is_default: true }))).rejects.toThrow(/one_default/);
  });
});
