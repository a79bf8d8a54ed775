/**
 * CRM A: the Salesforce REST API, version v60.0 (docs/product-rules.md#write-shapes,
 * docs/product-rules.md#finding-records). Opportunities of the mapped accounts are found with SOQL through
 * `GET …/query?q=SELECT Id FROM Opportunity WHERE AccountId IN (…) AND IsClosed = false` (following `nextRecordsUrl`);
 * a filter is a SOQL WHERE clause on Account; a saved view is a list view's results. Writes: PATCH of the opportunity
 * (204), POST of a ContentNote and of a Task (201 `{id, success, errors}`).
 */
import type { HttpClient } from "../lib/http-client.js";
import {
  chunks,
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

export const SALESFORCE_API = "/services/data/v60.0";
/** Ids per `IN (…)` list: 100 × 21 characters keeps the URL far below Salesforce's 16 KB limit. */
const IN_CHUNK = 100;
/** Rows per list-view page (Salesforce's maximum for `limit`). */
const LIST_VIEW_PAGE = 2000;

/** `[{"message": "…", "errorCode": "…"}]`, Salesforce's error body. */
function describeSalesforceError(json: any): string | null {
  const first = Array.isArray(json) ? json[0] : null;
  if (!first || typeof first !== "object") return null;
  const code = typeof first.errorCode === "string" ? first.errorCode : null;
  const message = typeof first.message === "string" ? first.message : null;
  if (!code && !message) return null;
  return [code, message].filter(Boolean).join(": ");
}

/** Salesforce answers an exhausted API allowance with 403 REQUEST_LIMIT_EXCEEDED: a rate limit, not a refusal. */
function isSalesforceRateLimit(status: number, json: any): boolean {
  return status === 403 && Array.isArray(json) && json.some((e) => e?.errorCode === "REQUEST_LIMIT_EXCEEDED");
}

/** A SOQL literal: strings quoted with SOQL's escapes (backslash, quote, control characters), never concatenated raw. */
export function soqlLiteral(value: FilterValue): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value) || /e/i.test(String(value))) throw new Error(`not a SOQL number: ${value}`);
    return String(value);
  }
  const escaped = value.replace(/[\\'"\n\r\t\b\f]/g, (c) => {
    switch (c) {
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      case "\t":
        return "\\t";
      case "\b":
        return "\\b";
      case "\f":
        return "\\f";
      default:
        return `\\${c}`;
    }
  });
  return `'${escaped}'`;
}

function soqlField(name: string): string {
  // Validated when the mapping was stored; checked again because this string becomes part of a statement.
  if (!IDENTIFIER.test(name)) throw new Error(`not a SOQL field name: ${name}`);
  return name;
}

/**
 * `SELECT Id FROM Account WHERE A = 'x' AND B = 2`: the mapping's filter (a SOQL WHERE clause on Account:
 * docs/product-rules.md#connections-and-mapping).
 */
export function accountFilterSoql(filter: Record<string, FilterValue>): string {
  const conditions = Object.entries(filter).map(([field, value]) => `${soqlField(field)} = ${soqlLiteral(value)}`);
  return `SELECT Id FROM Account WHERE ${conditions.join(" AND ")}`;
}

/**
 * The query of docs/product-rules.md#finding-records, exactly:
 * `SELECT Id FROM Opportunity WHERE AccountId IN (…) AND IsClosed = false`.
 */
export function openOpportunitiesSoql(accountIds: string[]): string {
  return `SELECT Id FROM Opportunity WHERE AccountId IN (${accountIds.map(soqlLiteral).join(",")}) AND IsClosed = false`;
}

export class SalesforceClient implements CrmClient {
  readonly provider = "salesforce" as const;
  private readonly api: CrmHttp;

  constructor(http: HttpClient, endpoint: CrmEndpoint) {
    this.api = new CrmHttp(http, endpoint, describeSalesforceError, isSalesforceRateLimit);
  }

