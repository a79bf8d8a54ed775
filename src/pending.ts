/**
 * Operations added to the contract before their code (contract first: docs/architecture.md#contract-first-flow).
 * They answer `501 {"detail": "<operationId> is not available yet"}` until their area registers a handler. Every
 * operation is built today, so the list is empty; a test asserts that handlers and pending together cover every
 * operation of generated/openapi.json, with no overlap.
 */
import type { OperationId } from "./http/handler.js";

export const PENDING_OPERATIONS = [] as const satisfies readonly OperationId[];
