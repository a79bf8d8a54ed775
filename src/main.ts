/** Entry point: `npm start` (ROLE=all by default). Exits non-zero with a one-line reason on bad configuration. */
import { ConfigError, loadConfig } from "./config.js";
import { startService } from "./server.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await startService(config);
  const shutdown = (signal: string) => {
    service.services.log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    service.stop().then(
      () => process.exit(0),
      (error) => {
        service.services.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `configuration error: ${error.message}` : error);
  process.exit(1);
});
