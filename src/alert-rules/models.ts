import type { components } from "../../generated/api-types.js";
import { BaseModel } from "../db/base-model.js";

type Schemas = components["schemas"];

export class AlertRule extends BaseModel {
  static tableName = "alert_rules";

  id!: string;
  workspace_id!: string;
  competitor_id!: string | null;
  name!: string;
  confidence_threshold!: number;
  delivery_channels_json!: Schemas["DeliveryChannel"][];
  event_types_json!: Schemas["EventType"][] | null;
  frequency!: Schemas["AlertFrequency"];
  severity_threshold!: Schemas["Severity"];
  is_active!: boolean;
  is_default!: boolean;
  /** Addresses the rule mails instead of the members (the partner rule, docs/product-rules.md#partner-api); internal. */
  email_recipients_json!: string[] | null;
  /** Partner monitor types the rule is limited to (docs/product-rules.md#partner-api); internal. */
  monitor_types_json!: string[] | null;
  /** The source health transitions the rule alerts on (docs/product-rules.md#source-health). */
  notice_types_json!: Schemas["SourceNoticeType"][];
  created_at!: Date;
  updated_at!: Date;

  // jsonb columns: objection (de)serialises them.
  static get jsonAttributes() {
    return [
      "delivery_channels_json",
      "event_types_json",
      "email_recipients_json",
      "monitor_types_json",
      "notice_types_json",
    ];
  }

  /** The contract's AlertRule shape (the timestamps are internal: they only order the list). */
  toResponse(): Schemas["AlertRule"] {
    return {
      id: this.id,
      workspace_id: this.workspace_id,
      competitor_id: this.competitor_id,
      name: this.name,
      confidence_threshold: this.confidence_threshold,
      delivery_channels_json: this.delivery_channels_json,
      event_types_json: this.event_types_json,
      frequency: this.frequency,
      severity_threshold: this.severity_threshold,
      is_active: this.is_active,
      is_default: this.is_default,
      notice_types_json: this.notice_types_json ?? [],
    };
  }
}
