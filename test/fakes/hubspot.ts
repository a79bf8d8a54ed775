/**
 * A HubSpot account's CRM v3 API on 127.0.0.1, speaking its wire format: private-app bearer tokens (401
 * `{"status":"error","message":"Authentication credentials not found…","correlationId":"…","category":
 * "INVALID_AUTHENTICATION"}` otherwise), CRM searches (`POST /crm/v3/objects/{companies|deals}/search` with
 * `filterGroups`, answering `{total, results: [{id, properties, createdAt, updatedAt, archived}], paging?: {next:
 * {after}}}`), list memberships (`GET /crm/v3/lists/{id}/memberships`), `200` with the object on a PATCH, `201` on a
 * create, and HubSpot's error bodies (`OBJECT_NOT_FOUND`, `VALIDATION_ERROR`).
 */
import { randomUUID } from "node:crypto";
import { FakeCrmServer, type RecordedRequest, type VendorReply } from "./crm-server.js";

export interface HubSpotObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

export interface HubSpotDeal extends HubSpotObject {
  companyIds: string[];
}

export interface HubSpotNote extends HubSpotObject {
  associations: any;
}

const error = (status: number, category: string, message: string): VendorReply => ({
  status,
  body: { status: "error", message, correlationId: randomUUID(), category },
});

export class FakeHubSpot extends FakeCrmServer {
  token = "pat-na1-7c9e6679-7425-40de-944b-e07fc1f90ae7";
  readonly companies = new Map<string, HubSpotObject>();
  readonly deals = new Map<string, HubSpotDeal>();
  readonly lists = new Map<string, string[]>();
  readonly notes = new Map<string, HubSpotNote>();
  /** Results per page at most (HubSpot: 100 for searches, 250 for memberships); lower it to exercise paging. */
  pageSize = 100;
  /** Deal properties that exist; a PATCH of any other is refused with PROPERTY_DOESNT_EXIST. */
  readonly dealProperties = new Set([
    "dealname",
    "dealstage",
    "amount",
    "closedate",
    "hubspot_owner_id",
    "hs_is_closed",
    "competitor_last_move",
    "competitor_last_move_date",
    "competitor_last_move_severity",
  ]);
  private counter = 9_000_000_000;

  private object(properties: Record<string, string | null>): HubSpotObject {
    const id = String(++this.counter);
    const now = new Date().toISOString();
    return { id, properties: { hs_object_id: id, ...properties }, createdAt: now, updatedAt: now, archived: false };
  }

  addCompany(properties: Record<string, string> = {}): string {
    const company = this.object({ name: "Company", ...properties });
    this.companies.set(company.id, company);
    return company.id;
  }

  addDeal(companyIds: string[], properties: Record<string, string> = {}): string {
    const deal = this.object({
      dealname: "Deal",
      dealstage: "appointmentscheduled",
      amount: "50000",
      closedate: "2026-12-31T00:00:00Z",
      hubspot_owner_id: "12345",
      hs_is_closed: "false",
      ...properties,
    });
    this.deals.set(deal.id, { ...deal, companyIds });
    return deal.id;
  }

  addList(companyIds: string[]): string {
    const id = String(++this.counter);
    this.lists.set(id, companyIds);
    return id;
  }

  protected unauthorized(): VendorReply {
    return error(
      401,
      "INVALID_AUTHENTICATION",
      "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview",
    );
  }

  protected handle(request: RecordedRequest): VendorReply {
    const { method, path } = request;
    if (method === "POST" && path === "/crm/v3/objects/companies/search") {
      return this.search([...this.companies.values()], request.body, () => []);
    }
    if (method === "POST" && path === "/crm/v3/objects/deals/search") {
      return this.search([...this.deals.values()], request.body, (deal) => (deal as HubSpotDeal).companyIds);
    }
    let match = /^\/crm\/v3\/lists\/(\d+)\/memberships$/.exec(path);
    if (method === "GET" && match) return this.memberships(match[1]!, request.query);
    match = /^\/crm\/v3\/objects\/deals\/(\d+)$/.exec(path);
    if (method === "PATCH" && match) return this.patchDeal(match[1]!, request.body);
    if (method === "POST" && path === "/crm/v3/objects/notes") return this.createNote(request.body);
    return error(404, "OBJECT_NOT_FOUND", "resource not found");
  }

  private search(objects: HubSpotObject[], body: any, companiesOf: (o: HubSpotObject) => string[]): VendorReply {
    const groups: any[] = Array.isArray(body?.filterGroups) ? body.filterGroups : [];
    const invalid = groups
      .flatMap((g) => g?.filters ?? [])
      .find((f: any) => f?.operator !== "EQ" || typeof f?.propertyName !== "string" || typeof f?.value !== "string");
    if (invalid) return error(400, "VALIDATION_ERROR", "There was a problem with the request.");
    const matching = objects.filter(
      (o) =>
        groups.length === 0 ||
        groups.some((g) =>
          g.filters.every((f: any) =>
            f.propertyName === "associations.company"
              ? companiesOf(o).includes(f.value)
              : (o.properties[f.propertyName] ?? null) === f.value,
          ),
        ),
    );
    const limit = Math.min(Number(body?.limit ?? 10), 200, this.pageSize);
    const offset = Number(body?.after ?? 0);
    const page = matching.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      status: 200,
      body: {
        total: matching.length,
        results: page.map(({ id, properties, createdAt, updatedAt, archived }) => ({
          id,
          properties: { hs_object_id: properties.hs_object_id, createdate: createdAt, hs_lastmodifieddate: updatedAt },
          createdAt,
          updatedAt,
          archived,
        })),
        ...(next < matching.length ? { paging: { next: { after: String(next), link: "?after=" + next } } } : {}),
      },
    };
  }

  private memberships(listId: string, query: Record<string, string>): VendorReply {
    const members = this.lists.get(listId);
    if (!members) return error(404, "OBJECT_NOT_FOUND", `List with id ${listId} does not exist.`);
    const limit = Math.min(Number(query.limit ?? 100), 250, this.pageSize);
    const offset = Number(query.after ?? 0);
    const page = members.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      status: 200,
      body: {
        results: page.map((recordId) => ({ recordId, membershipTimestamp: "2026-11-01T09:00:00.000Z" })),
        ...(next < members.length ? { paging: { next: { after: String(next) } } } : {}),
        total: members.length,
      },
    };
  }

  private patchDeal(id: string, body: any): VendorReply {
    const deal = this.deals.get(id);
    if (!deal) return error(404, "OBJECT_NOT_FOUND", "resource not found");
    const properties = body?.properties;
    if (typeof properties !== "object" || properties === null) {
      return error(400, "VALIDATION_ERROR", "Invalid input JSON on line 1, column 2: properties is required");
    }
    const unknown = Object.keys(properties).find((name) => !this.dealProperties.has(name));
    if (unknown) {
      return error(
        400,
        "VALIDATION_ERROR",
        `Property values were not valid: [{"isValid":false,"message":"Property \\"${unknown}\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"${unknown}"}]`,
      );
    }
    Object.assign(deal.properties, properties);
    deal.updatedAt = new Date().toISOString();
    const { companyIds: _companies, ...object } = deal;
    return { status: 200, body: object };
  }

  private createNote(body: any): VendorReply {
    const properties = body?.properties;
    if (typeof properties !== "object" || properties === null) {
      return error(400, "VALIDATION_ERROR", "Invalid input JSON: properties is required");
    }
    const note = { ...this.object(properties), associations: body.associations ?? [] };
    this.notes.set(note.id, note);
    const { associations: _associations, ...object } = note;
    return { status: 201, body: object };
  }
}
