import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, createHttpClient, type HttpClient, type HttpClientOptions } from "../../src/lib/http-client.js";

// A real HTTP server on 127.0.0.1 plays every remote party; the clients under test talk to it through undici.

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const hits = new Map<string, number>();
const seen = new Map<string, Seen>();
let server: Server;
let port: number;
let base: string;

const PAGE = "<!doctype html><title>Pricing</title><p>Pro plan: 49 € per month, café</p>";
const GZIP_BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024));
const SIX_MB = 6 * 1024 * 1024;

function hitCount(path: string): number {
  return hits.get(path) ?? 0;
}

function send(res: ServerResponse, status: number, headers: Record<string, string | number>, body?: Buffer | string) {
  res.writeHead(status, headers);
  res.end(body);
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  hits.set(url.pathname, hitCount(url.pathname) + 1);
  seen.set(url.pathname, { method: req.method ?? "", headers: req.headers, body });

  switch (url.pathname) {
    case "/plain":
      return send(res, 200, { "content-type": "text/plain; charset=utf-8" }, "hello");
    case "/secret":
      return send(res, 200, { "content-type": "text/plain" }, "internal secret");
    case "/echo":
      return send(
        res,
        Number(url.searchParams.get("status") ?? 200),
        { "content-type": "application/json", "x-echo": "1" },
        JSON.stringify({ method: req.method, headers: req.headers, body }),
      );
    case "/redirect":
      return send(res, Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("to") ?? "/" });
    case "/loop":
      return send(res, 302, { location: "/loop" });
    case "/chain/1":
      return send(res, 301, { location: "2" });
    case "/chain/2":
      return send(res, 307, { location: "/plain?from=chain" });
    case "/status":
      return send(res, Number(url.searchParams.get("code")), { "content-type": "text/plain" }, "status page");
    case "/gzip":
      return send(res, 200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" }, gzipSync(PAGE));
    case "/br":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=utf-8", "content-encoding": "br" },
        brotliCompressSync(PAGE),
      );
    case "/deflate":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=utf-8", "content-encoding": "deflate" },
        deflateSync(PAGE),
      );
    case "/deflate-raw":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=utf-8", "content-encoding": "deflate" },
        deflateRawSync(PAGE),
      );
    case "/corrupt-gzip":
      return send(res, 200, { "content-type": "text/html", "content-encoding": "gzip" }, "this is not gzip at all");
    case "/zstd":
      return send(res, 200, { "content-type": "text/html", "content-encoding": "zstd" }, "whatever");
    case "/cp1252":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=windows-1252" },
        Buffer.from("<p>Pro plan: \x8049 \x96 caf\xe9 \x93best\x94</p>", "latin1"),
      );
    case "/latin1-label":
      // Browsers (WHATWG Encoding) read iso-8859-1 as windows-1252, so 0x80 is the euro sign.
      return send(
        res,
        200,
        { "content-type": "text/plain; charset=ISO-8859-1" },
        Buffer.from("\x80 caf\xe9", "latin1"),
      );
    case "/meta-charset":
      return send(
        res,
        200,
        { "content-type": "text/html" },
        Buffer.from('<html><head><meta charset="windows-1252"><title>x</title></head><p>\x80 caf\xe9</p>', "latin1"),
      );
    case "/meta-http-equiv":
      return send(
        res,
        200,
        { "content-type": "text/html" },
        Buffer.concat([
          Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><p>'),
          Buffer.from([0x82, 0xa0, 0x93, 0xfa]),
          Buffer.from("</p>"),
        ]),
      );
    case "/header-beats-meta":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=windows-1252" },
        Buffer.from('<meta charset="utf-8"><p>caf\xe9</p>', "latin1"),
      );
    case "/bom":
      return send(
        res,
        200,
        { "content-type": "text/html; charset=iso-8859-1" },
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("<p>café €</p>")]),
      );
    case "/unknown-charset":
      return send(res, 200, { "content-type": "text/html; charset=x-no-such-charset" }, Buffer.from("<p>café €</p>"));
    case "/xml-declaration":
      return send(
        res,
        200,
        { "content-type": "application/rss+xml" },
        Buffer.from('<?xml version="1.0" encoding="windows-1252"?><rss><title>caf\xe9 \x80</title></rss>', "latin1"),
      );
    case "/no-charset":
      return send(res, 200, { "content-type": "text/html" }, Buffer.from("<p>café €</p>"));
    case "/five-mb":
      return send(res, 200, { "content-type": "text/plain" }, Buffer.alloc(5 * 1024 * 1024, 0x61));
    case "/big":
      return send(res, 200, { "content-type": "text/plain" }, Buffer.alloc(SIX_MB, 0x61));
    case "/big-chunked": {
      // No Content-Length: only counting while streaming can stop this one.
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let sent = 0; sent < SIX_MB && !res.destroyed; sent += chunk.length) {
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
      res.end();
      return;
    }
    case "/gzip-bomb":
      return send(res, 200, { "content-type": "text/html", "content-encoding": "gzip" }, GZIP_BOMB);
    case "/slow-headers": {
      const timer = setTimeout(() => send(res, 200, { "content-type": "text/plain" }, "late"), 3_000);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    case "/slow-body": {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part, then nothing");
      const timer = setTimeout(() => res.end(), 3_000);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    case "/trickle": {
      // One byte every 100 ms, for ever: never idle long enough for the idle timeout.
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("."), 100);
      res.on("close", () => clearInterval(timer));
      return;
    }
    case "/etag":
      if (req.headers["if-none-match"] === '"v1"') return send(res, 304, { etag: '"v1"' });
      return send(
        res,
        200,
        { "content-type": "text/html", etag: '"v1"', "last-modified": "Wed, 01 Jan 2025 00:00:00 GMT" },
        PAGE,
      );
    case "/last-modified":
      // A 304 without validators: the client keeps the ones it sent.
      if (req.headers["if-modified-since"]) return send(res, 304, {});
      return send(res, 200, { "content-type": "text/html", "last-modified": "Wed, 01 Jan 2025 00:00:00 GMT" }, PAGE);
    default:
      return send(res, 404, { "content-type": "text/plain" }, "not found");
  }
}

