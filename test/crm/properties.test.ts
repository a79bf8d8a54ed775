/** The allowlist guard and the query builders, without a database or a network. */
import { describe, expect, it } from "vitest";
import { parseFieldNames } from "../../src/crm/connections.js";
import { companyFilterGroups } from "../../src/crm/hubspot.js";
import { parseMapping } from "../../src/crm/mapping.js";
import {
  assertAllowed,
  buildWriteBody,
  DEFAULT_FIELD_NAMES,
  ForbiddenPropertyError,
  type WriteRequest,
} from "../../src/crm/properties.js";
import { accountFilterSoql, openOpportunitiesSoql, soqlLiteral } from "../../src/crm/salesforce.js";
import { parseSoql } from "../fakes/salesforce.js";

const event = { title: "Acme raised Pro", severity: "high", detected_at: new Date("2026-11-20T23:59:59Z") };
const lastMove = (fields = DEFAULT_FIELD_NAMES.salesforce): WriteRequest => ({ kind: "last_move", fields, event });
const note: WriteRequest = {
  kind: "note",
  recordId: "006000000000001AAA",
  title: "T",
  text: "x",
  timestamp: new Date(0),
};

describe("the write allowlist", () => {
  it("refuses to build a PATCH whose configured field is a protected one, whatever its case", () => {
    for (const name of ["Amount", "StageName", "OwnerId", "CloseDate", "AMOUNT"]) {
      const fields = { ...DEFAULT_FIELD_NAMES.salesforce, last_move: name };
      expect(() => buildWriteBody("salesforce", lastMove(fields))).toThrow(ForbiddenPropertyError);
    }
    for (const name of ["dealstage", "hubspot_owner_id", "amount", "closedate"]) {
      const fields = { ...DEFAULT_FIELD_NAMES.hubspot, last_move_severity: name };
      expect(() => buildWriteBody("hubspot", lastMove(fields))).toThrow(
        new ForbiddenPropertyError(`refusing to write ${name}: the CRM write-back never changes it`),
      );
    }
  });

  it("refuses a body carrying anything beyond the write's allowlist", () => {
    const patch = buildWriteBody("salesforce", lastMove());
    expect(() => assertAllowed("salesforce", lastMove(), { ...patch, StageName: "Closed Lost" })).toThrow(
      "refusing to write StageName: the CRM write-back never changes it",
    );
    expect(() => assertAllowed("salesforce", lastMove(), { ...patch, Name: "Renamed" })).toThrow(
      "refusing to write Name: not on the salesforce last_move allowlist",
    );
    expect(() => assertAllowed("salesforce", note, { ...buildWriteBody("salesforce", note), OwnerId: "005" })).toThrow(
      ForbiddenPropertyError,
    );
    const hubspotNote = buildWriteBody("hubspot", note);
    expect(() =>
      assertAllowed("hubspot", note, { ...hubspotNote, properties: { crm_note_body: "x", hubspot_owner_id: "1" } }),
    ).toThrow("refusing to write hubspot_owner_id: the CRM write-back never changes it");
    expect(() =>
      assertAllowed("hubspot", note, {
        ...hubspotNote,
        associations: [{ to: { id: "1", dealstage: "closedwon" }, types: [] }],
      }),
    ).toThrow("refusing to send dealstage in a HubSpot association");
    expect(() =>
      assertAllowed("hubspot", lastMove(DEFAULT_FIELD_NAMES.hubspot), { properties: {}, associations: [] }),
    ).toThrow("refusing to send associations: not on the hubspot last_move allowlist");
  });

  it("builds the spec's shapes: UTC date, escaped base64 note text, ShareType V, association types 214 and 190", () => {
    expect(buildWriteBody("salesforce", lastMove())).toEqual({
      Competitor_Last_Move__c: "Acme raised Pro",
      Competitor_Last_Move_Date__c: "2026-11-20",
      Competitor_Last_Move_Severity__c: "high",
    });
    const sfNote = buildWriteBody("salesforce", { ...note, text: "Q&A <b>" } as WriteRequest);
    expect(sfNote).toMatchObject({ ShareType: "V", FirstPublishLocationId: "006000000000001AAA" });
    expect(Buffer.from(sfNote.Content as string, "base64").toString("utf8")).toBe("Q&amp;A &lt;b&gt;");
    expect(buildWriteBody("hubspot", note).associations).toEqual([
      { to: { id: "006000000000001AAA" }, types: [{ associationCategory: "CRM_DEFINED", associationTypeId: 214 }] },
    ]);
    const rollup = buildWriteBody("hubspot", { kind: "rollup", accountId: "42", day: "2026-01-02", lines: ["a", "b"] });
    expect(rollup).toEqual({
      properties: { crm_timestamp: "2026-01-02T00:00:00.000Z", crm_note_body: "Competitor activity 2026-01-02\na\nb" },
      associations: [{ to: { id: "42" }, types: [{ associationCategory: "CRM_DEFINED", associationTypeId: 190 }] }],
    });
  });

  it("accepts only renames to custom fields, never a protected or standard one", () => {
    const fields = (values: Record<string, string>) =>
      JSON.stringify({ last_move: "A__c", last_move_date: "B__c", last_move_severity: "C__c", ...values });
    expect(parseFieldNames("salesforce", fields({}))).toEqual({
      last_move: "A__c",
      last_move_date: "B__c",
      last_move_severity: "C__c",
    });
    expect(() => parseFieldNames("salesforce", fields({ last_move: "Amount" }))).toThrow(
      "--fields last_move must not be Amount: it is never written",
    );
    expect(() => parseFieldNames("salesforce", fields({ last_move: "Description" }))).toThrow(
      /custom field \(ending in __c\)/,
    );
    expect(() => parseFieldNames("hubspot", fields({ last_move_date: "hs_lastmodifieddate" }))).toThrow(
      /custom deal property/,
    );
    expect(() => parseFieldNames("hubspot", fields({ last_move_date: "closedate" }))).toThrow(/never written/);
  });
});

