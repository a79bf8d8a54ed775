/**
 * The payments provider: a Stripe-compatible API at `PAYMENTS_API_BASE` with the secret key `PAYMENTS_API_KEY`
 * (docs/product-rules.md#billing). Stripe takes form-encoded bodies with bracket notation for nested fields
 * (`line_items[0][price_data][currency]=usd`) and answers JSON, errors as `{"error": {"type", "message", …}}`.
 * Every call goes through the project's one outbound client (SSRF guard, caps, timeouts). Whatever goes wrong at the
 * provider, unreachable, slow, a refused key, an error answer, a 2xx without the fields we need, becomes a
 * PaymentsProviderError (502 with a detail naming what happened), never a 500.
 */
import { ApiError } from "../http/errors.js";
import { FetchError, type HttpClient } from "../lib/http-client.js";

/** Stripe answers in well under a second; a user waits on this call, so a stuck provider must fail quickly. */
const CALL_TIMEOUT_MS = 15_000;

/** The provider failed or refused the call (502, spec: `PaymentsProviderErrorResponse`). */
export class PaymentsProviderError extends ApiError {
  constructor(detail: string) {
    super(502, detail);
  }
}

/** A form value, or nested values Stripe's bracket notation spells out (`metadata[plan]`, `line_items[0][quantity]`). */
export type FormValue = string | number | boolean | null | undefined | FormValue[] | { [key: string]: FormValue };

/**
 * Form-encodes `fields` as Stripe expects: nested objects and arrays in bracket notation, in insertion order;
 * `null` and `undefined` fields are left out.
 */
export function stripeForm(fields: Record<string, FormValue>): string {
  const pairs: [string, string][] = [];
  const add = (key: string, value: FormValue) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) value.forEach((item, index) => add(`${key}[${index}]`, item));
    else if (typeof value === "object") for (const [name, item] of Object.entries(value)) add(`${key}[${name}]`, item);
    else pairs.push([key, String(value)]);
  };
  for (const [key, value] of Object.entries(fields)) add(key, value);
  return new URLSearchParams(pairs).toString();
}

export interface CheckoutSession {
  id: string;
  url: string;
}

export interface PortalSession {
  id: string;
  url: string;
}

export class PaymentsClient {
  constructor(
    private readonly http: HttpClient,
    private readonly apiBase: string,
    private readonly apiKey: string,
  ) {}

  /** `POST /v1/checkout/sessions`: the hosted checkout's id and URL. */
  async createCheckoutSession(fields: Record<string, FormValue>): Promise<CheckoutSession> {
    const session = await this.post("/v1/checkout/sessions", fields, "create the checkout session");
    return { id: stringField(session, "id", "checkout session"), url: stringField(session, "url", "checkout session") };
  }

  /**
   * `GET /v1/checkout/sessions/{id}`: the session's `status` (`open`, `complete` or `expired`) and the subscription
   * it made (once complete), or null when the provider no longer knows it (404).
   */
  async checkoutSessionState(id: string): Promise<{ status: string; subscription: string | null } | null> {
    const session = await this.call(
      "GET",
      `/v1/checkout/sessions/${encodeURIComponent(id)}`,
      null,
      "read the checkout session",
      {
        missingIsNull: true,
      },
    );
    if (session === null) return null;
    const subscription = session.subscription;
    const subscriptionId =
      typeof subscription === "string"
        ? subscription
        : typeof (subscription as { id?: unknown } | null)?.id === "string"
          ? (subscription as { id: string }).id
          : null;
    return { status: stringField(session, "status", "checkout session"), subscription: subscriptionId };
  }

  /** `POST /v1/checkout/sessions/{id}/expire`: the session can no longer be paid. */
  async expireCheckoutSession(id: string): Promise<void> {
    await this.call(
      "POST",
      `/v1/checkout/sessions/${encodeURIComponent(id)}/expire`,
      {},
      "expire the open checkout session",
    );
  }

  /** `POST /v1/billing_portal/sessions`: the portal session's id and short-lived URL. */
  async createPortalSession(fields: Record<string, FormValue>): Promise<PortalSession> {
    const session = await this.post("/v1/billing_portal/sessions", fields, "open the billing portal");
    return { id: stringField(session, "id", "portal session"), url: stringField(session, "url", "portal session") };
  }

  private async post(path: string, fields: Record<string, FormValue>, what: string): Promise<Record<string, unknown>> {
    return (await this.call("POST", path, fields, what))!;
  }

  /** One call; with `missingIsNull`, a 404 (Stripe's `resource_missing`) is null rather than an error. */
  private async call(
    method: "GET" | "POST",
    path: string,
    fields: Record<string, FormValue> | null,
    what: string,
    options: { missingIsNull?: boolean } = {},
  ): Promise<Record<string, unknown> | null> {
    let response;
    try {
      response = await this.http.send(`${this.apiBase}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          ...(fields === null ? {} : { "content-type": "application/x-www-form-urlencoded" }),
          accept: "application/json",
        },
        ...(fields === null ? {} : { body: stripeForm(fields) }),
        timeoutMs: CALL_TIMEOUT_MS,
        totalTimeoutMs: CALL_TIMEOUT_MS,
      });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      throw new PaymentsProviderError(`The payments provider could not be reached to ${what}: ${error.message}`);
    }
    const json = parseJson(response.body);
    if (options.missingIsNull && response.status === 404) return null;
    if (response.status >= 200 && response.status <= 299) {
      if (json && typeof json === "object" && !Array.isArray(json)) return json as Record<string, unknown>;
      throw new PaymentsProviderError(`The payments provider answered ${response.status} without a JSON object`);
    }
    const reason = errorMessage(json) ?? (response.body.trim().slice(0, 200) || "no details");
    if (response.status === 401) {
      throw new PaymentsProviderError(`The payments provider rejected the API key (PAYMENTS_API_KEY): ${reason}`);
    }
    throw new PaymentsProviderError(`The payments provider refused to ${what} (${response.status}): ${reason}`);
  }
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/** Stripe's error body: `{"error": {"type": "invalid_request_error", "code"?: …, "message": "…"}}`. */
function errorMessage(json: unknown): string | null {
  const error = (json as { error?: { type?: unknown; code?: unknown; message?: unknown } } | null)?.error;
  if (!error || typeof error !== "object") return null;
  const kind = [error.type, error.code].filter((part) => typeof part === "string" && part !== "").join("/");
  const message = typeof error.message === "string" ? error.message.slice(0, 300) : null;
  if (!kind && !message) return null;
  return kind && message ? `${kind}: ${message}` : (kind || message)!;
}

function stringField(object: Record<string, unknown>, field: string, what: string): string {
  const value = object[field];
  if (typeof value === "string" && value !== "") return value;
  throw new PaymentsProviderError(`The payments provider's ${what} has no ${field}`);
}
