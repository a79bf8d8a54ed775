import { BaseModel } from "../db/base-model.js";
import type { PlanName } from "./plans.js";

export type MemberRole = "owner" | "member";

export class Workspace extends BaseModel {
  static tableName = "workspaces";

  id!: string;
  name!: string;
  plan!: PlanName;
  status!: string;
  parent_workspace_id!: string | null;
  company_name!: string | null;
  customer_email!: string | null;
  industry!: string | null;
  website_url!: string | null;
  external_audit_id!: string | null;
  is_demo!: boolean;
  payments_customer_id!: string | null;
  payments_subscription_id!: string | null;
  subscription_status!: string | null;
  current_period_end!: Date | null;
  /** The provider's time of the newest payments event applied to the billing state (src/billing/webhook.ts). */
  payments_state_at!: Date | null;
  beta_claimed_at!: Date | null;
  beta_grandfathered!: boolean;
  slack_webhook_url!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
