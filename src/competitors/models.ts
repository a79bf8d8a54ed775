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
}
