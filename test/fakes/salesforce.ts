/**
 * A Salesforce org's REST API (v60.0) on 127.0.0.1, speaking its wire format: bearer session ids (401
 * `[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]` otherwise), SOQL through
 * `GET /query?q=` answering `{totalSize, done, records: [{attributes: {type, url}, Id}], nextRecordsUrl?}` with paging
 * through `/query/<cursor>`, list view results (`{columns, records: [{columns: [{fieldNameOrPath, value}]}], done,
 * size}`), `204` on a PATCH of an sObject, `201 {id, success: true, errors: []}` on a create, and Salesforce's error
 * bodies (`INVALID_FIELD`, `NOT_FOUND`, `MALFORMED_QUERY`). The SOQL it understands is what the integration sends:
 * `SELECT Id FROM <Account|Opportunity> WHERE <field> = <literal> [AND …]` with `IN (…)` lists, parsed with SOQL's
 * quoting rules, so an unescaped value breaks the query here as it would there.
 */
import { FakeCrmServer, type RecordedRequest, type VendorReply } from "./crm-server.js";

const API = "/services/data/v60.0";
type Value = string | number | boolean | null;
export type SObject = Record<string, Value> & { Id: string };

const NOT_FOUND: VendorReply = {
  status: 404,
  body: [{ errorCode: "NOT_FOUND", message: "The requested resource does not exist" }],
};

export class FakeSalesforce extends FakeCrmServer {
  token = "00D5e000000AbCd!AQ0AQFakeSessionIdForRivalscopeTests.0123456789";
  readonly accounts = new Map<string, SObject>();
  readonly opportunities = new Map<string, SObject>();
  readonly listViews = new Map<string, string[]>();
  readonly contentNotes = new Map<string, SObject>();
  readonly tasks = new Map<string, SObject>();
  /** Rows per page of query results (Salesforce: 2000); lower it to make the integration follow nextRecordsUrl. */
  pageSize = 2000;
  /** Custom fields the Opportunity object has; a PATCH of any other field is refused with INVALID_FIELD. */
  readonly opportunityFields = new Set([
    "Competitor_Last_Move__c",
    "Competitor_Last_Move_Date__c",
    "Competitor_Last_Move_Severity__c",
  ]);
  private readonly cursors = new Map<string, { type: string; ids: string[] }>();
  private counter = 0;

  /** A new record id of the object's key prefix (18 characters, as the API returns them). */
  newId(prefix: "001" | "006" | "069" | "00T" | "00B"): string {
    this.counter++;
    return `${prefix}5e${String(this.counter).padStart(10, "0")}AAA`;
  }

  addAccount(fields: Record<string, Value> = {}): string {
    const id = this.newId("001");
    this.accounts.set(id, { Name: `Account ${id}`, ...fields, Id: id });
    return id;
  }

  addOpportunity(accountId: string, fields: Record<string, Value> = {}): string {
    const id = this.newId("006");
    this.opportunities.set(id, {
      Name: `Opportunity ${id}`,
      StageName: "Prospecting",
      Amount: 50000,
      CloseDate: "2026-12-31",
      IsClosed: false,
      ...fields,
      AccountId: accountId,
      Id: id,
    });
    return id;
  }

  addListView(accountIds: string[]): string {
    const id = this.newId("00B");
    this.listViews.set(id, accountIds);
    return id;
  }

  protected unauthorized(): VendorReply {
    return { status: 401, body: [{ message: "Session expired or invalid", errorCode: "INVALID_SESSION_ID" }] };
  }

  protected handle(request: RecordedRequest): VendorReply {
    const { method, path } = request;
    if (method === "GET" && path === `${API}/query`) return this.query(request.query.q ?? "");
    let match = new RegExp(`^${API}/query/([\\w-]+)$`).exec(path);
    if (method === "GET" && match) return this.page(match[1]!);
    match = new RegExp(`^${API}/sobjects/Account/listviews/(\\w+)/results$`).exec(path);
    if (method === "GET" && match) return this.listViewResults(match[1]!, request.query);
    match = new RegExp(`^${API}/sobjects/Opportunity/(\\w+)$`).exec(path);
    if (method === "PATCH" && match) return this.patchOpportunity(match[1]!, request.body);
    if (method === "POST" && path === `${API}/sobjects/ContentNote`)
      return this.create("069", this.contentNotes, request.body);
    if (method === "POST" && path === `${API}/sobjects/Task`) return this.create("00T", this.tasks, request.body);
    return NOT_FOUND;
  }

