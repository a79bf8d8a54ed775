/**
 * Where evidence files live (screenshots of changed regions, docs/product-rules.md#screenshots): a directory under
 * DATA_DIR by default, or an S3-compatible bucket when ASSET_S3_ENDPOINT is set (docs/operations.md). Both keep
 * objects under the key the evidence records in `asset_object_key`; the database holds keys, never bytes.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config.js";
import { ByteClient } from "./byte-client.js";
import { EMPTY_PAYLOAD_HASH, sha256Hex, signRequest, uriEncode } from "./sigv4.js";

export interface AssetStore {
  /** Stores `body` under `key`, replacing what was there. */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Keys are paths of plain segments (`screenshots/<workspace>/<source>/<uuid>.png`): no `..`, nothing absolute. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function assertValidKey(key: string): void {
  if (!KEY.test(key) || key.split("/").some((segment) => segment === "." || segment === "..") || key.length > 512) {
    throw new Error(`invalid asset key ${JSON.stringify(key.slice(0, 100))}`);
  }
}

/** Objects as files under one directory; written to a temporary name first, so a reader never sees half a file. */
export class LocalAssetStore implements AssetStore {
  constructor(readonly directory: string) {}

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.fileOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomUUID()}.tmp`;
    await writeFile(temporary, body);
    await rename(temporary, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.fileOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  async close(): Promise<void> {}

  private fileOf(key: string): string {
    assertValidKey(key);
    return path.join(this.directory, ...key.split("/"));
  }
}

export interface S3Settings {
  /** `https://s3.eu-west-1.amazonaws.com`, `http://minio:9000`, …: objects are addressed path-style under it. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** An S3-compatible bucket, through plain SigV4-signed requests (src/lib/sigv4.ts). */
export class S3AssetStore implements AssetStore {
  constructor(
    private readonly settings: S3Settings,
    private readonly client: ByteClient,
  ) {}

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const response = await this.send("PUT", key, body, { "content-type": contentType });
    if (response.status !== 200) throw this.failure("PUT", key, response.status);
  }

  async get(key: string): Promise<Buffer | null> {
    const response = await this.send("GET", key, null, {});
    if (response.status === 404) return null;
    if (response.status !== 200) throw this.failure("GET", key, response.status);
    return response.body;
  }

  async delete(key: string): Promise<void> {
    const response = await this.send("DELETE", key, null, {});
    if (response.status !== 204 && response.status !== 200 && response.status !== 404) {
      throw this.failure("DELETE", key, response.status);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async send(method: string, key: string, body: Buffer | null, headers: Record<string, string>) {
    assertValidKey(key);
    const url = new URL(
      `${this.settings.endpoint}/${uriEncode(this.settings.bucket)}/${key.split("/").map(uriEncode).join("/")}`,
    );
    const signed = signRequest({
      method,
      url,
      headers,
      payloadHash: body ? sha256Hex(body) : EMPTY_PAYLOAD_HASH,
      region: this.settings.region,
      accessKeyId: this.settings.accessKeyId,
      secretAccessKey: this.settings.secretAccessKey,
      now: new Date(),
    });
    return this.client.request(url.href, { method, headers: signed, body, signal: AbortSignal.timeout(30_000) });
  }

  private failure(method: string, key: string, status: number): Error {
    return new Error(`asset store answered HTTP ${status} to ${method} ${key}`);
  }
}

/**
 * The store the configuration names: the bucket when ASSET_S3_ENDPOINT is set, else `DATA_DIR/assets`. The
 * bucket's endpoint is the operator's, not a customer's, so its host is exempt from the private-address check (a
 * MinIO beside the service is the common case) while every other guard still applies.
 */
export function assetStoreFor(config: Pick<Config, "dataDir" | "allowPrivateTargets" | "assets">): AssetStore {
  const s3 = config.assets.s3;
  if (!s3) return new LocalAssetStore(path.join(config.dataDir, "assets"));
  const client = new ByteClient({
    allowPrivateTargets: config.allowPrivateTargets,
    allowHosts: [new URL(s3.endpoint).hostname],
    maxBytes: 20 * 1024 * 1024,
  });
  return new S3AssetStore(s3, client);
}
