/**
 * A parse pool thread (src/detection/parse/parse-pool.ts): runs one task at a time and answers with its result or its
 * error. Loaded by parse-worker-boot.mjs, which lets this thread import TypeScript.
 */
import { parentPort } from "node:worker_threads";
import { runParseTask, type ParseKind } from "./parse-tasks.js";

export interface TaskMessage {
  id: number;
  kind: ParseKind;
  input: unknown;
}

export type ReplyMessage =
  { ready: true } | { id: number; ok: true; output: unknown } | { id: number; ok: false; error: string };

const port = parentPort!;
port.on("message", (task: TaskMessage) => {
  let reply: ReplyMessage;
  try {
    reply = { id: task.id, ok: true, output: runParseTask(task.kind, task.input as never) };
  } catch (error) {
    reply = { id: task.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
// The first parse in a thread also pays for loading and compiling the parsers: done here, before the thread takes
// tasks, so that it is not counted against a page's budget.
const WARM_UP =
  '<html><head><title>t</title></head><body><h1>Plans</h1><div class="plan"><h3>Pro</h3><p>$49/mo</p></div></body></html>';
runParseTask("extract", {
  body: WARM_UP,
  options: { url: "https://warm.up/", contentType: "text/html", fetchMethod: "http" },
});
runParseTask("extract", {
  body: "<rss><channel><item><title>t</title></item></channel></rss>",
  options: { url: "https://warm.up/", contentType: null, fetchMethod: "rss" },
});
runParseTask("homepage", { body: WARM_UP, url: "https://warm.up/" });
runParseTask("sitemap", { body: "<urlset><url><loc>https://warm.up/</loc></url></urlset>", limit: 1 });
port.postMessage({ ready: true } satisfies ReplyMessage);
