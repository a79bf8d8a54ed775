/**
 * Who may call what, beyond "has a valid token" (docs/product-rules.md#access-and-roles), decided in one place from the
 * operation so no handler can forget it. Runs after authentication and before request validation.
 */
import { limitsOf } from "../workspaces/plans.js";
import { forbidden, type ApiError } from "./errors.js";
import type { AuthContext, OperationId } from "./handler.js";

/**
 * Members use every workspace endpoint except billing, the deliveries admin view, and the partner operations that
 * decide where a workspace's alerts go or what it watches (docs/product-rules.md#access-and-roles): a member could
 * otherwise send the alerts to outside addresses, and those would outlive the member's removal.
 */
const OWNER_ONLY: ReadonlySet<OperationId> = new Set<OperationId>([
  "createCheckoutSession",
  "createBillingPortalSession",
  "listDigestDeliveries",
  "subscribePartnerAlerts",
  "registerPartnerMonitor",
  // What the workspace is told about its sources, and what it has taught detection to ignore, apply to every member:
  // an owner decides (docs/product-rules.md#source-health, docs/product-rules.md#learned-rules).
  "updateSourceHealth",
  "deleteLearnedRule",
]);

export function accessError(operationId: OperationId, pathTemplate: string, caller: AuthContext): ApiError | null {
  // `/admin/*` and `/support/*` (the vendor's own inbox) are for platform admins only.
  if (pathTemplate.startsWith("/admin/") || pathTemplate.startsWith("/support/")) {
    return caller.isAdmin ? null : forbidden("Platform administrators only");
  }
  // The partner API exists only for machine integration, which needs `api_access` (Growth and above).
  if (pathTemplate.startsWith("/v1/") && !limitsOf(caller.plan).api_access) {
    return forbidden(
      `The partner API needs a plan with API access (Growth or Enterprise); this workspace is on ${caller.plan}`,
    );
  }
  if (OWNER_ONLY.has(operationId) && caller.role !== "owner") {
    return forbidden("Only workspace owners may do this");
  }
  return null;
}