  private query(soql: string): VendorReply {
    let parsed: ParsedQuery;
    try {
      parsed = parseSoql(soql);
    } catch (error) {
      return { status: 400, body: [{ message: (error as Error).message, errorCode: "MALFORMED_QUERY" }] };
    }
    const table = parsed.type === "Account" ? this.accounts : this.opportunities;
    const known = new Set(["Id", ...[...table.values()].flatMap((record) => Object.keys(record))]);
    const unknown = parsed.conditions.find((condition) => !known.has(condition.field));
    if (unknown) {
      return {
        status: 400,
        body: [
          {
            message: `\nSELECT Id FROM ${parsed.type} WHERE ${unknown.field}\n                         ^\nERROR at Row:1:Column:26\nNo such column '${unknown.field}' on entity '${parsed.type}'.`,
            errorCode: "INVALID_FIELD",
          },
        ],
      };
    }
    const ids = [...table.values()]
      .filter((record) => parsed.conditions.every((c) => c.values.some((v) => record[c.field] === v)))
      .map((record) => record.Id);
    const cursor = `01g5e00000${String(++this.counter).padStart(8, "0")}`;
    this.cursors.set(cursor, { type: parsed.type, ids });
    return this.page(`${cursor}-0`);
  }

  private page(locator: string): VendorReply {
    const [cursor, offsetText] = locator.split("-");
    const stored = this.cursors.get(cursor ?? "");
    const offset = Number(offsetText);
    if (!stored || !Number.isInteger(offset)) {
      return { status: 400, body: [{ message: "invalid query locator", errorCode: "INVALID_QUERY_LOCATOR" }] };
    }
    const slice = stored.ids.slice(offset, offset + this.pageSize);
    const done = offset + slice.length >= stored.ids.length;
    return {
      status: 200,
      body: {
        totalSize: stored.ids.length,
        done,
        ...(done ? {} : { nextRecordsUrl: `${API}/query/${cursor}-${offset + slice.length}` }),
        records: slice.map((Id) => ({
          attributes: { type: stored.type, url: `${API}/sobjects/${stored.type}/${Id}` },
          Id,
        })),
      },
    };
  }

  private listViewResults(viewId: string, query: Record<string, string>): VendorReply {
    const ids = this.listViews.get(viewId);
    if (!ids) return NOT_FOUND;
    const limit = Math.min(Number(query.limit ?? 25), 2000, this.pageSize);
    const offset = Number(query.offset ?? 0);
    const slice = ids.slice(offset, offset + limit);
    return {
      status: 200,
      body: {
        columns: [
          {
            ascendingLabel: "Z-A",
            fieldNameOrPath: "Name",
            hidden: false,
            label: "Account Name",
            sortable: true,
            type: "string",
          },
          {
            ascendingLabel: null,
            fieldNameOrPath: "Id",
            hidden: true,
            label: "Account ID",
            sortable: false,
            type: "id",
          },
        ],
        developerName: "Target_Accounts",
        done: offset + slice.length >= ids.length,
        id: viewId,
        label: "Target accounts",
        records: slice.map((id) => ({
          columns: [
            { fieldNameOrPath: "Name", value: this.accounts.get(id)?.Name ?? null },
            { fieldNameOrPath: "Id", value: id },
          ],
        })),
        size: ids.length,
      },
    };
  }

  private patchOpportunity(id: string, body: any): VendorReply {
    const record = this.opportunities.get(id);
    if (!record) return NOT_FOUND;
    const fields = Object.keys(body ?? {});
    const unknown = fields.find((field) => !this.opportunityFields.has(field) && !(field in record));
    if (unknown) {
      return {
        status: 400,
        body: [
          {
            message: `No such column '${unknown}' on sobject of type Opportunity`,
            errorCode: "INVALID_FIELD",
            fields: [],
          },
        ],
      };
    }
    Object.assign(record, body);
    return { status: 204 };
  }