const clients: HttpClient[] = [];

function client(options: Partial<HttpClientOptions> = {}): HttpClient {
  const created = createHttpClient({ allowPrivateTargets: true, ...options });
  clients.push(created);
  return created;
}

/** Resolver double: the listed names resolve to the given addresses, everything else is NXDOMAIN. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return { lookup, calls };
}

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FetchError);
    return error as FetchError;
  }
  throw new Error("expected a FetchError, got a response");
}

beforeAll(async () => {
  server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  server.closeAllConnections();
  server.close();
});

describe("SSRF guard on", () => {
  const literalCases: [string, string][] = [
    ["http://127.0.0.1:PORT/plain", "127.0.0.1"],
    ["http://127.8.9.10:PORT/plain", "127.8.9.10"],
    ["http://[::1]:PORT/plain", "::1"],
    ["http://10.0.0.7/", "10.0.0.7"],
    ["http://172.16.0.1/", "172.16.0.1"],
    ["http://172.31.255.254/", "172.31.255.254"],
    ["http://192.168.1.1/", "192.168.1.1"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
    ["http://100.64.0.1/", "100.64.0.1"],
    ["http://0.0.0.0:PORT/plain", "0.0.0.0"],
    ["http://224.0.0.1/", "224.0.0.1"],
    ["http://255.255.255.255/", "255.255.255.255"],
    ["http://[ff02::1]/", "ff02::1"],
    ["http://[::ffff:127.0.0.1]:PORT/plain", "::ffff:7f00:1"],
    ["http://[::ffff:169.254.169.254]/", "::ffff:a9fe:a9fe"],
    ["http://[::127.0.0.1]:PORT/plain", "::7f00:1"],
    ["http://2130706433:PORT/plain", "127.0.0.1"],
    ["http://0x7f000001:PORT/plain", "127.0.0.1"],
    ["http://0177.0.0.1:PORT/plain", "127.0.0.1"],
    ["http://127.1:PORT/plain", "127.0.0.1"],
    ["http://[fc00::1]/", "fc00::1"],
    ["http://[fd12:3456::1]/", "fd12:3456::1"],
    ["http://[fe80::1]/", "fe80::1"],
    ["http://[::]:PORT/plain", "::"],
    ["https://10.0.0.7/", "10.0.0.7"],
  ];

  it.each(literalCases)("refuses %s before connecting", async (template, shown) => {
    const guarded = client({ allowPrivateTargets: false, connectTimeoutMs: 1_000 });
    const before = hitCount("/plain");
    const error = await failure(guarded.fetchPage(template.replace("PORT", String(port))));
    expect(error.kind).toBe("blocked");
    expect(error.message).toBe(`blocked: ${shown} is a private address`);
    expect(error.retryable).toBe(false);
    expect(hitCount("/plain")).toBe(before);
  });

  const privateAddresses = [
    "127.0.0.1",
    "::1",
    "10.0.0.7",
    "172.16.5.4",
    "192.168.0.10",
    "169.254.169.254",
    "100.64.1.1",
    "0.0.0.0",
    "224.0.0.251",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.7",
    "fc00::1",
    "fd00::5",
    "fe80::1",
    "64:ff9b::7f00:1",
    "2001:db8::1",
  ];

  it.each(privateAddresses)("refuses a name that resolves to %s", async (address) => {
    const dns = fakeDns({ "internal.test": [address] });
    const guarded = client({ allowPrivateTargets: false, lookup: dns.lookup });
    const before = hitCount("/plain");
    const error = await failure(guarded.fetchPage(`http://internal.test:${port}/plain`));
    expect(error.kind).toBe("blocked");
    expect(error.message).toBe("blocked: internal.test resolves to a private address");
    expect(dns.calls).toEqual(["internal.test"]);
    expect(hitCount("/plain")).toBe(before);
  });

  it("refuses a name when any of its addresses is private, even after a public one", async () => {
    const dns = fakeDns({ "mixed.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "10.0.0.7"] });
    const guarded = client({ allowPrivateTargets: false, lookup: dns.lookup });
    const error = await failure(guarded.fetchPage("https://mixed.test/"));
    expect(error.message).toBe("blocked: mixed.test resolves to a private address");
  });

  it("refuses send() to a private address too", async () => {
    const guarded = client({ allowPrivateTargets: false });
    const before = hitCount("/echo");
    const error = await failure(guarded.send(`${base}/echo`, { method: "POST", body: "{}" }));
    expect(error.kind).toBe("blocked");
    expect(error.message).toBe("blocked: 127.0.0.1 is a private address");
    expect(hitCount("/echo")).toBe(before);
  });

  it("connects an allowed name to the address its single resolution returned", async () => {
    const dns = fakeDns({ "site.test": ["127.0.0.1"] });
    const guarded = client({ allowPrivateTargets: false, allowHosts: ["SITE.test"], lookup: dns.lookup });
    const result = await guarded.fetchPage(`http://site.test:${port}/echo`);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body).headers.host).toBe(`site.test:${port}`);
    expect(dns.calls).toEqual(["site.test"]);
  });

  it("blocks a redirect from an allowed first hop to a loopback literal, without requesting it", async () => {
    const dns = fakeDns({ "site.test": ["127.0.0.1"] });
    const guarded = client({ allowPrivateTargets: false, allowHosts: ["site.test"], lookup: dns.lookup });
    const before = hitCount("/secret");
    const target = encodeURIComponent(`http://127.0.0.1:${port}/secret`);
    const error = await failure(guarded.fetchPage(`http://site.test:${port}/redirect?to=${target}`));
    expect(error.kind).toBe("blocked");
    expect(error.message).toBe("blocked: 127.0.0.1 is a private address");
    expect(hitCount("/secret")).toBe(before);
  });

  it("blocks a redirect from an allowed first hop to a name that resolves to a private address", async () => {
    const dns = fakeDns({ "site.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
    const guarded = client({ allowPrivateTargets: false, allowHosts: ["site.test"], lookup: dns.lookup });
    const before = hitCount("/secret");
    const target = encodeURIComponent(`http://other.test:${port}/secret`);
    const error = await failure(guarded.fetchPage(`http://site.test:${port}/redirect?to=${target}`));
    expect(error.message).toBe("blocked: other.test resolves to a private address");
    expect(hitCount("/secret")).toBe(before);
  });

  it("still checks the scheme", async () => {
    const guarded = client({ allowPrivateTargets: false });
    const error = await failure(guarded.fetchPage("ftp://example.com/file"));
    expect(error.kind).toBe("invalid_url");
    expect(error.message).toBe("unsupported URL scheme ftp:");
  });
});

describe("SSRF guard off (ALLOW_PRIVATE_TARGETS=1)", () => {
  it("fetches loopback and reports the response", async () => {
    const result = await client().fetchPage(`${base}/plain`);
    expect(result).toMatchObject({
      url: `${base}/plain`,
      status: 200,
      contentType: "text/plain; charset=utf-8",
      body: "hello",
      bytes: 5,
      etag: null,
      lastModified: null,
      notModified: false,
      redirects: [],
    });
    expect(result.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it("sends the bot user agent, the accepted encodings and an HTML-first Accept", async () => {
    await client().fetchPage(`${base}/echo`);
    const headers = seen.get("/echo")!.headers;
    expect(headers["user-agent"]).toBe("RivalscopeBot/0.1 (+https://rivalscope.example/bot)");
    expect(headers["accept-encoding"]).toBe("gzip, deflate, br");
    expect(headers["accept"]).toBe("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
  });

  it("sends a custom user agent and Accept", async () => {
    await client({ userAgent: "Test/1" }).fetchPage(`${base}/echo`, { accept: "application/rss+xml" });
    const headers = seen.get("/echo")!.headers;
    expect(headers["user-agent"]).toBe("Test/1");
    expect(headers["accept"]).toBe("application/rss+xml");
  });

  it("refuses non-HTTP schemes", async () => {
    const http = client();
    expect((await failure(http.fetchPage("ftp://127.0.0.1/file"))).message).toBe("unsupported URL scheme ftp:");
    expect((await failure(http.fetchPage("file:///etc/passwd"))).message).toBe("unsupported URL scheme file:");
    expect((await failure(http.send("gopher://127.0.0.1/", { method: "GET" }))).message).toBe(
      "unsupported URL scheme gopher:",
    );
  });

  it("refuses a redirect to a non-HTTP scheme", async () => {
    const error = await failure(client().fetchPage(`${base}/redirect?to=${encodeURIComponent("ftp://example.com/")}`));
    expect(error.kind).toBe("invalid_url");
    expect(error.message).toBe("unsupported URL scheme ftp:");
  });

  it("rejects a malformed URL", async () => {
    const error = await failure(client().fetchPage("not a url"));
    expect(error.kind).toBe("invalid_url");
    expect(error.message).toBe("invalid URL: not a url");
    expect(error.retryable).toBe(false);
  });

  it("reports a name that does not resolve", async () => {
    const dns = fakeDns({});
    const error = await failure(client({ lookup: dns.lookup }).fetchPage("http://example.invalid/"));
    expect(error.kind).toBe("dns");
    expect(error.message).toBe("could not resolve example.invalid");
    expect(error.retryable).toBe(true);
  });

  it("reports a refused connection", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    const error = await failure(client().fetchPage(`http://127.0.0.1:${closedPort}/`));
    expect(error.kind).toBe("network");
    expect(error.message).toBe("connection refused by 127.0.0.1");
    expect(error.retryable).toBe(true);
  });
});

describe("redirects", () => {
  it("follows relative redirects and reports each target", async () => {
    const result = await client().fetchPage(`${base}/chain/1`);
    expect(result.url).toBe(`${base}/plain?from=chain`);
    expect(result.redirects).toEqual([`${base}/chain/2`, `${base}/plain?from=chain`]);
    expect(result.body).toBe("hello");
  });

  it("stops a redirect loop after five redirects", async () => {
    const before = hitCount("/loop");
    const error = await failure(client().fetchPage(`${base}/loop`));
    expect(error.kind).toBe("redirects");
    expect(error.message).toBe("too many redirects (more than 5)");
    expect(error.retryable).toBe(false);
    expect(hitCount("/loop") - before).toBe(6);
  });

  it("honours a lower maxRedirects", async () => {
    const error = await failure(client({ maxRedirects: 1 }).fetchPage(`${base}/chain/1`));
    expect(error.message).toBe("too many redirects (more than 1)");
  });
});

describe("HTTP status", () => {
  it("throws a retryable error for 503 naming the host", async () => {
    const error = await failure(client().fetchPage(`${base}/status?code=503`));
    expect(error.kind).toBe("http");
    expect(error.message).toBe("HTTP 503 from 127.0.0.1");
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
  });

  it.each([
    [404, false],
    [403, false],
    [408, true],
    [425, true],
    [429, true],
    [500, true],
  ])("marks HTTP %i retryable=%s", async (code, retryable) => {
    const error = await failure(client().fetchPage(`${base}/status?code=${code}`));
    expect(error.message).toBe(`HTTP ${code} from 127.0.0.1`);
    expect(error.retryable).toBe(retryable);
  });
});

describe("conditional GET", () => {
  it("sends If-None-Match and reports 304 as not modified with an empty body", async () => {
    const http = client();
    const first = await http.fetchPage(`${base}/etag`);
    expect(first.etag).toBe('"v1"');
    expect(first.lastModified).toBe("Wed, 01 Jan 2025 00:00:00 GMT");

    const second = await http.fetchPage(`${base}/etag`, { etag: first.etag, lastModified: first.lastModified });
    expect(seen.get("/etag")!.headers["if-none-match"]).toBe('"v1"');
    expect(seen.get("/etag")!.headers["if-modified-since"]).toBe("Wed, 01 Jan 2025 00:00:00 GMT");
    expect(second).toMatchObject({ status: 304, notModified: true, body: "", bytes: 0, etag: '"v1"' });
  });

  it("keeps the validators it sent when the 304 carries none", async () => {
    const lastModified = "Wed, 01 Jan 2025 00:00:00 GMT";
    const result = await client().fetchPage(`${base}/last-modified`, { lastModified });
    expect(seen.get("/last-modified")!.headers["if-modified-since"]).toBe(lastModified);
    expect(seen.get("/last-modified")!.headers["if-none-match"]).toBeUndefined();
    expect(result).toMatchObject({ notModified: true, etag: null, lastModified });
  });
});

describe("content encodings", () => {
  it.each(["/gzip", "/br", "/deflate", "/deflate-raw"])("decodes %s", async (path) => {
    const result = await client().fetchPage(`${base}${path}`);
    expect(result.body).toBe(PAGE);
    expect(result.bytes).toBe(Buffer.byteLength(PAGE));
  });

  it("reports a corrupt gzip body", async () => {
    const error = await failure(client().fetchPage(`${base}/corrupt-gzip`));
    expect(error.kind).toBe("network");
    expect(error.message).toBe("could not decompress the response from 127.0.0.1");
  });

  it("reports an encoding it did not ask for", async () => {
    const error = await failure(client().fetchPage(`${base}/zstd`));
    expect(error.message).toBe('unsupported content encoding "zstd" from 127.0.0.1');
  });
});

describe("charsets", () => {
  it.each([
    ["/cp1252", "<p>Pro plan: €49 – café “best”</p>"],
    ["/latin1-label", "€ café"],
    ["/meta-charset", '<html><head><meta charset="windows-1252"><title>x</title></head><p>€ café</p>'],
    [
      "/meta-http-equiv",
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><p>あ日</p>',
    ],
    ["/header-beats-meta", '<meta charset="utf-8"><p>café</p>'],
    ["/bom", "<p>café €</p>"],
    ["/unknown-charset", "<p>café €</p>"],
    ["/xml-declaration", '<?xml version="1.0" encoding="windows-1252"?><rss><title>café €</title></rss>'],
    ["/no-charset", "<p>café €</p>"],
  ])("decodes %s", async (path, expected) => {
    const result = await client().fetchPage(`${base}${path}`);
    expect(result.body).toBe(expected);
  });
});

describe("byte cap", () => {
  it("accepts a body of exactly 5 MB", async () => {
    const result = await client().fetchPage(`${base}/five-mb`);
    expect(result.bytes).toBe(5 * 1024 * 1024);
  });

  it.each(["/big", "/big-chunked", "/gzip-bomb"])("aborts %s with 'response larger than 5 MB'", async (path) => {
    const error = await failure(client().fetchPage(`${base}${path}`));
    expect(error.kind).toBe("too_large");
    expect(error.message).toBe("response larger than 5 MB");
    expect(error.retryable).toBe(false);
  });

  it("names a custom cap", async () => {
    const error = await failure(client({ maxBytes: 1536 }).fetchPage(`${base}/gzip-bomb`));
    expect(error.message).toBe("response larger than 1.5 KB");
  });

  it("applies the cap to send()", async () => {
    const error = await failure(client().send(`${base}/big-chunked`, { method: "GET" }));
    expect(error.kind).toBe("too_large");
  });
});

describe("timeouts", () => {
  it("times out waiting for headers", async () => {
    const error = await failure(client({ timeoutMs: 300 }).fetchPage(`${base}/slow-headers`));
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("timed out after 0.3 s");
    expect(error.retryable).toBe(true);
  });

  it("times out when the body stalls", async () => {
    const error = await failure(client({ timeoutMs: 300 }).fetchPage(`${base}/slow-body`));
    expect(error.message).toBe("timed out after 0.3 s");
  });

  it("bounds a resolver that never answers by the connect timeout", async () => {
    const hanging = client({ connectTimeoutMs: 200, lookup: () => new Promise(() => {}) });
    const error = await failure(hanging.fetchPage("http://hangs.test/"));
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("timed out after 0.2 s");
  });

  it("bounds the whole exchange, so a trickling body cannot hold a fetch for ever", async () => {
    const error = await failure(client({ timeoutMs: 300, totalTimeoutMs: 600 }).fetchPage(`${base}/trickle`));
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("timed out after 0.6 s");
    expect(error.retryable).toBe(true);
  });

  it("uses the per-call timeout of send()", async () => {
    const error = await failure(client().send(`${base}/slow-headers`, { method: "POST", timeoutMs: 250 }));
    expect(error.message).toBe("timed out after 0.25 s");
  });
});

describe("send()", () => {
  it("returns a 500 without throwing, with the request sent as given", async () => {
    const result = await client().send(`${base}/echo?status=500`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Signature": "t=1,v1=abc" },
      body: '{"event":"test"}',
    });
    expect(result.status).toBe(500);
    expect(result.headers["x-echo"]).toBe("1");
    const echoed = JSON.parse(result.body);
    expect(echoed.method).toBe("POST");
    expect(echoed.body).toBe('{"event":"test"}');
    expect(echoed.headers["content-type"]).toBe("application/json");
    expect(echoed.headers["x-signature"]).toBe("t=1,v1=abc");
    expect(echoed.headers["user-agent"]).toBe("RivalscopeBot/0.1 (+https://rivalscope.example/bot)");
  });

  it("does not follow a 302", async () => {
    const before = hitCount("/plain");
    const result = await client().send(`${base}/redirect?to=/plain`, { method: "POST", body: "x" });
    expect(result.status).toBe(302);
    expect(result.headers["location"]).toBe("/plain");
    expect(hitCount("/plain")).toBe(before);
  });
});
