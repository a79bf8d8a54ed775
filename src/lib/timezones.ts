/**
 * Time zones a member may choose for their digest schedule (docs/product-rules.md#schedule). The name must be known to
 * both places that evaluate it: Node (Intl, when rendering times) and Postgres (`AT TIME ZONE`, when the scheduler
 * finds due digests). Node also accepts Java-style aliases such as `AET`, `CTT` and `PST` that Postgres refuses; one
 * such row used to fail the schedule's statement for every tenant.
 */
import type { Knex } from "knex";

/** Whether Node's Intl knows `name` (e.g. `Europe/Paris`, `UTC`). */
export function isIntlTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

// Postgres's zone names (lowercased: it matches them case-insensitively) are fixed for the life of the server
// process, so they are read once per process.
let postgresZones: Promise<Set<string>> | undefined;

function postgresTimezones(db: Knex | Knex.Transaction): Promise<Set<string>> {
  postgresZones ??= db
    .raw<{ rows: { name: string }[] }>("SELECT name FROM pg_timezone_names")
    .then(({ rows }) => new Set(rows.map((row) => row.name.toLowerCase())))
    .catch((error: unknown) => {
      postgresZones = undefined;
      throw error;
    });
  return postgresZones;
}

/** Whether both Node and Postgres know the zone `name`. */
export async function isKnownTimezone(db: Knex | Knex.Transaction, name: string): Promise<boolean> {
  if (!isIntlTimezone(name)) return false;
  return (await postgresTimezones(db)).has(name.toLowerCase());
}
