/**
 * A Slack incoming webhook on 127.0.0.1 (docs/architecture.md#external-systems: providers are fake servers speaking
 * their real wire format). Like hooks.slack.com it takes `POST /services/T…/B…/…` with a JSON body holding `text` or
 * `blocks`, answers `200 ok` in plain text, and refuses with Slack's own error strings (`400 invalid_payload`,
 * `400 no_text`, `404 no_service`). It records every request, and answers with queued failures first when a test asks.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SlackRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or null when it was not JSON. */
  body: any;
}

export interface SlackAnswer {
  status: number;
  /** Slack answers errors in plain text: `rollup_error`, `rate_limited`, `channel_is_archived`… */
  body: string;
  headers?: Record<string, string>;
}

export class FakeSlack {
  readonly requests: SlackRequest[] = [];
  /** The webhook path this fake accepts, as Slack issues them: /services/<team>/<bot>/<secret>. */
  readonly hookPath = "/services/T0RIVAL01/B0SCOPE01/abcdefghijklmnopqrstuvwx";
  baseUrl = "";
  private readonly queued: SlackAnswer[] = [];
  private server!: Server;

  /** The full incoming-webhook URL to store with slack-connect. */
  get webhookUrl(): string {
    return `${this.baseUrl}${this.hookPath}`;
  }

  /** The next requests get these answers, in order, before the fake goes back to `200 ok`. */
  failNext(...answers: SlackAnswer[]): this {
    this.queued.push(...answers);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let body: any = null;
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
        this.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
        const answer = this.queued.shift() ?? this.answer(req.method ?? "", req.url ?? "", body);
        res.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8", ...answer.headers });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(method: string, path: string, body: any): SlackAnswer {
    if (method !== "POST" || path !== this.hookPath) return { status: 404, body: "no_service" };
    if (body === null || typeof body !== "object") return { status: 400, body: "invalid_payload" };
    if (typeof body.text !== "string" && !Array.isArray(body.blocks)) return { status: 400, body: "no_text" };
    return { status: 200, body: "ok" };
  }
}
