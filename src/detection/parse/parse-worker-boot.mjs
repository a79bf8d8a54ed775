/**
 * Entry of a parse pool thread (src/detection/parse/parse-pool.ts). The service runs its TypeScript sources under tsx
 * (`npm start` is `tsx src/main.ts`), and a worker thread does not get tsx's loader for its entry file, whatever
 * the parent's execArgv (docs/stack-notes.md#worker-threads-under-tsx): this plain module registers tsx in the
 * thread, then imports the worker.
 */
/* global URL */
import { register } from "tsx/esm/api";

register();
await import(new URL("./parse-worker.ts", import.meta.url).href);
