/**
 * An S3-compatible object store on 127.0.0.1, in memory: PUT, GET and DELETE of one object, path-style
 * (`/<bucket>/<key>`). Like S3 it checks every request's SigV4 signature, recomputed here from the request as it
 * arrived on the wire (method, raw path, query, the signed headers, the payload hash), and the payload hash against
 * the body: a request signed over anything else than what was sent answers 403 SignatureDoesNotMatch. Written
 * apart from src/lib/sigv4.ts, whose own correctness is checked against AWS's published example.
 */
import { createHash, createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export class FakeS3 {
  readonly objects = new Map<string, { body: Buffer; contentType: string | undefined }>();
  readonly requests: { method: string; path: string; status: number }[] = [];
  /** Answer every request with this status instead (an outage). */
  failWith: number | null = null;
  baseUrl = "";
  private server!: Server;

  constructor(
    readonly bucket: string,
    readonly accessKeyId: string,
    private readonly secretAccessKey: string,
    readonly region = "us-east-1",
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const answer = (status: number, payload: string | Buffer = "", type = "application/xml") => {
          this.requests.push({ method: req.method ?? "", path: req.url ?? "", status });
          res.writeHead(status, { "content-type": type }).end(payload);
        };
        if (this.failWith !== null) return answer(this.failWith, "<Error><Code>InternalError</Code></Error>");
        const problem = this.verify(req, body);
        if (problem)
          return answer(403, `<Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
        const path = (req.url ?? "").split("?")[0]!;
        const prefix = `/${this.bucket}/`;
        if (!path.startsWith(prefix)) return answer(404, "<Error><Code>NoSuchBucket</Code></Error>");
        const key = decodeURIComponent(path.slice(prefix.length));
        if (req.method === "PUT") {
          this.objects.set(key, { body, contentType: req.headers["content-type"] });
          return answer(200);
        }
        if (req.method === "GET") {
          const object = this.objects.get(key);
          if (!object) return answer(404, "<Error><Code>NoSuchKey</Code></Error>");
          return answer(200, object.body, object.contentType ?? "application/octet-stream");
        }
        if (req.method === "DELETE") {
          this.objects.delete(key);
          return answer(204);
        }
        return answer(405);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Null when the request is signed right, else why not. */
  private verify(req: IncomingMessage, body: Buffer): string | null {
    const auth =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        req.headers.authorization ?? "",
      );
    if (!auth) return "missing or malformed Authorization";
    const [, keyId, day, region, signedHeaders, signature] = auth;
    if (keyId !== this.accessKeyId) return "unknown access key";
    if (region !== this.region) return "wrong region";
    const amzDate = String(req.headers["x-amz-date"] ?? "");
    if (!amzDate.startsWith(day!)) return "x-amz-date does not match the credential scope";
    if (
      Math.abs(
        Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z")) -
          Date.now(),
      ) >
      15 * 60_000
    ) {
      return "request time too skewed";
    }
    const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
    if (payloadHash !== createHash("sha256").update(body).digest("hex")) return "payload hash does not match the body";
    const names = signedHeaders!.split(";");
    if (!names.includes("host") || !names.includes("x-amz-date")) return "host and x-amz-date must be signed";
    const [rawPath, rawQuery = ""] = (req.url ?? "/").split("?");
    const query = rawQuery
      .split("&")
      .filter(Boolean)
      .map((pair) =>
        pair
          .split("=")
          .map((part) => encode(decodeURIComponent(part)))
          .join("="),
      )
      .sort()
      .join("&");
    const canonical = [
      req.method,
      rawPath,
      query,
      names.map((name) => `${name}:${String(req.headers[name] ?? "").trim()}\n`).join(""),
      signedHeaders,
      payloadHash,
    ].join("\n");
    const scope = `${day}/${region}/s3/aws4_request`;
    const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash("sha256").update(canonical).digest("hex")}`;
    let key = createHmac("sha256", `AWS4${this.secretAccessKey}`).update(day!).digest();
    for (const part of [region!, "s3", "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
    const expected = createHmac("sha256", key).update(toSign).digest("hex");
    return expected === signature ? null : "signature does not match";
  }
}

function encode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
