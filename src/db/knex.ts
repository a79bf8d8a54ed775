import knexFactory, { type Knex } from "knex";
import { Model } from "objection";
import pg from "pg";
import { MIGRATIONS } from "../../migrations/index.js";

// Return timestamps as Date and bigint counts as numbers (counts never reach 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** Serves knex the statically imported migrations of migrations/index.ts. */
const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS.find(([candidate]) => candidate === name)![1],
};

export function createKnex(connectionString: string, pool: { min?: number; max?: number } = {}): Knex {
  return knexFactory({
    client: "pg",
    connection: { connectionString },
    pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
    migrations: { migrationSource, tableName: "knex_migrations" },
    log: {
      // knex prints a failed connection with its stack before handing the caller the same error, which the caller
      // reports its own way (a one-line CLI error, a logged 503); other warnings (deprecations) still reach stderr.
      warn: (message: string) => {
        if (!message.startsWith("Acquire connection error")) console.warn(`knex: ${message}`);
      },
    },
  });
}

/** Binds every Objection model to this knex instance (one database per process). */
export function bindModels(knex: Knex): void {
  Model.knex(knex);
}

export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest({ migrationSource });
}
