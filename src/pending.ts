/**
 * Operations whose area is not built yet (their rules: docs/product-rules.md). They are in the contract already and
 * answer `501 {"detail": "<operationId> is not available yet"}`. This list must only shrink: a test asserts that
 * handlers and pending together cover every operation of generated/openapi.json, with no overlap.
 */
import type { OperationId } from "./http/handler.js";

export const PENDING_OPERATIONS = [
  // Plans and billing.
  "getMyPlan",
  "createBetaClaim",
  "createCheckoutSession",
  "createBillingPortalSession",
  "receivePaymentsWebhook",
  // Displacement tracking.
  "listTargetAccounts",
  "createTargetAccount",
  "getTargetAccountCadence",
  "getTargetAccount",
  "updateTargetAccount",
  "deleteTargetAccount",
  "createAccountSignal",
  "generateAccountTeardown",
  "listAccountTeardowns",
  "listSwitcherStories",
  "createSwitcherStory",
  "updateSwitcherStory",
  "deleteSwitcherStory",
  // Partner API.
  "createPartnerWorkspace",
  "getPartnerWorkspace",
  "subscribePartnerAlerts",
  "getPartnerDigest",
  "listPartnerEvents",
  "registerPartnerMonitor",
  "getPartnerMonitorHealth",
  // Support inbox.
  "setupSupportInbox",
  "syncSupportInbox",
  "listSupportThreads",
  "getSupportThread",
  "closeSupportThread",
  "escalateSupportThread",
  "replyToSupportThread",
  "receiveSupportInboundMail",
  // Admin and operations, public stats, chat.
  "getDemoWorkspace",
  "setDemoWorkspace",
  "clearDemoWorkspace",
  "listFirehoseMonitors",
  "getDemoFeed",
  "getHeroStat",
  "trackMarketingEvent",
  "sendChatMessage",
] as const satisfies readonly OperationId[];
