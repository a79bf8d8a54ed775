/**
 * The caller's own digest schedule (spec/plans.tsp, UserPreferences): four columns of the caller's `users` row, so
 * preferences are per user and follow them into every workspace they belong to.
 */
import type { components } from "../../generated/api-types.js";
import { forbidden, invalid, unauthorized } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import { isKnownTimezone } from "../lib/timezones.js";
import { limitsOf } from "../workspaces/plans.js";

export type UserPreferences = components["schemas"]["UserPreferences"];
type UserPreferencesUpdate = components["schemas"]["UserPreferencesUpdate"];

const COLUMNS = ["digest_frequency", "digest_hour_local", "digest_timezone", "digest_weekly_dow"] as const;

export class PreferenceService {
  constructor(private readonly workspace: Workspace) {}

  async get(): Promise<UserPreferences> {
    const row: UserPreferences | undefined = await this.workspace.scope
      .db("users")
      .where({ id: this.workspace.caller.userId })
      .first(...COLUMNS);
    // The token was verified moments ago; a user deleted since is what the documented 401 covers.
    if (!row) throw unauthorized();
    return row;
  }

  /**
   * PATCH semantics of UserPreferencesUpdate: an absent field and `null` both leave the field unchanged (none of them
   * can be empty). Range and enum checks are the schema's (422 before this runs); the rules it cannot express are here.
   */
  async update(input: UserPreferencesUpdate): Promise<UserPreferences> {
    const patch: Partial<UserPreferences> = {};
    if (input.digest_timezone != null) {
      // Stored as given, as sign-up does: the name is valid for both Intl and Postgres, whatever its letter case.
      if (!(await isKnownTimezone(this.workspace.scope.db, input.digest_timezone))) {
        throw invalid(["body", "digest_timezone"], `Unknown IANA time zone '${input.digest_timezone}'`);
      }
      patch.digest_timezone = input.digest_timezone;
    }
    if (input.digest_frequency != null) {
      if (input.digest_frequency === "daily") this.assertDailyDigestAllowed();
      patch.digest_frequency = input.digest_frequency;
    }
    if (input.digest_hour_local != null) patch.digest_hour_local = input.digest_hour_local;
    if (input.digest_weekly_dow != null) patch.digest_weekly_dow = input.digest_weekly_dow;
    if (Object.keys(patch).length === 0) return this.get();

    const { db } = this.workspace.scope;
    const [row] = await db("users")
      .where({ id: this.workspace.caller.userId })
      .update({ ...patch, updated_at: db.fn.now() })
      .returning(COLUMNS);
    if (!row) throw unauthorized();
    return row;
  }

  /** `daily` needs the caller's plan's `daily_digest` flag (docs/product-rules.md#plans-and-limits; 403 otherwise). */
  private assertDailyDigestAllowed(): void {
    const { plan } = this.workspace.caller;
    if (!limitsOf(plan).daily_digest) {
      throw forbidden(`The ${plan} plan does not include daily digests; choose weekly or off, or upgrade to Starter`);
    }
  }
}
