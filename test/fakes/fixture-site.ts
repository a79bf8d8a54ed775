/**
 * A competitor's website on 127.0.0.1 whose pages tests change between fetches. It speaks plain HTTP like a real
 * site: ETag/If-None-Match, redirects, status codes, content types; and it records every request.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/sites");

export interface Page {
  body?: string;
  /** Raw bytes to answer with instead of `body` (an image, a PDF, bytes in no text encoding). */
  bytes?: Buffer;
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  /** Answer with a redirect to this location instead. */
  redirect?: string;
  /** Wait before answering (timeouts). */
  delayMs?: number;
  /** Send an ETag and honour If-None-Match (304). */
  etag?: boolean;
}

export class FixtureSite {
  readonly requests: { path: string; headers: IncomingMessage["headers"] }[] = [];
  private readonly pages = new Map<string, Page>();
  private server!: Server;
  baseUrl = "";

  static fixture(name: string): string {
    return readFileSync(path.join(fixturesDir, name), "utf8");
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      this.requests.push({ path: url.pathname, headers: req.headers });
      const page = this.pages.get(url.pathname);
      const answer = () => {
        if (!page) {
          res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
          return;
        }
        if (page.redirect) {
          res.writeHead(page.status ?? 302, { location: page.redirect }).end();
          return;
        }
        const body = page.bytes ?? page.body ?? "";
        const headers: Record<string, string> = {
          "content-type": page.contentType ?? "text/html; charset=utf-8",
          ...page.headers,
        };
        if (page.etag) {
          const etag = `"${createHash("sha1").update(body).digest("hex")}"`;
          headers.etag = etag;
          if (req.headers["if-none-match"] === etag) {
            res.writeHead(304, headers).end();
            return;
          }
        }
        res.writeHead(page.status ?? 200, headers).end(body);
      };
      if (page?.delayMs) setTimeout(answer, page.delayMs);
      else answer();
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Serves `page` at `pathname` (replacing what was there). */
  set(pathname: string, page: Page | string): this {
    this.pages.set(pathname, typeof page === "string" ? { body: page } : page);
    return this;
  }

  /** Serves a file of test/fixtures/sites at `pathname`. */
  serveFixture(pathname: string, fixture: string, page: Omit<Page, "body"> = {}): this {
    const contentType = fixture.endsWith(".xml") ? "application/rss+xml; charset=utf-8" : "text/html; charset=utf-8";
    return this.set(pathname, { contentType, ...page, body: FixtureSite.fixture(fixture) });
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  requestsTo(pathname: string): number {
    return this.requests.filter((r) => r.path === pathname).length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
