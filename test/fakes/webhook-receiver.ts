/**
 * A customer's webhook endpoint on 127.0.0.1: it records every request (headers and the exact raw body, for signature
 * checks) and answers what the test scripted for its path — a status with headers, a late answer, or a dropped
 * connection — then 200 once the script is used up.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: string;
  /** Date.now() when the request arrived. */
  receivedAt: number;
  /** The status answered; 0 when the connection was dropped. */
  status: number;
}

export type ScriptedReply =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  /** Close the connection without answering (a network error for the sender). */
  | "drop";

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, ScriptedReply[]>();
  private readonly fallbacks = new Map<string, ScriptedReply>();
  private readonly deciders = new Map<string, (headers: IncomingHttpHeaders) => ScriptedReply>();
  private server!: Server;
  baseUrl = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        const reply = this.scripts.get(path)?.shift() ?? this.fallbacks.get(path) ?? { status: 200 };
        this.requests.push({
          method: req.method ?? "",
          path,
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString("utf8"),
          receivedAt: Date.now(),
          status: reply === "drop" ? 0 : reply.status,
        });
        if (reply === "drop") {
          req.socket.destroy();
          return;
        }
        const answer = () =>
          res
            .writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
            .end(reply.body ?? '{"ok":true}');
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** Answers the next requests to `path` with these replies, in order (then the fallback, by default 200). */
  script(path: string, ...replies: ScriptedReply[]): this {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...replies]);
    return this;
  }

  /** Answers every request to `path` that no script covers with `reply`. */
  otherwise(path: string, reply: ScriptedReply): this {
    this.fallbacks.set(path, reply);
    return this;
  }

  /** Answers the requests to `path` that no script covers with what `decide` says, given the request's headers. */
  decide(path: string, decide: (headers: IncomingHttpHeaders) => ScriptedReply): this {
    this.deciders.set(path, decide);
    return this;
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
