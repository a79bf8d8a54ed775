/**
 * The competitor-to-account mapping of a CRM connection (`crm-connect --mapping`,
 * docs/product-rules.md#connections-and-mapping): `{competitor_id: {"account_ids":[…]} | {"filter":{…}} |
 * {"view_id":"…"}}` — a list of account ids, a filter on accounts (Salesforce SOQL WHERE on Account, HubSpot
 * `filterGroups` on companies), or a saved view (Salesforce list view, HubSpot list). Everything here ends up in a URL,
 * a SOQL statement or a search body, so it is validated strictly: ids have the vendor's id shape, field names are
 * identifiers, values are scalars.
 */
import { isProtectedProperty, type Provider } from "./properties.js";

export type FilterValue = string | number | boolean;
export type AccountMapping = { account_ids: string[] } | { filter: Record<string, FilterValue> } | { view_id: string };
export type Mapping = Record<string, AccountMapping>;

/** A bad mapping; the message is the operator's one-line error. */
export class MappingError extends Error {}

/** Salesforce record ids are 15 or 18 case-sensitive alphanumerics; HubSpot object and list ids are numbers. */
const RECORD_ID: Readonly<Record<Provider, RegExp>> = {
  salesforce: /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/,
  hubspot: /^[0-9]{1,20}$/,
};
/** An API field/property name: letters, digits, underscores (Salesforce custom fields end in `__c`). */
export const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_ACCOUNT_IDS = 1000;
const MAX_FILTER_FIELDS = 10;
const MAX_FILTER_STRING = 255;
/** No more than the largest plan's competitors (enterprise: 100, docs/product-rules.md#plans-and-limits). */
const MAX_COMPETITORS = 100;

export function isRecordId(provider: Provider, value: unknown): value is string {
  return typeof value === "string" && RECORD_ID[provider].test(value);
}

/**
 * Parses and checks the `--mapping` JSON for a provider; competitor ids are checked for shape here and for ownership
 * by the caller (they must be the workspace's competitors).
 */
export function parseMapping(provider: Provider, raw: string): Mapping {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MappingError("--mapping is not valid JSON");
  }
  if (!isPlainObject(parsed)) throw new MappingError("--mapping must be a JSON object of competitor id → mapping");
  const entries = Object.entries(parsed);
  if (entries.length > MAX_COMPETITORS) {
    throw new MappingError(`--mapping maps at most ${MAX_COMPETITORS} competitors`);
  }
  const mapping: Mapping = {};
  for (const [competitorId, value] of entries) {
    if (!UUID.test(competitorId)) throw new MappingError(`--mapping key is not a competitor id: ${competitorId}`);
    mapping[competitorId.toLowerCase()] = parseAccountMapping(provider, competitorId, value);
  }
  return mapping;
}

function parseAccountMapping(provider: Provider, competitorId: string, value: unknown): AccountMapping {
  const where = `--mapping for ${competitorId}`;
  if (!isPlainObject(value)) throw new MappingError(`${where} must be an object`);
  const keys = Object.keys(value);
  if (keys.length !== 1 || !["account_ids", "filter", "view_id"].includes(keys[0]!)) {
    throw new MappingError(`${where} must have exactly one of account_ids, filter, view_id`);
  }
  const idShape = provider === "salesforce" ? "a 15- or 18-character Salesforce id" : "a numeric HubSpot id";
  if ("account_ids" in value) {
    const ids = value.account_ids;
    if (!Array.isArray(ids) || ids.length === 0)
      throw new MappingError(`${where}: account_ids must be a non-empty array`);
    if (ids.length > MAX_ACCOUNT_IDS) throw new MappingError(`${where}: at most ${MAX_ACCOUNT_IDS} account_ids`);
    const bad = ids.find((id) => !isRecordId(provider, id));
    if (bad !== undefined) throw new MappingError(`${where}: account id ${JSON.stringify(bad)} is not ${idShape}`);
    return { account_ids: [...new Set(ids as string[])] };
  }
  if ("view_id" in value) {
    if (!isRecordId(provider, value.view_id)) {
      throw new MappingError(`${where}: view_id ${JSON.stringify(value.view_id)} is not ${idShape}`);
    }
    return { view_id: value.view_id };
  }
  const filter = value.filter;
  if (!isPlainObject(filter) || Object.keys(filter).length === 0) {
    throw new MappingError(`${where}: filter must be a non-empty object of field → value`);
  }
  if (Object.keys(filter).length > MAX_FILTER_FIELDS) {
    throw new MappingError(`${where}: filter has at most ${MAX_FILTER_FIELDS} fields`);
  }
  const result: Record<string, FilterValue> = {};
  for (const [field, fieldValue] of Object.entries(filter)) {
    if (!IDENTIFIER.test(field))
      throw new MappingError(`${where}: filter field ${JSON.stringify(field)} is not a field name`);
    // Not even read: the integration never touches stage, owner, amount or close date
    // (docs/product-rules.md#read-only-allowlist).
    if (isProtectedProperty(field)) throw new MappingError(`${where}: filter field ${field} is not allowed`);
    if (typeof fieldValue === "string") {
      if (fieldValue.length > MAX_FILTER_STRING || hasControlCharacter(fieldValue)) {
        throw new MappingError(
          `${where}: filter value of ${field} must be a single line of at most ${MAX_FILTER_STRING} characters`,
        );
      }
    } else if (typeof fieldValue === "number") {
      // SOQL and HubSpot take plain decimals; `1e21` or NaN would be neither.
      if (!Number.isFinite(fieldValue) || /e/i.test(String(fieldValue))) {
        throw new MappingError(`${where}: filter value of ${field} must be a plain number`);
      }
    } else if (typeof fieldValue !== "boolean") {
      throw new MappingError(`${where}: filter value of ${field} must be a string, number or boolean`);
    }
    result[field] = fieldValue;
  }
  return { filter: result };
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return true;
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The competitor's entry of a stored mapping, or null when the competitor is not mapped. */
export function mappingFor(mapping: Mapping | null | undefined, competitorId: string): AccountMapping | null {
  return mapping?.[competitorId.toLowerCase()] ?? null;
}
