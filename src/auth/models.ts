import { BaseModel } from "../db/base-model.js";

export class User extends BaseModel {
  static tableName = "users";

  id!: string;
  email!: string;
  name!: string;
  password_hash!: string;
  is_admin!: boolean;
  /** Incremented by a password reset; access tokens of an older generation are refused (src/auth/tokens.ts). */
  token_generation!: number;
  digest_frequency!: "daily" | "weekly" | "off";
  digest_hour_local!: number;
  digest_timezone!: string;
  digest_weekly_dow!: number;
  created_at!: Date;
  updated_at!: Date;

  /** The contract's User shape: never the password hash. */
  toUserResponse() {
    return { id: this.id, email: this.email, name: this.name, is_admin: this.is_admin, created_at: this.created_at };
  }
}