describe("queries", () => {
  it("escapes SOQL literals so a value cannot end its string", () => {
    expect(soqlLiteral("O'Brien\\' OR Name != '")).toBe("'O\\'Brien\\\\\\' OR Name != \\''");
    expect(soqlLiteral("line\nbreak")).toBe("'line\\nbreak'");
    expect(soqlLiteral(true)).toBe("true");
    expect(soqlLiteral(2.5)).toBe("2.5");
    const soql = accountFilterSoql({ Name: "x' OR Id != '", Active__c: false });
    expect(soql).toBe("SELECT Id FROM Account WHERE Name = 'x\\' OR Id != \\'' AND Active__c = false");
    // Read back with SOQL's own quoting rules: still two conditions, the value intact.
    expect(parseSoql(soql).conditions).toEqual([
      { field: "Name", values: ["x' OR Id != '"] },
      { field: "Active__c", values: [false] },
    ]);
    expect(() => accountFilterSoql({ "Name = 'x' OR Id": "y" })).toThrow(/not a SOQL field name/);
    expect(openOpportunitiesSoql(["001000000000001AAA", "001000000000002AAA"])).toBe(
      "SELECT Id FROM Opportunity WHERE AccountId IN ('001000000000001AAA','001000000000002AAA') AND IsClosed = false",
    );
  });

  it("turns a HubSpot filter into one AND group of EQ filters with string values", () => {
    expect(companyFilterGroups({ industry: "SOFTWARE", employees: 50, is_target: true })).toEqual([
      {
        filters: [
          { propertyName: "industry", operator: "EQ", value: "SOFTWARE" },
          { propertyName: "employees", operator: "EQ", value: "50" },
          { propertyName: "is_target", operator: "EQ", value: "true" },
        ],
      },
    ]);
  });

  it("validates mappings by provider: id shapes, one kind per competitor, scalar filter values", () => {
    const competitor = "5b0f8a4e-0000-4000-8000-000000000001";
    const parse = (provider: "salesforce" | "hubspot", value: unknown) =>
      parseMapping(provider, JSON.stringify({ [competitor]: value }));
    expect(parse("salesforce", { account_ids: ["001000000000001AAA", "001000000000001"] })).toEqual({
      [competitor]: { account_ids: ["001000000000001AAA", "001000000000001"] },
    });
    expect(parse("hubspot", { view_id: "123" })).toEqual({ [competitor]: { view_id: "123" } });
    expect(() => parse("hubspot", { account_ids: ["001000000000001AAA"] })).toThrow(/not a numeric HubSpot id/);
    expect(() => parse("salesforce", { view_id: "../../sobjects/User" })).toThrow(/not a 15- or 18-character/);
    expect(() => parse("salesforce", { account_ids: [] })).toThrow(/non-empty array/);
    expect(() => parse("salesforce", { account_ids: ["001000000000001AAA"], view_id: "00B000000000001" })).toThrow(
      /exactly one of account_ids, filter, view_id/,
    );
    expect(() => parse("salesforce", { filter: { Amount: 5 } })).toThrow(/filter field Amount is not allowed/);
    expect(() => parse("salesforce", { filter: { Name: ["a"] } })).toThrow(/string, number or boolean/);
    expect(() => parse("salesforce", { filter: { Employees: 1e21 } })).toThrow(/plain number/);
    expect(() => parse("salesforce", { filter: { "Name OR": "x" } })).toThrow(/is not a field name/);
    expect(() => parseMapping("salesforce", JSON.stringify({ acme: { view_id: "00B000000000001" } }))).toThrow(
      "--mapping key is not a competitor id: acme",
    );
    expect(() => parseMapping("salesforce", "[1]")).toThrow(/must be a JSON object/);
  });
});
