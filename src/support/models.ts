/**
 * The support inbox's rows (migrations/20261124190000_support_inbox.ts). Not tenant tables: the inbox is the vendor's
 * own and belongs to no workspace (docs/product-rules.md#support-inbox).
 */
import type { components } from "../../generated/api-types.js";
import { BaseModel } from "../db/base-model.js";

type Schemas = components["schemas"];

export class SupportThread extends BaseModel {
  static tableName = "support_threads";

  id!: string;
  provider_thread_id!: string;
  provider_inbox_id!: string;
  inbox_address!: string | null;
  subject!: string;
  sender_name!: string;
  sender_email!: string;
  category!: Schemas["SupportThread"]["category"];
  severity!: Schemas["Severity"];
  status!: Schemas["SupportThreadStatus"];
  needs_human!: boolean;
  triage_summary!: string | null;
  latest_draft!: string | null;
  triage_model!: string | null;
  message_count!: number;
  created_at!: Date;
  last_message_at!: Date;
  updated_at!: Date;

  toResponse(): Schemas["SupportThread"] {
    return {
      id: this.id,
      subject: this.subject,
      sender_name: this.sender_name,
      sender_email: this.sender_email,
      category: this.category,
      severity: this.severity,
      status: this.status,
      needs_human: this.needs_human,
      triage_summary: this.triage_summary,
      latest_draft: this.latest_draft,
      triage_model: this.triage_model,
      message_count: this.message_count,
      created_at: this.created_at.toISOString(),
      last_message_at: this.last_message_at.toISOString(),
    };
  }
}

export class SupportMessage extends BaseModel {
  static tableName = "support_messages";
  static hasUpdatedAt = false;

  id!: string;
  seq!: string;
  thread_id!: string;
  direction!: Schemas["SupportMessageDirection"];
  provider_message_id!: string | null;
  from_email!: string;
  from_name!: string | null;
  text!: string;
  created_at!: Date;
  stored_at!: Date;

  toResponse(): Schemas["SupportMessage"] {
    return {
      id: this.id,
      direction: this.direction,
      from_email: this.from_email,
      from_name: this.from_name,
      text: this.text,
      created_at: this.created_at.toISOString(),
      provider_message_id: this.provider_message_id,
    };
  }
}

export class SupportInbox extends BaseModel {
  static tableName = "support_inboxes";
  static idColumn = "client_id";

  client_id!: string;
  provider_inbox_id!: string;
  email!: string;
  webhook_id!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
