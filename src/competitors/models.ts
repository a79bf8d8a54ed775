import type { QueryBuilder } from "objection";
import { BaseModel } from "../db/base-model.js";

export class Competitor extends BaseModel {
  static tableName = "competitors";

  id!: string;
  workspace_id!: string;
  name!: string;
  domain!: string;
  aliases!: string[] | null;
  description!: string | null;
  created_at!: Date;
  updated_at!: Date;

  // jsonb column: objection (de)serialises it.
  static get jsonAttributes() {
    return ["aliases"];
  }

  static modifiers = {
    /** Tenant scope (STYLE.md habit 4): every query for a client names its workspace. */
    forWorkspace(query: QueryBuilder<Competitor>, workspaceId: string) {
      query.where("competitors.workspace_id", workspaceId);
    },
  };
}

export class Source extends BaseModel {
  static tableName = "sources";

  id!: string;
  competitor_id!: string;
  workspace_id!: string;
  url!: string;
  normalized_url!: string;
  source_type!: string;
  fetch_method!: "http" | "rss";
  fetch_frequency_minutes!: number;
  is_active!: boolean;
  error_message!: string | null;
  last_error_at!: Date | null;
  last_fetched_at!: Date | null;
  last_success_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;

  static modifiers = {
    forWorkspace(query: QueryBuilder<Source>, workspaceId: string) {
      query.where("sources.workspace_id", workspaceId);
    },
  };

  /** The contract's Source shape (`workspace_id` is internal). */
  toResponse() {
    const { workspace_id: _internal, ...rest } = this.toJSON() as Record<string, unknown>;
    return rest;
  }
}