  private create(prefix: "069" | "00T", table: Map<string, SObject>, body: any): VendorReply {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return {
        status: 400,
        body: [{ message: "Json Deserialization failed on token 'null'", errorCode: "JSON_PARSER_ERROR" }],
      };
    }
    const id = this.newId(prefix);
    table.set(id, { ...body, Id: id });
    return { status: 201, body: { id, success: true, errors: [] } };
  }
}

interface ParsedQuery {
  type: "Account" | "Opportunity";
  conditions: { field: string; values: Value[] }[];
}

/** `SELECT Id FROM T WHERE f = lit AND g IN (lit, …)`, with SOQL string escapes. Throws on anything else. */
export function parseSoql(soql: string): ParsedQuery {
  const head = /^SELECT Id FROM (Account|Opportunity) WHERE /.exec(soql);
  if (!head) throw new Error(`unexpected token in query: ${soql.slice(0, 40)}`);
  const tokens = tokenize(soql.slice(head[0].length));
  let position = 0;
  const next = () => tokens[position++];
  const expect = (kind: string, text?: string) => {
    const token = next();
    if (!token || token.kind !== kind || (text !== undefined && token.text.toUpperCase() !== text)) {
      throw new Error(`unexpected token: ${token?.text ?? "end of query"}`);
    }
    return token;
  };
  const conditions: ParsedQuery["conditions"] = [];
  for (;;) {
    const field = expect("word").text;
    const operator = next();
    if (operator?.kind === "symbol" && operator.text === "=") {
      conditions.push({ field, values: [literal(next())] });
    } else if (operator?.kind === "word" && operator.text.toUpperCase() === "IN") {
      expect("symbol", "(");
      const values: Value[] = [literal(next())];
      while (tokens[position]?.text === ",") {
        position++;
        values.push(literal(next()));
      }
      expect("symbol", ")");
      conditions.push({ field, values });
    } else {
      throw new Error(`unexpected token: ${operator?.text ?? "end of query"}`);
    }
    if (position >= tokens.length) break;
    expect("word", "AND");
  }
  return { type: head[1] as ParsedQuery["type"], conditions };
}

interface Token {
  kind: "word" | "string" | "number" | "symbol";
  text: string;
}

function literal(token: Token | undefined): Value {
  if (!token) throw new Error("unexpected end of query");
  if (token.kind === "string") return token.text;
  if (token.kind === "number") return Number(token.text);
  if (token.kind === "word" && /^(true|false)$/i.test(token.text)) return token.text.toLowerCase() === "true";
  if (token.kind === "word" && /^null$/i.test(token.text)) return null;
  throw new Error(`unexpected token: ${token.text}`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " ") {
      i++;
    } else if (c === "'") {
      let value = "";
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated string literal");
        const d = text[i]!;
        if (d === "\\") {
          const escaped = text[i + 1];
          const map: Record<string, string> = {
            n: "\n",
            r: "\r",
            t: "\t",
            b: "\b",
            f: "\f",
            "'": "'",
            '"': '"',
            "\\": "\\",
          };
          if (escaped === undefined || !(escaped in map)) throw new Error(`invalid escape sequence \\${escaped ?? ""}`);
          value += map[escaped];
          i += 2;
        } else if (d === "'") {
          i++;
          break;
        } else {
          value += d;
          i++;
        }
      }
      tokens.push({ kind: "string", text: value });
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i))![0];
      tokens.push({ kind: "word", text: word });
      i += word.length;
    } else if (/[-0-9]/.test(c)) {
      const number = /^-?\d+(\.\d+)?/.exec(text.slice(i));
      if (!number) throw new Error(`unexpected token: ${c}`);
      tokens.push({ kind: "number", text: number[0] });
      i += number[0].length;
    } else if ("=(),".includes(c)) {
      tokens.push({ kind: "symbol", text: c });
      i++;
    } else {
      throw new Error(`unexpected token: ${c}`);
    }
  }
  return tokens;
}
