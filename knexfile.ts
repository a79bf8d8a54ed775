/**
 * knex CLI configuration, for generating migration files:
 *   npx tsx node_modules/knex/bin/cli.js migrate:make <name> --knexfile knexfile.ts
 * then add the new file to migrations/index.ts. The service migrates itself on start (src/db/database.ts) from that
 * list, so running migrations never depends on how the CLI loads TypeScript.
 */
import { loadConfig } from "./src/config.js";

const config = {
  client: "pg",
  connection: loadConfig().databaseUrl ?? undefined,
  migrations: { directory: "./migrations", extension: "ts" },
};

export default config;
