import { Model } from "objection";

/** Base of every model: snake_case columns are the JSON field names (docs/architecture.md#one-name-per-field). */
export class BaseModel extends Model {
  /** Models whose table has `updated_at` keep it current on every update. */
  static hasUpdatedAt = true;

  $beforeUpdate(): void {
    if ((this.constructor as typeof BaseModel).hasUpdatedAt)
      (this as unknown as { updated_at: Date }).updated_at = new Date();
  }
}
