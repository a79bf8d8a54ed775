import { BaseModel } from "../db/base-model.js";
import type { MonitorCadence, MonitorType } from "./monitor-types.js";

/** A partner monitor: one per (workspace, monitor type) (docs/product-rules.md#partner-api). */
export class PartnerMonitor extends BaseModel {
  static tableName = "partner_monitors";

  id!: string;
  workspace_id!: string;
  monitor_type!: MonitorType;
  label!: string | null;
  cadence!: MonitorCadence;
  enabled!: boolean;
  config_json!: Record<string, unknown> | null;
  created_at!: Date;
  updated_at!: Date;

  static get jsonAttributes() {
    return ["config_json"];
  }
}
