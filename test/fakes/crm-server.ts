/**
 * What the fake CRMs (test/fakes/salesforce.ts, test/fakes/hubspot.ts) share: a real HTTP server on 127.0.0.1 that
 * checks `Authorization: Bearer <token>`, records every request (method, path, query, headers, parsed body), and
 * answers scripted failures before its normal behaviour (docs/architecture.md#external-systems: providers are fake
 * servers speaking their real wire format; tests assert on the recorded requests).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  /** The decoded query parameters. */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, null without one. */
  body: any;
  rawBody: string;
  receivedAt: number;
}

export interface VendorReply {
  status: number;
  /** Sent as JSON; omitted for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestMatch {
  method?: string;
  /** An exact path, or a pattern. */
  path?: string | RegExp;
}

interface Scripted {
  match: RequestMatch;
  reply: VendorReply;
  remaining: number;
}

export abstract class FakeCrmServer {
  readonly requests: RecordedRequest[] = [];
  baseUrl = "";
  /** The bearer token the fake accepts; change it to make every call a 401. */
  abstract token: string;
  private readonly scripted: Scripted[] = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://fake");
        const rawBody = Buffer.concat(chunks).toString("utf8");
        let body: any = null;
        if (rawBody !== "") {
          try {
            body = JSON.parse(rawBody);
          } catch {
            body = rawBody;
          }
        }
        const request: RecordedRequest = {
          method: req.method ?? "",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body,
          rawBody,
          receivedAt: Date.now(),
        };
        this.requests.push(request);
        const reply =
          this.takeScripted(request) ??
          (req.headers.authorization === `Bearer ${this.token}` ? this.handle(request) : this.unauthorized());
        const headers: Record<string, string> = { ...reply.headers };
        if (reply.body !== undefined) headers["content-type"] = "application/json;charset=UTF-8";
        res.writeHead(reply.status, headers);
        res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
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

  /** Answers the next `times` requests matching `match` with `reply`, before (and instead of) the normal answer. */
  fail(match: RequestMatch, reply: VendorReply, times = 1): this {
    return this.answer(match, reply, times);
  }

  /**
   * Like `fail`, for a scripted answer that is not a failure (a misbehaving vendor's 200); `times` may be Infinity, for
   * a vendor that answers so for ever.
   */
  answer(match: RequestMatch, reply: VendorReply, times = 1): this {
    this.scripted.push({ match, reply, remaining: times });
    return this;
  }

  /** Forgets the recorded requests (the stored records stay). */
  clearRequests(): void {
    this.requests.length = 0;
  }

  /** The requests that match, in order. */
  requestsTo(match: RequestMatch): RecordedRequest[] {
    return this.requests.filter((request) => matches(match, request));
  }

  protected abstract handle(request: RecordedRequest): VendorReply;
  protected abstract unauthorized(): VendorReply;

  private takeScripted(request: RecordedRequest): VendorReply | null {
    const entry = this.scripted.find((s) => s.remaining > 0 && matches(s.match, request));
    if (!entry) return null;
    entry.remaining--;
    return entry.reply;
  }
}

function matches(match: RequestMatch, request: RecordedRequest): boolean {
  if (match.method && match.method !== request.method) return false;
  if (match.path === undefined) return true;
  return typeof match.path === "string" ? match.path === request.path : match.path.test(request.path);
}
