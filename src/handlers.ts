/**
 * The handler registry: every area's handler map merged into one, keyed by operationId
 * (docs/architecture.md#contract-first-flow). A test asserts handlers ∪ pending = the operations of
 * generated/openapi.json and handlers ∩ pending = ∅.
 */
import { adminHandlers } from "./admin/handlers.js";
import { alertRuleHandlers } from "./alert-rules/handlers.js";
import { authHandlers } from "./auth/handlers.js";
import { chatHandlers } from "./chat/handlers.js";
import { billingHandlers } from "./billing/handlers.js";
import { competitorHandlers } from "./competitors/handlers.js";
import { digestHandlers } from "./digests/handlers.js";
import { discoveryHandlers } from "./discovery/handlers.js";
import { displacementHandlers } from "./displacement/handlers.js";
import { docsHandlers } from "./docs/handlers.js";
import { eventHandlers } from "./events/handlers.js";
import { firehoseHandlers } from "./firehose/handlers.js";
import { healthHandlers } from "./health/handlers.js";
import { insightHandlers } from "./insights/handlers.js";
import { learningHandlers } from "./learning/handlers.js";
import { marketingHandlers } from "./marketing/handlers.js";
import type { AreaHandlers, OperationId, Reply } from "./http/handler.js";
import { partnerHandlers } from "./partner/handlers.js";
import { PENDING_OPERATIONS } from "./pending.js";
import { preferenceHandlers } from "./preferences/handlers.js";
import { sourceHandlers } from "./sources/handlers.js";
import { statsHandlers } from "./stats/handlers.js";
import { suppressionHandlers } from "./suppressions/handlers.js";
import { supportHandlers } from "./support/handlers.js";

const AREAS: AreaHandlers[] = [
  authHandlers,
  competitorHandlers,
  sourceHandlers,
  discoveryHandlers,
  eventHandlers,
  insightHandlers,
  adminHandlers,
  healthHandlers,
  docsHandlers,
  alertRuleHandlers,
  preferenceHandlers,
  suppressionHandlers,
  digestHandlers,
  billingHandlers,
  firehoseHandlers,
  statsHandlers,
  marketingHandlers,
  supportHandlers,
  partnerHandlers,
  displacementHandlers,
  chatHandlers,
  learningHandlers,
];

function merge(areas: AreaHandlers[]): AreaHandlers {
  const merged: AreaHandlers = {};
  for (const area of areas) {
    for (const [operationId, handler] of Object.entries(area)) {
      if (operationId in merged) throw new Error(`two areas handle ${operationId}`);
      (merged as Record<string, unknown>)[operationId] = handler;
    }
  }
  return merged;
}

export const HANDLERS: AreaHandlers = merge(AREAS);
export const PENDING: ReadonlySet<OperationId> = new Set(PENDING_OPERATIONS);

export function pendingReply(operationId: OperationId): Reply {
  return { status: 501, body: { detail: `${operationId} is not available yet` } };
}