  async findAccounts(mapping: AccountMapping): Promise<string[]> {
    if ("account_ids" in mapping) return distinct(mapping.account_ids, MAX_ACCOUNTS);
    if ("filter" in mapping) return this.query(accountFilterSoql(mapping.filter), MAX_ACCOUNTS);
    return this.listView(mapping.view_id);
  }

  async openDeals(accountIds: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const chunk of chunks(accountIds, IN_CHUNK)) {
      if (ids.length >= MAX_DEALS) break;
      ids.push(...(await this.query(openOpportunitiesSoql(chunk), MAX_DEALS - ids.length)));
    }
    return distinct(ids, MAX_DEALS);
  }

  async writeLastMove(dealId: string, fields: FieldNames, event: WriteEvent): Promise<void> {
    const body = buildWriteBody("salesforce", { kind: "last_move", fields, event });
    await this.api.call("PATCH", `${SALESFORCE_API}/sobjects/Opportunity/${recordPath(dealId)}`, body);
  }

  async addNote(dealId: string, note: { title: string; text: string; timestamp: Date }): Promise<string> {
    const body = buildWriteBody("salesforce", { kind: "note", recordId: dealId, ...note });
    return createdId(await this.api.call("POST", `${SALESFORCE_API}/sobjects/ContentNote`, body));
  }

  async addRollup(accountId: string, day: string, lines: string[]): Promise<string> {
    const body = buildWriteBody("salesforce", { kind: "rollup", accountId, day, lines });
    return createdId(await this.api.call("POST", `${SALESFORCE_API}/sobjects/Task`, body));
  }

  /** Runs a SOQL query and follows `nextRecordsUrl` until `done` (or `limit` ids, or MAX_PAGES). */
  private async query(soql: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    const pages = new PageBound("salesforce", "the query results");
    let path: string | null = `${SALESFORCE_API}/query?q=${encodeURIComponent(soql)}`;
    while (path !== null && ids.length < limit) {
      pages.next();
      const { json } = await this.api.call("GET", path);
      for (const record of Array.isArray(json?.records) ? json.records : []) {
        if (isRecordId("salesforce", record?.Id)) ids.push(record.Id);
      }
      path = json?.done === false ? nextRecordsPath(json.nextRecordsUrl) : null;
    }
    return distinct(ids, limit);
  }

  /** A list view's rows, page by page (`limit`/`offset`, up to MAX_PAGES), reading each row's `Id` column. */
  private async listView(viewId: string): Promise<string[]> {
    const ids: string[] = [];
    const pages = new PageBound("salesforce", `list view ${viewId}'s results`);
    for (let offset = 0; ids.length < MAX_ACCOUNTS;) {
      pages.next();
      const { json } = await this.api.call(
        "GET",
        `${SALESFORCE_API}/sobjects/Account/listviews/${recordPath(viewId)}/results?limit=${LIST_VIEW_PAGE}&offset=${offset}`,
      );
      const records: any[] = Array.isArray(json?.records) ? json.records : [];
      for (const record of records) {
        const columns: any[] = Array.isArray(record?.columns) ? record.columns : [];
        const id = columns.find((column) => column?.fieldNameOrPath === "Id")?.value;
        if (isRecordId("salesforce", id)) ids.push(id);
      }
      if (json?.done !== false || records.length === 0) break;
      offset += records.length;
    }
    return distinct(ids, MAX_ACCOUNTS);
  }
}

/** Ids come from the mapping or from Salesforce's answers; only the id shape may become a path segment. */
function recordPath(id: string): string {
  if (!isRecordId("salesforce", id)) throw new CrmRequestError(`not a Salesforce id: ${JSON.stringify(id)}`, null);
  return id;
}

/** `nextRecordsUrl` is a path on the same instance; anything else is not followed. */
function nextRecordsPath(url: unknown): string | null {
  if (typeof url !== "string" || !/^\/services\/data\/v60\.0\/query\/[A-Za-z0-9-]+$/.test(url)) return null;
  return url;
}

function createdId(response: { json: any }): string {
  const id = response.json?.id;
  if (typeof id !== "string") throw new CrmRequestError("Salesforce answered 201 without an id", null);
  return id;
}
