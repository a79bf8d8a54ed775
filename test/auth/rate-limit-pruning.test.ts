/**
 * Rate-limit buckets whose window has passed are deleted by the scheduler, so `rate_limit_buckets` holds only live
 * counters however many addresses have been seen; a live bucket keeps counting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/lib/rate-limit.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

describe("rate_limit_buckets", () => {
  it("is pruned of expired buckets by the scheduler, and keeps live ones", async () => {
    const knex = app.service.services.knex;
    const limiter = new RateLimiter(knex);
    const live = { key: "test:live", limit: 3, windowSeconds: 3600 };
    await limiter.hit({ key: "test:expired", limit: 3, windowSeconds: 1 });
    await limiter.hit(live);
    await limiter.hit(live);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    await app.service.scheduler!.tick({ force: true });

    const keys = (await knex("rate_limit_buckets").whereIn("key", ["test:expired", "test:live"]).pluck("key")).sort();
    expect(keys).toEqual(["test:live"]);
    // The live bucket still counts: two hits so far, the third is allowed, the fourth is over the limit.
    expect(await limiter.hit(live)).toBeNull();
    expect(await limiter.hit(live)).toBeGreaterThan(0);
  });
});
