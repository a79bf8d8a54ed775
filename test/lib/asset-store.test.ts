/**
 * The asset store (src/lib/asset-store.ts): the local directory under DATA_DIR and an S3-compatible bucket behind one
 * interface, the bucket reached through plain SigV4-signed requests (src/lib/sigv4.ts) checked by a fake S3 server
 * on 127.0.0.1 (test/fakes/s3.ts), and the signer checked against AWS's own published example.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { assertValidKey, assetStoreFor, LocalAssetStore, type AssetStore } from "../../src/lib/asset-store.js";
import { EMPTY_PAYLOAD_HASH, signRequest } from "../../src/lib/sigv4.js";
import { FakeS3 } from "../fakes/s3.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

describe("SigV4", () => {
  it("signs AWS's GET Object example to the published signature", () => {
    // https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "Example: GET Object".
    const headers = signRequest({
      method: "GET",
      url: new URL("https://examplebucket.s3.amazonaws.com/test.txt"),
      headers: { range: "bytes=0-9" },
      payloadHash: EMPTY_PAYLOAD_HASH,
      region: "us-east-1",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      now: new Date("2013-05-24T00:00:00Z"),
    });
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });
});

/** The same behaviour from both stores. */
function behavesAsAStore(name: string, make: () => AssetStore) {
  describe(name, () => {
    it("stores, reads, replaces and deletes objects by key", async () => {
      const store = make();
      const key = "screenshots/ws-1/src-1/a.png";
      expect(await store.get(key)).toBeNull();
      await store.put(key, PNG, "image/png");
      expect((await store.get(key))?.equals(PNG)).toBe(true);
      await store.put(key, Buffer.from("second"), "image/png");
      expect((await store.get(key))?.toString()).toBe("second");
      await store.delete(key);
      expect(await store.get(key)).toBeNull();
      await store.delete(key); // a missing object is not an error
    });

    it("refuses keys that could leave the store's place", async () => {
      const store = make();
      for (const key of ["../etc/passwd", "/abs.png", "a/../../b.png", "a//b.png", "a/./b.png", ""]) {
        await expect(store.put(key, PNG, "image/png"), key).rejects.toThrow(/invalid asset key/);
        await expect(store.get(key), key).rejects.toThrow(/invalid asset key/);
      }
    });
  });
}

describe("stores", () => {
  let s3: FakeS3;
  let dataDir: string;
  const stores: AssetStore[] = [];
  beforeAll(async () => {
    s3 = await new FakeS3("rivalscope-assets", "AKIATESTKEY", "test-secret-key/with+chars").start();
    dataDir = mkdtempSync(path.join(tmpdir(), "rivalscope-assets-"));
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await s3?.stop();
  });

  const config = (extra: Record<string, string> = {}) =>
    loadConfig({ JWT_SECRET: "x".repeat(40), SECRETS_KEY: "ab".repeat(32), DATA_DIR: dataDir, ...extra });
  const s3Env = () => ({
    ASSET_S3_ENDPOINT: s3.baseUrl,
    ASSET_S3_BUCKET: "rivalscope-assets",
    ASSET_S3_ACCESS_KEY_ID: "AKIATESTKEY",
    ASSET_S3_SECRET_ACCESS_KEY: "test-secret-key/with+chars",
  });
  const open = (store: AssetStore) => {
    stores.push(store);
    return store;
  };

  behavesAsAStore("the local store", () => open(assetStoreFor(config())));
  // The bucket's endpoint is on 127.0.0.1 and ALLOW_PRIVATE_TARGETS is off: the operator's endpoint is exempt.
  behavesAsAStore("the S3 store", () => open(assetStoreFor(config(s3Env()))));

  it("keeps local objects under DATA_DIR/assets, as files named by their key", async () => {
    const store = open(assetStoreFor(config()));
    expect(store).toBeInstanceOf(LocalAssetStore);
    await store.put("screenshots/w/s/k.png", PNG, "image/png");
    expect(readdirSync(path.join(dataDir, "assets", "screenshots", "w", "s"))).toEqual(["k.png"]);
  });

  it("puts S3 objects in the bucket, path-style, signed over what was sent", async () => {
    const store = open(assetStoreFor(config(s3Env())));
    await store.put("screenshots/w/s/k-1.png", PNG, "image/png");
    expect(s3.objects.get("screenshots/w/s/k-1.png")).toEqual({ body: PNG, contentType: "image/png" });
    expect(s3.requests.at(-1)).toEqual({
      method: "PUT",
      path: "/rivalscope-assets/screenshots/w/s/k-1.png",
      status: 200,
    });
  });

  it("fails on a wrong key or an outage, and the fake refuses what is not signed right", async () => {
    const wrong = open(assetStoreFor(config({ ...s3Env(), ASSET_S3_SECRET_ACCESS_KEY: "not-the-secret" })));
    await expect(wrong.put("a.png", PNG, "image/png")).rejects.toThrow("asset store answered HTTP 403 to PUT a.png");
    const store = open(assetStoreFor(config(s3Env())));
    s3.failWith = 503;
    try {
      await expect(store.get("a.png")).rejects.toThrow("asset store answered HTTP 503 to GET a.png");
    } finally {
      s3.failWith = null;
    }
  });

  it("refuses an S3 endpoint without its bucket or keys, and a malformed bucket name, at start-up", () => {
    expect(() => config({ ASSET_S3_ENDPOINT: s3.baseUrl })).toThrow(
      "ASSET_S3_ENDPOINT needs ASSET_S3_BUCKET, ASSET_S3_ACCESS_KEY_ID and ASSET_S3_SECRET_ACCESS_KEY",
    );
    expect(() => config({ ...s3Env(), ASSET_S3_BUCKET: "Bad_Bucket" })).toThrow(
      /ASSET_S3_BUCKET must be a bucket name/,
    );
  });
});

describe("asset keys", () => {
  it("accepts the keys detection writes", () => {
    expect(() => assertValidKey("screenshots/5f0c/9a1e/0b7c.png")).not.toThrow();
  });
});
