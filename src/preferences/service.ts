/**
 * The caller's own digest schedule (spec/plans.tsp, UserPreferences): four columns of the caller's `users` row, so
 * preferences are per user and follow them into every workspace they belong to.
 */
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { forbidden, invalid, unauthorized } from "../http/errors.js";
import type { AuthContext } from "../http/handler.js";
import { isIanaTimezone } from "../lib/timezones.js";
import { limitsOf, type PlanName } from "../workspaces/plans.js";

export type UserPreferences = components["schemas"]["UserPreferences"];
type UserPreferencesUpdate = components["schemas"]["UserPreferencesUpdate"];

const COLUMNS = ["digest_frequency", "digest_hour_local", "digest_timezone", "digest_weekly_dow"] as const;

export class PreferenceService {
  constructor(
    private readonly knex: Knex,
    private readonly caller: AuthContext,
  ) {}

  async get(): Promise<UserPreferences> {
    const row: UserPreferences | undefined = await this.knex("users")
      .where({ id: this.caller.userId })
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
      if (!isIanaTimezone(input.digest_timezone)) {
        throw invalid(["body", "digest_timezone"], `Unknown IANA time zone '${input.digest_timezone}'`);
      }
      patch.digest_timezone = input.digest_timezone;
    }
    if (input.digest_frequency != null) {
      if (input.digest_frequency === "daily") await this.assertDailyDigestAllowed();
      patch.digest_frequency = input.digest_frequency;
    }
    if (input.digest_hour_local != null) patch.digest_hour_local = input.digest_hour_local;
    if (input.digest_weekly_dow != null) patch.digest_weekly_dow = input.digest_weekly_dow;
    if (Object.keys(patch).length === 0) return this.get();

    const [row] = await this.knex("users")
      .where({ id: this.caller.userId })
      .update({ ...patch, updated_at: this.knex.fn.now() })
      .returning(COLUMNS);
    if (!row) throw unauthorized();
    return row;
  }

  /**
   * `daily` needs the plan's `daily_digest` flag (docs/product-rules.md#plans-and-limits; 403 otherwise). The plan is
   * read from the workspace row rather than the caller cached with the token, so an upgrade takes effect at once.
   */
  private async assertDailyDigestAllowed(): Promise<void> {
    const workspace: { plan: PlanName } | undefined = await this.knex("workspaces")
      .where({ id: this.caller.workspaceId })
      .first("plan");
    const plan = workspace?.plan ?? this.caller.plan;
    if (!limitsOf(plan).daily_digest) {
      throw forbidden(`The ${plan} plan does not include daily digests; choose weekly or off, or upgrade to Starter`);
    }
  }
}
