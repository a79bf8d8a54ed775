/**
 * The rules of outbound webhooks that need no database: which events a subscription takes, what an answer means, and
 * when the next attempt happens (docs/product-rules.md#outbound-webhooks,
 * docs/product-rules.md#retries-and-dead-letter).
 */
import type { EventType } from "../detection/types.js";
import { severityAtLeast } from "../lib/severity.js";
// Re-exported for the subscription code that validates CLI input.
export { isSeverity, SEVERITIES } from "../lib/severity.js";

export const EVENT_TYPES: readonly EventType[] = [
  "pricing_change",
  "product_change",
  "hiring_change",
  "narrative_change",
];
/**
 * The types a subscription may filter on: the event types, then the source health transitions, which webhooks carry
 * in `event.type` too (docs/product-rules.md#source-health).
 */
export const WEBHOOK_TYPES: readonly string[] = [...EVENT_TYPES, "source_broken", "source_recovered"];
export const ENVIRONMENTS = ["staging", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * A delivery attempt must be answered with a 2xx within this time to count
 * (docs/product-rules.md#retries-and-dead-letter).
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export function isWebhookType(value: string): boolean {
  return WEBHOOK_TYPES.includes(value);
}

export function isEnvironment(value: string): value is Environment {
  return (ENVIRONMENTS as readonly string[]).includes(value);
}

export interface SubscriptionFilter {
  min_severity: string;
  /** null = every type. */
  event_types: string[] | null;
}

/** Thresholds are inclusive (docs/product-rules.md#validation): an event at exactly `min_severity` is delivered. */
export function subscriptionTakes(
  filter: SubscriptionFilter,
  event: { event_type: string; severity: string },
): boolean {
  if (!severityAtLeast(event.severity, filter.min_severity)) return false;
  return filter.event_types === null || filter.event_types.includes(event.event_type);
}

/**
 * What an HTTP answer means for the delivery. 5xx, 408 and 429 are the receiver's temporary trouble; any other 4xx
 * (410 Gone, 401, 404…) will not change by asking again, and a 3xx is never followed (a redirect would replay a signed
 * POST to a host nobody configured), so both fail the delivery at once.
 */
export function classifyStatus(status: number): "delivered" | "retry" | "failed" {
  if (status >= 200 && status <= 299) return "delivered";
  if (status >= 500 || status === 408 || status === 429) return "retry";
  return "failed";
}

/**
 * docs/product-rules.md#retries-and-dead-letter: after failed attempt n, wait base × 2^(n−1) × (1 + j), j uniform in
 * [0, 0.25]. `random` returns a number in [0, 1) (Math.random), scaled here to the jitter range.
 */
export function backoffSeconds(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const jitter = random() * 0.25;
  return baseSeconds * 2 ** Math.max(0, attempt - 1) * (1 + jitter);
}

/**
 * The receiver's Retry-After in seconds from `nowMs` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), or null when
 * absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  const raw = value?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return null;
  return Math.max(0, (date - nowMs) / 1000);
}

export interface RetryPlan {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  firstAttemptAt: Date;
  /** When the failed attempt ended. */
  now: Date;
  baseSeconds: number;
  windowSeconds: number;
  /** From the answer's Retry-After, if any. */
  retryAfterSeconds: number | null;
  random?: () => number;
}

/**
 * When to try again, or null when the window is over (the delivery is dead). Retries go on until
 * WEBHOOK_RETRY_WINDOW_SECONDS after the first attempt (docs/product-rules.md#retries-and-dead-letter): a retry that
 * would fall later is moved to the window's end, so the last attempt happens at the end of the window and its failure
 * makes the delivery dead. Retry-After is a lower bound (never retry earlier than the receiver asked), but, like the
 * backoff, never beyond the window.
 */
export function nextAttemptAt(plan: RetryPlan): Date | null {
  const deadline = plan.firstAttemptAt.getTime() + plan.windowSeconds * 1000;
  const now = plan.now.getTime();
  if (now >= deadline) return null;
  let delaySeconds = backoffSeconds(plan.attempt, plan.baseSeconds, plan.random);
  if (plan.retryAfterSeconds !== null) delaySeconds = Math.max(delaySeconds, plan.retryAfterSeconds);
  return new Date(Math.min(now + delaySeconds * 1000, deadline));
}
