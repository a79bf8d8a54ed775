/**
 * The allowlist of CRM write-back (docs/product-rules.md#read-only-allowlist: read-only outside those fields and the
 * note; the code sends only an allowlist of properties). This module owns every property name the integration may
 * write, and `buildWriteBody` is the one function that builds an outgoing write body (PATCH of the three fields, the
 * note, the daily rollup): it checks the body it built against the allowlist before handing it out, so no other code
 * can put a property on the wire. Reads (SOQL, searches, list views) write nothing and do not come through here; their
 * inputs are validated by src/crm/connections.ts (identifier-like names, never a protected one).
 */
import type { Severity } from "../detection/types.js";
import { escapeHtml } from "../lib/html.js";

export type Provider = "salesforce" | "hubspot";
export const PROVIDERS: readonly Provider[] = ["salesforce", "hubspot"];

/** The three custom fields of docs/product-rules.md#write-shapes, by their role. */
export interface FieldNames {
  last_move: string;
  last_move_date: string;
  last_move_severity: string;
}
export const FIELD_ROLES = ["last_move", "last_move_date", "last_move_severity"] as const;

/** docs/product-rules.md#write-shapes: the names used unless `crm-connect --fields` renames them. */
export const DEFAULT_FIELD_NAMES: Readonly<Record<Provider, FieldNames>> = Object.freeze({
  salesforce: {
    last_move: "Competitor_Last_Move__c",
    last_move_date: "Competitor_Last_Move_Date__c",
    last_move_severity: "Competitor_Last_Move_Severity__c",
  },
  hubspot: {
    last_move: "competitor_last_move",
    last_move_date: "competitor_last_move_date",
    last_move_severity: "competitor_last_move_severity",
  },
});

/**
 * Stage, owner, amount and close date (docs/product-rules.md#read-only-allowlist): never written, never read, whatever
 * the configuration says. Compared case-insensitively, so `amount` cannot slip through as `AMOUNT`.
 */
export const PROTECTED_PROPERTIES: readonly string[] = [
  "StageName",
  "OwnerId",
  "Amount",
  "CloseDate",
  "dealstage",
  "hubspot_owner_id",
  "amount",
  "closedate",
];

export function isProtectedProperty(name: string): boolean {
  const lower = name.toLowerCase();
  return PROTECTED_PROPERTIES.some((protectedName) => protectedName.toLowerCase() === lower);
}

/**
 * The fixed fields of the note and rollup objects (docs/product-rules.md#write-shapes,
 * docs/product-rules.md#daily-rollup).
 */
const SALESFORCE_NOTE_FIELDS = ["Title", "Content", "FirstPublishLocationId", "ShareType"] as const;
const SALESFORCE_TASK_FIELDS = ["WhatId", "Subject", "Description", "Status", "ActivityDate"] as const;
const HUBSPOT_NOTE_PROPERTIES = ["crm_timestamp", "crm_note_body"] as const;
/**
 * The association keys of a HubSpot note, as docs/product-rules.md#write-shapes shows them:
 * `associations: [{ to: { id }, types: [{…}] }]`.
 */
const HUBSPOT_ASSOCIATION_KEYS = new Set(["to", "id", "types", "associationCategory", "associationTypeId"]);

/**
 * Association type ids (note → deal 214, note → company 190: docs/product-rules.md#write-shapes), both `CRM_DEFINED`.
 */
export const NOTE_TO_DEAL_ASSOCIATION = 214;
export const NOTE_TO_COMPANY_ASSOCIATION = 190;
const ASSOCIATION_CATEGORY = "CRM_DEFINED";
/** Salesforce ContentNote sharing: `V` (viewer), as docs/product-rules.md#write-shapes fixes it. */
const SHARE_TYPE = "V";
/** Salesforce text limits: ContentNote.Title and Task.Subject are 255 characters. */
const TITLE_MAX = 255;

/** A body the allowlist refused; a programming or configuration error, never sent. */
export class ForbiddenPropertyError extends Error {}

/**
 * What the event gives a write (docs/product-rules.md#write-shapes): the "event title", "severity", the date, and the
 * note's text.
 */
export interface WriteEvent {
  title: string;
  severity: Severity | string;
  detected_at: Date;
}

export type WriteRequest =
  /** PATCH of the opportunity/deal: the three configured fields. */
  | { kind: "last_move"; fields: FieldNames; event: WriteEvent }
  /** The note attached to the opportunity/deal. */
  | { kind: "note"; recordId: string; title: string; text: string; timestamp: Date }
  /** The daily rollup engagement on an account/company. */
  | { kind: "rollup"; accountId: string; day: string; lines: string[] };

/** `YYYY-MM-DD` of the UTC day (docs/product-rules.md#write-shapes). */
export function utcDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function rollupSubject(day: string): string {
  return `Competitor activity ${day}`;
}

