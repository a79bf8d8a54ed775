/**
 * CRM B: the HubSpot CRM v3 API (docs/product-rules.md#write-shapes, docs/product-rules.md#finding-records). Deals of a
 * company are found with `POST /crm/v3/objects/deals/search` (filter `associations.company` EQ id, and open ones only:
 * `hs_is_closed` EQ false); a filter is a `filterGroups` search on companies; a saved view is a list's memberships.
 * Searches and list memberships page with `after`. Writes: PATCH of the deal (200), POST of a note (201) associated to
 * the deal (type 214) or, for the daily rollup, to the company (type 190), both `CRM_DEFINED`.
 */
import type { HttpClient } from "../lib/http-client.js";
import {
  CrmHttp,
  CrmRequestError,
  distinct,
  MAX_ACCOUNTS,
  MAX_DEALS,
  PageBound,
  type CrmClient,
  type CrmEndpoint,
} from "./client.js";
import { IDENTIFIER, isRecordId, type AccountMapping, type FilterValue } from "./mapping.js";
import { buildWriteBody, type FieldNames, type WriteEvent } from "./properties.js";

/** HubSpot's maximum page size for CRM searches; list memberships allow 250. */
const SEARCH_PAGE = 100;
const LIST_PAGE = 250;

/** `{"status":"error","message":"…","category":"…","correlationId":"…"}`, HubSpot's error body. */
function describeHubSpotError(json: any): string | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) return null;
  const category = typeof json.category === "string" ? json.category : null;
  const message = typeof json.message === "string" ? json.message : null;
  if (!category && !message) return null;
  return [category, message].filter(Boolean).join(": ");
}

interface SearchFilter {
  propertyName: string;
  operator: "EQ";
  value: string;
}

/** One AND-group of EQ filters (HubSpot compares as strings: `true`, `42`). */
export function companyFilterGroups(filter: Record<string, FilterValue>): { filters: SearchFilter[] }[] {
  const filters = Object.entries(filter).map(([field, value]) => {
    if (!IDENTIFIER.test(field)) throw new Error(`not a HubSpot property name: ${field}`);
    return { propertyName: field, operator: "EQ" as const, value: String(value) };
  });
  return [{ filters }];
}

export class HubSpotClient implements CrmClient {
  readonly provider = "hubspot" as const;
  private readonly api: CrmHttp;

  constructor(http: HttpClient, endpoint: CrmEndpoint) {
    this.api = new CrmHttp(http, endpoint, describeHubSpotError);
  }

  async findAccounts(mapping: AccountMapping): Promise<string[]> {
    if ("account_ids" in mapping) return distinct(mapping.account_ids, MAX_ACCOUNTS);
    if ("filter" in mapping) {
      return this.search("companies", companyFilterGroups(mapping.filter), MAX_ACCOUNTS);
    }
    return this.listMembers(mapping.view_id);
  }

  async openDeals(companyIds: string[]): Promise<string[]> {
    const ids: string[] = [];
    // `associations.company` takes one id per filter; one search per company keeps each query a plain AND.
    for (const companyId of companyIds) {
      if (ids.length >= MAX_DEALS) break;
      const groups = [
        {
          filters: [
            { propertyName: "associations.company", operator: "EQ" as const, value: companyId },
            { propertyName: "hs_is_closed", operator: "EQ" as const, value: "false" },
          ],
        },
      ];
      ids.push(...(await this.search("deals", groups, MAX_DEALS - ids.length)));
    }
    return distinct(ids, MAX_DEALS);
  }

  async writeLastMove(dealId: string, fields: FieldNames, event: WriteEvent): Promise<void> {
    const body = buildWriteBody("hubspot", { kind: "last_move", fields, event });
    await this.api.call("PATCH", `/crm/v3/objects/deals/${recordPath(dealId)}`, body);
  }

  async addNote(dealId: string, note: { title: string; text: string; timestamp: Date }): Promise<string> {
    const body = buildWriteBody("hubspot", { kind: "note", recordId: recordPath(dealId), ...note });
    return createdId(await this.api.call("POST", "/crm/v3/objects/notes", body));
  }

  async addRollup(companyId: string, day: string, lines: string[]): Promise<string> {
    const body = buildWriteBody("hubspot", { kind: "rollup", accountId: recordPath(companyId), day, lines });
    return createdId(await this.api.call("POST", "/crm/v3/objects/notes", body));
  }

  /** A CRM search, following `paging.next.after` (up to `limit` ids, or MAX_PAGES). Reads only `hs_object_id`. */
  private async search(
    object: "companies" | "deals",
    filterGroups: { filters: SearchFilter[] }[],
    limit: number,
  ): Promise<string[]> {
    const ids: string[] = [];
    const pages = new PageBound("hubspot", `the ${object} search`);
    let after: string | undefined;
    do {
      pages.next();
      const body: Record<string, unknown> = { filterGroups, properties: ["hs_object_id"], limit: SEARCH_PAGE };
      if (after !== undefined) body.after = after;
      const { json } = await this.api.call("POST", `/crm/v3/objects/${object}/search`, body);
      for (const result of Array.isArray(json?.results) ? json.results : []) {
        if (isRecordId("hubspot", result?.id)) ids.push(result.id);
      }
      after = nextAfter(json);
    } while (after !== undefined && ids.length < limit);
    return distinct(ids, limit);
  }

  /** A list's members (`GET /crm/v3/lists/{id}/memberships`), following `paging.next.after` (up to MAX_PAGES). */
  private async listMembers(listId: string): Promise<string[]> {
    const ids: string[] = [];
    const pages = new PageBound("hubspot", `list ${listId}'s members`);
    let after: string | undefined;
    do {
      pages.next();
      const query = new URLSearchParams({ limit: String(LIST_PAGE) });
      if (after !== undefined) query.set("after", after);
      const { json } = await this.api.call("GET", `/crm/v3/lists/${recordPath(listId)}/memberships?${query}`);
      for (const member of Array.isArray(json?.results) ? json.results : []) {
        const id = typeof member === "object" ? member?.recordId : member;
        if (isRecordId("hubspot", String(id ?? ""))) ids.push(String(id));
      }
      after = nextAfter(json);
    } while (after !== undefined && ids.length < MAX_ACCOUNTS);
    return distinct(ids, MAX_ACCOUNTS);
  }
}

function nextAfter(json: any): string | undefined {
  const after = json?.paging?.next?.after;
  return typeof after === "string" && after !== "" ? after : typeof after === "number" ? String(after) : undefined;
}

function recordPath(id: string): string {
  if (!isRecordId("hubspot", id)) throw new CrmRequestError(`not a HubSpot id: ${JSON.stringify(id)}`, null);
  return id;
}

function createdId(response: { json: any }): string {
  const id = response.json?.id;
  if (typeof id !== "string" && typeof id !== "number") {
    throw new CrmRequestError("HubSpot answered 201 without an id", null);
  }
  return String(id);
}
