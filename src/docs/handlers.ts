/**
 * `GET /openapi.json` and `GET /docs`. The reference UI is Swagger UI served from the `swagger-ui-dist` package's
 * own files under /docs/assets: no CDN, so it works on machines without internet access.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { openApiDocument } from "../contract.js";
import { type AreaHandlers } from "../http/handler.js";

const require = createRequire(import.meta.url);

export function docsAssetsDirectory(): string {
  return path.dirname(require.resolve("swagger-ui-dist/package.json"));
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Rivalscope API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>body { margin: 0; } .swagger-ui .topbar { display: none; }</style>
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script>
      window.ui = SwaggerUIBundle({
        url: "/openapi.json",
        dom_id: "#swagger-ui",
        deepLinking: true,
        persistAuthorization: true,
        displayOperationId: true,
      });
    </script>
  </body>
</html>
`;

export const docsHandlers: AreaHandlers = {
  /** The contract, with the server list pointing at this deployment so "Try it out" calls it. */
  getOpenApiDocument: async (ctx) =>
    ctx.reply.ok({
      ...openApiDocument(),
      servers: [{ url: ctx.services.config.publicBaseUrl, description: "This deployment" }],
    }),

  getApiDocs: async (ctx) => ctx.reply.okText(DOCS_PAGE, "text/html; charset=utf-8"),
};
