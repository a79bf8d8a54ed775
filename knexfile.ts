// knex CLI configuration (`npx tsx node_modules/knex/bin/cli.js migrate:make name`). The service itself migrates on
// start (src/db/database.ts); this file only serves the CLI, against DATABASE_URL.
const config = {
  client: "pg",
  connection: process.env.DATABASE_URL,
  migrations: { directory: "./migrations", extension: "ts", loadExtensions: [".ts"] },
};

export default config;
