/**
 * The database-free rules of outbound webhooks: signatures, filters, answers and the retry schedule
 * (docs/product-rules.md#webhooks-and-signatures).
 */
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import {
  backoffSeconds,
  classifyStatus,
  nextAttemptAt,
  parseRetryAfter,
  subscriptionTakes,
} from "../../src/webhooks/policy.js";
import { generateSigningSecret, signatureHeader } from "../../src/webhooks/signature.js";

describe("signature", () => {
  it("is byte for byte Stripe's header, and stripe.webhooks.constructEvent verifies it", () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ event_id: "e1", event: { type: "pricing_change" } });
    const now = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secret, body, now + 0.9);
    expect(header).toBe(Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now }));
    expect(Stripe.webhooks.constructEvent(body, header, secret)).toEqual(JSON.parse(body));
    expect(() => Stripe.webhooks.constructEvent(`${body} `, header, secret)).toThrow(/signature/i);
  });

  it("makes secrets of whsec_ and 32 random bytes in base64", () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });
});

describe("subscription filters", () => {
  const event = { event_type: "pricing_change", severity: "high" };

  it("takes events at or above the minimum severity (inclusive)", () => {
    expect(subscriptionTakes({ min_severity: "low", event_types: null }, event)).toBe(true);
    expect(subscriptionTakes({ min_severity: "high", event_types: null }, event)).toBe(true);
    expect(subscriptionTakes({ min_severity: "critical", event_types: null }, event)).toBe(false);
  });

  it("takes every type when event_types is null, otherwise only the listed ones", () => {
    expect(subscriptionTakes({ min_severity: "low", event_types: ["pricing_change"] }, event)).toBe(true);
    expect(subscriptionTakes({ min_severity: "low", event_types: ["hiring_change", "product_change"] }, event)).toBe(
      false,
    );
  });
});

describe("answers", () => {
  it("counts 2xx as delivered, retries 5xx, 408 and 429, and fails other statuses at once", () => {
    expect([200, 202, 204, 299].map(classifyStatus)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
    expect([500, 502, 503, 504, 408, 429].map(classifyStatus)).toEqual(Array(6).fill("retry"));
    expect([400, 401, 403, 404, 410, 422, 301, 302].map(classifyStatus)).toEqual(Array(8).fill("failed"));
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:01:30 GMT", now)).toBe(90);
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe("retry schedule", () => {
  it("waits base × 2^(n−1) × (1 + j) after failed attempt n, j in [0, 0.25]", () => {
    expect([1, 2, 3, 4].map((n) => backoffSeconds(n, 30, () => 0))).toEqual([30, 60, 120, 240]);
    // random() → 0.999… gives j just under 0.25.
    expect(backoffSeconds(1, 30, () => 0.5)).toBe(33.75);
    expect(backoffSeconds(3, 30, () => 0.9999)).toBeCloseTo(149.997, 3);
    expect(backoffSeconds(5, 0, () => 0.7)).toBe(0);
  });

  const first = new Date("2026-11-22T10:00:00Z");
  const at = (seconds: number) => new Date(first.getTime() + seconds * 1000);
  const plan = { firstAttemptAt: first, baseSeconds: 30, windowSeconds: 86_400, random: () => 0 };

  it("schedules the next attempt by the backoff", () => {
    expect(nextAttemptAt({ ...plan, attempt: 1, now: at(1), retryAfterSeconds: null })).toEqual(at(31));
    expect(nextAttemptAt({ ...plan, attempt: 4, now: at(500), retryAfterSeconds: null })).toEqual(at(740));
  });

  it("never retries earlier than Retry-After asks, nor later than the window's end", () => {
    expect(nextAttemptAt({ ...plan, attempt: 1, now: at(1), retryAfterSeconds: 600 })).toEqual(at(601));
    // A short Retry-After does not shorten the backoff.
    expect(nextAttemptAt({ ...plan, attempt: 2, now: at(40), retryAfterSeconds: 5 })).toEqual(at(100));
    expect(nextAttemptAt({ ...plan, attempt: 1, now: at(1), retryAfterSeconds: 200_000 })).toEqual(at(86_400));
    expect(nextAttemptAt({ ...plan, attempt: 12, now: at(70_000), retryAfterSeconds: null })).toEqual(at(86_400));
  });

  it("gives up (dead) once an attempt fails at or after the window's end", () => {
    expect(nextAttemptAt({ ...plan, attempt: 13, now: at(86_400), retryAfterSeconds: null })).toBeNull();
    expect(nextAttemptAt({ ...plan, attempt: 13, now: at(86_401), retryAfterSeconds: 1 })).toBeNull();
  });
});
