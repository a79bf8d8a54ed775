/**
 * A customer's webhook endpoint on 127.0.0.1 for load: thousands of deliveries, each recorded with what it was
 * answered. It can fail every other request with a 503 (the load test of
 * docs/architecture.md#performance-targets: a receiver failing half its requests) and hold its answers, so that a test
 * can be sure deliveries are in flight when it kills a worker. Used by test/webhooks/load.test.ts and
 * bench/webhooks.ts; test/fakes/webhook-receiver.ts scripts single requests.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoadRequest {
  /** The `x-ci-event-id` header. */
  eventId: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received, for signature checks. */
  rawBody: string;
  /** The status this receiver answered, or null while the answer is held (or was never sent: the caller died). */
  status: number | null;
  /** performance.now() of this process when the whole request had arrived. */
  receivedAt: number;
  /** 0-based arrival order. */
  sequence: number;
}

export interface LoadReceiverOptions {
  /** Answer requests 1, 3, 5… (in arrival order) with 503 and the others with 200; otherwise always 200. */
  failEveryOther?: boolean;
  /** Answer each request this long after it arrived (a slow endpoint), until `release()`. */
  delayMs?: number;
}

export class LoadWebhookReceiver {
  readonly requests: LoadRequest[] = [];
  private readonly held: { request: LoadRequest; res: ServerResponse }[] = [];
  private holding = false;
  private delayMs: number;
  private delayed = 0;
  private server!: Server;
  private readonly waiters = new Set<() => void>();
  baseUrl = "";

  constructor(private readonly options: LoadReceiverOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request: LoadRequest = {
          eventId: String(req.headers["x-ci-event-id"] ?? ""),
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString("utf8"),
          status: null,
          receivedAt: performance.now(),
          sequence: this.requests.length,
        };
        this.requests.push(request);
        if (this.holding) this.held.push({ request, res });
        else if (this.delayMs > 0) {
          this.delayed++;
          setTimeout(() => {
            this.delayed--;
            this.answer(request, res);
          }, this.delayMs);
        } else this.answer(request, res);
        for (const wake of this.waiters) wake();
      });
    });
    // Thousands of keep-alive connections from the workers' pools: let them all in.
    this.server.maxConnections = 100_000;
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", 1024, resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path = "/hook"): string {
    return `${this.baseUrl}${path}`;
  }

  /** From now on, requests are recorded but not answered until `release()` (delayed ones still get their answer). */
  hold(): void {
    this.holding = true;
  }

  /** Answers every held request at once, and every later one without delay. */
  release(): void {
    this.holding = false;
    this.delayMs = 0;
    for (const { request, res } of this.held.splice(0)) this.answer(request, res);
  }

  get heldCount(): number {
    return this.held.length;
  }

  /** Requests waiting for their delayed answer. */
  get delayedCount(): number {
    return this.delayed;
  }

  /** Resolves at the next request that arrives (or after `timeoutMs`): lets a waiting loop sleep until news. */
  nextRequest(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private answer(request: LoadRequest, res: ServerResponse): void {
    // A sender that died meanwhile is never answered (its status stays null): its socket is gone or, after the FIN of
    // a killed process, half-closed (a live client never half-closes while it waits for an answer).
    const socket = res.socket;
    if (!socket || socket.destroyed || socket.readableEnded) {
      socket?.destroy();
      return;
    }
    const status = this.options.failEveryOther && request.sequence % 2 === 0 ? 503 : 200;
    request.status = status;
    res.writeHead(status, { "content-type": "application/json" }).end(status === 200 ? '{"ok":true}' : '{"error":1}');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
