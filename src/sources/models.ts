import { BaseModel } from "../db/base-model.js";
import type { Schemas, SourceType, Wire } from "../http/schemas.js";

export class Source extends BaseModel {
  static tableName = "sources";

  id!: string;
  competitor_id!: string;
  workspace_id!: string;
  url!: string;
  normalized_url!: string;
  source_type!: SourceType;
  fetch_method!: Schemas["FetchMethod"];
  fetch_frequency_minutes!: number;
  is_active!: boolean;
  error_message!: string | null;
  last_error_at!: Date | null;
  last_fetched_at!: Date | null;
  last_success_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
  health_state!: Schemas["SourceHealthState"];
  health_reason!: Schemas["SourceHealthReason"] | null;
  health_detail!: string | null;
  health_action!: string | null;
  health_changed_at!: Date | null;
  health_notices_muted!: boolean;

  /**
   * The contract's Source shape, field by field: the row also holds internal columns (`workspace_id`, `etag`,
   * `fetch_job_id`, `consecutive_failures`, …) that a response must never carry.
   */
  toResponse(): Wire<Schemas["Source"]> {
    return {
      id: this.id,
      competitor_id: this.competitor_id,
      url: this.url,
      normalized_url: this.normalized_url,
      source_type: this.source_type,
      fetch_method: this.fetch_method,
      fetch_frequency_minutes: this.fetch_frequency_minutes,
      is_active: this.is_active,
      error_message: this.error_message,
      last_error_at: this.last_error_at,
      last_fetched_at: this.last_fetched_at,
      last_success_at: this.last_success_at,
      created_at: this.created_at,
      updated_at: this.updated_at,
      health_state: this.health_state,
      health_reason: this.health_reason,
      health_detail: this.health_detail,
      health_action: this.health_action,
      health_changed_at: this.health_changed_at,
      health_notices_muted: this.health_notices_muted,
    };
  }
}
