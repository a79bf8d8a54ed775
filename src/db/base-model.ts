import { Model } from "objection";

/** Base of every model: snake_case columns are the JSON field names (STYLE.md habit 7); `updated_at` kept current. */
export class BaseModel extends Model {
  $beforeUpdate(): void {
    if ("updated_at" in this.constructor.prototype || (this as Record<string, unknown>).updated_at !== undefined) {
      (this as Record<string, unknown>).updated_at = new Date();
    }
  }
}
