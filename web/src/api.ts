/**
 * The app's only way to the server: the SDK generated from the published contract (generated/sdk.ts, openapi-fetch)
 * and TanStack Query over it (openapi-react-query). A path, parameter or field the contract lacks does not compile.
 *
 * Where the token is kept: nowhere the app's scripts can read. Signing in calls `POST /auth/session`, which sets the
 * token as an HttpOnly, SameSite=Strict cookie (docs/product-rules.md#web-app-sessions); the browser sends it with
 * every same-origin call. Changes carry `X-Rivalscope-Client: web`, without which the server ignores the cookie, so
 * another site's page cannot act with it.
 */
import { createRivalscopeClient, type components } from "../../generated/sdk.js";

export type Schemas = components["schemas"];

export const client = createRivalscopeClient({ baseUrl: window.location.origin, credentials: "same-origin" });
client.use({
  onRequest({ request }) {
    request.headers.set("X-Rivalscope-Client", "web");
    return request;
  },
});

/** The message of an API error envelope (docs/product-rules.md#error-envelopes), for people. */
export function errorText(error: unknown): string {
  if (!error) return "";
  const detail = (error as { detail?: unknown }).detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item: { loc?: unknown[]; msg?: string }) => {
        const field = (item.loc ?? []).slice(1).join(".");
        return field ? `${field}: ${item.msg}` : (item.msg ?? "");
      })
      .join("; ");
  }
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}