/**
 * Builds the JSON body of one write for the provider, then checks it against the allowlist. The only producer of
 * write bodies (src/crm/salesforce.ts and src/crm/hubspot.ts send what this returns, unchanged).
 */
export function buildWriteBody(provider: Provider, request: WriteRequest): Record<string, unknown> {
  const body = provider === "salesforce" ? salesforceBody(request) : hubspotBody(request);
  assertAllowed(provider, request, body);
  return body;
}

function salesforceBody(request: WriteRequest): Record<string, unknown> {
  switch (request.kind) {
    case "last_move":
      return {
        [request.fields.last_move]: request.event.title,
        [request.fields.last_move_date]: utcDate(request.event.detected_at),
        [request.fields.last_move_severity]: request.event.severity,
      };
    case "note":
      return {
        Title: truncate(request.title, TITLE_MAX),
        // ContentNote content is HTML-like: Salesforce refuses a note with unescaped `&`, `<`, `>` or quotes, so the
        // text is escaped before it is base64-encoded (docs/product-rules.md#write-shapes: base64 of the note text).
        Content: Buffer.from(escapeHtml(request.text), "utf8").toString("base64"),
        FirstPublishLocationId: request.recordId,
        ShareType: SHARE_TYPE,
      };
    case "rollup":
      return {
        WhatId: request.accountId,
        Subject: truncate(rollupSubject(request.day), TITLE_MAX),
        Description: request.lines.join("\n"),
        Status: "Completed",
        ActivityDate: request.day,
      };
  }
}

function hubspotBody(request: WriteRequest): Record<string, unknown> {
  switch (request.kind) {
    case "last_move":
      return {
        properties: {
          [request.fields.last_move]: request.event.title,
          [request.fields.last_move_date]: utcDate(request.event.detected_at),
          [request.fields.last_move_severity]: request.event.severity,
        },
      };
    case "note":
      return {
        properties: { crm_timestamp: request.timestamp.toISOString(), crm_note_body: request.text },
        associations: [association(request.recordId, NOTE_TO_DEAL_ASSOCIATION)],
      };
    case "rollup":
      return {
        properties: {
          // The rollup covers the whole day: it is stamped at the day's start (UTC), so it sorts under that day.
          crm_timestamp: `${request.day}T00:00:00.000Z`,
          crm_note_body: [rollupSubject(request.day), ...request.lines].join("\n"),
        },
        associations: [association(request.accountId, NOTE_TO_COMPANY_ASSOCIATION)],
      };
  }
}

function association(id: string, typeId: number) {
  return { to: { id }, types: [{ associationCategory: ASSOCIATION_CATEGORY, associationTypeId: typeId }] };
}

/** The names a write of this kind may carry; the three configured fields only on the PATCH. */
function allowedNames(provider: Provider, request: WriteRequest): readonly string[] {
  if (request.kind === "last_move") return FIELD_ROLES.map((role) => request.fields[role]);
  if (provider === "hubspot") return HUBSPOT_NOTE_PROPERTIES;
  return request.kind === "note" ? SALESFORCE_NOTE_FIELDS : SALESFORCE_TASK_FIELDS;
}

/**
 * The guard: throws ForbiddenPropertyError unless every property of `body` is allowed for this write and none is
 * protected. Exported so a test can hand it a body no builder would produce.
 */
export function assertAllowed(provider: Provider, request: WriteRequest, body: Record<string, unknown>): void {
  const allowed = new Set(allowedNames(provider, request));
  const check = (name: string) => {
    if (isProtectedProperty(name)) {
      throw new ForbiddenPropertyError(`refusing to write ${name}: the CRM write-back never changes it`);
    }
    if (!allowed.has(name)) {
      throw new ForbiddenPropertyError(`refusing to write ${name}: not on the ${provider} ${request.kind} allowlist`);
    }
  };
  if (provider === "salesforce") {
    for (const name of Object.keys(body)) check(name);
    return;
  }
  for (const key of Object.keys(body)) {
    if (key === "properties") continue;
    if (key !== "associations" || request.kind === "last_move") {
      throw new ForbiddenPropertyError(`refusing to send ${key}: not on the hubspot ${request.kind} allowlist`);
    }
    assertAssociationKeys(body.associations);
  }
  const properties = body.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    throw new ForbiddenPropertyError("a HubSpot write carries its values in `properties`");
  }
  for (const name of Object.keys(properties)) check(name);
}

function assertAssociationKeys(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) assertAssociationKeys(item);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (!HUBSPOT_ASSOCIATION_KEYS.has(key)) {
      throw new ForbiddenPropertyError(`refusing to send ${key} in a HubSpot association`);
    }
    assertAssociationKeys(inner);
  }
}

function truncate(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
