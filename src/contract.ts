import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Document } from "openapi-backend";
import type { OperationId } from "./http/handler.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

let cachedDocument: Document | undefined;

/** generated/openapi.json, parsed once per process: the contract every route, validator and test reads. */
export function openApiDocument(): Document {
  cachedDocument ??= JSON.parse(readFileSync(path.join(root, "generated/openapi.json"), "utf8")) as Document;
  return cachedDocument;
}

export interface ContractOperation {
  operationId: OperationId;
  method: string;
  path: string;
}

/** Every operation of the contract (routing needs no initialised backend for this). */
export function contractOperations(): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries(openApiDocument().paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const id = (operation as { operationId?: string } | undefined)?.operationId;
      if (id) operations.push({ operationId: id as OperationId, method, path });
    }
  }
  return operations;
}
