/**
 * A Stripe-compatible payments API on 127.0.0.1, speaking Stripe's wire format
 * (docs/architecture.md#external-systems): secret keys as `Authorization: Bearer sk_…` (401
 * `{"error": {"message": "Invalid API Key provided: …", "type": "invalid_request_error"}}` otherwise), form-encoded
 * bodies in Stripe's bracket notation (`line_items[0][price_data][currency]=usd`, parsed here into nested objects and
 * arrays), Checkout Sessions (`POST /v1/checkout/sessions`, answering the `checkout.session` object) and billing
 * portal sessions (`POST /v1/billing_portal/sessions`, answering `billing_portal.session`), with Stripe's 400 errors
 * for missing parameters and unknown customers. Checkout Sessions it created can be read back
 * (`GET /v1/checkout/sessions/{id}`) and expired while `open` (`POST /v1/checkout/sessions/{id}/expire`; Stripe's 400
 * otherwise); `complete` marks one as the customer finishing it. Every request is recorded; scripted answers (`fail`)
 * come first.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type FormObject = { [key: string]: FormNode };
export type FormNode = string | FormNode[] | FormObject;

export interface PaymentsRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form body, nested as Stripe reads bracket notation. */
  form: FormObject;
  rawBody: string;
}

export interface PaymentsReply {
  status: number;
  body: unknown;
}

interface Scripted {
  path: string;
  reply: PaymentsReply | "close";
  remaining: number;
}

const stripeError = (status: number, type: string, message: string, extra: Record<string, string> = {}) => ({
  status,
  body: { error: { type, message, ...extra } },
});

const missing = (param: string) =>
  stripeError(400, "invalid_request_error", `Missing required param: ${param}.`, { code: "parameter_missing", param });

/**
 * Parses `a[b][0][c]=1&…` into `{a: {b: [{c: "1"}]}}`, as Stripe does: numeric segments index arrays, the rest name
 * object fields.
 */
export function parseStripeForm(body: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) continue;
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    let node: FormObject | FormNode[] = root;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      const container = node as Record<string, FormNode>;
      if (last) {
        container[segment] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(path[index + 1]!);
      container[segment] ??= nextIsIndex ? [] : {};
      node = container[segment] as FormObject | FormNode[];
    });
  }
  return root;
}

export class FakePayments {
  /** The secret key the fake accepts; change it to make every call a 401. */
  apiKey = `sk_test_${randomBytes(12).toString("hex")}`;
  readonly requests: PaymentsRequest[] = [];
  /** Customers that exist; a portal session for another answers Stripe's `resource_missing`. */
  readonly customers = new Set<string>();
  /** Every Checkout Session created, by id, as Stripe holds it (`status`: `open`, `complete` or `expired`). */
  readonly sessions = new Map<string, Record<string, unknown>>();
  baseUrl = "";
  private server!: Server;
  private readonly scripted: Scripted[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const rawBody = Buffer.concat(chunks).toString("utf8");
        const path = new URL(req.url ?? "/", "http://fake").pathname;
        const request: PaymentsRequest = {
          method: req.method ?? "",
          path,
          headers: req.headers,
          form: /application\/x-www-form-urlencoded/.test(req.headers["content-type"] ?? "")
            ? parseStripeForm(rawBody)
            : {},
          rawBody,
        };
        this.requests.push(request);
        const scripted = this.takeScripted(path);
        if (scripted === "close") {
          req.socket.destroy();
          return;
        }
        const reply = scripted ?? this.handle(request);
        res.writeHead(reply.status, {
          "content-type": "application/json",
          "request-id": `req_${randomBytes(7).toString("hex")}`,
        });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Answers the next `times` requests to `path` with `reply` (or drops the connection: `"close"`). */
  fail(path: string, reply: PaymentsReply | "close", times = 1): this {
    this.scripted.push({ path, reply, remaining: times });
    return this;
  }

  /** A customer id that exists at the fake, as a completed checkout leaves one. */
  addCustomer(): string {
    const id = `cus_${randomBytes(7).toString("hex")}`;
    this.customers.add(id);
    return id;
  }

  /** The customer finished Checkout Session `id` (Stripe then sends `checkout.session.completed`). */
  complete(id: string): void {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`no checkout session ${id}`);
    Object.assign(session, {
      status: "complete",
      payment_status: "paid",
      subscription: `sub_${randomBytes(7).toString("hex")}`,
    });
  }

  requestsTo(path: string): PaymentsRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  private takeScripted(path: string): PaymentsReply | "close" | null {
    const entry = this.scripted.find((s) => s.remaining > 0 && s.path === path);
    if (!entry) return null;
    entry.remaining--;
    return entry.reply;
  }

  private handle(request: PaymentsRequest): PaymentsReply {
    const auth = request.headers.authorization ?? "";
    if (auth !== `Bearer ${this.apiKey}`) {
      const given = auth.replace(/^Bearer\s+/i, "");
      return stripeError(
        401,
        "invalid_request_error",
        `Invalid API Key provided: ${given.slice(0, 8)}${"*".repeat(Math.max(0, given.length - 12))}${given.slice(-4)}`,
      );
    }
    if (request.method === "POST" && request.path === "/v1/checkout/sessions")
      return this.checkoutSession(request.form);
    if (request.method === "POST" && request.path === "/v1/billing_portal/sessions")
      return this.portalSession(request.form);
    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(request.path);
    if (sessionPath) {
      const session = this.sessions.get(decodeURIComponent(sessionPath[1]!));
      if (!session) {
        return stripeError(404, "invalid_request_error", `No such checkout.session: '${sessionPath[1]}'`, {
          code: "resource_missing",
        });
      }
      if (request.method === "GET" && !sessionPath[2]) return { status: 200, body: session };
      if (request.method === "POST" && sessionPath[2]) {
        if (session.status !== "open") {
          return stripeError(
            400,
            "invalid_request_error",
            `Only Checkout Sessions with a status in ["open"] can be expired; this one is ${String(session.status)}.`,
          );
        }
        session.status = "expired";
        return { status: 200, body: session };
      }
    }
    return stripeError(404, "invalid_request_error", `Unrecognized request URL (${request.method}: ${request.path}).`);
  }

  private checkoutSession(form: FormObject): PaymentsReply {
    const mode = form.mode as string | undefined;
    if (!mode) return missing("mode");
    if (!form.success_url) return missing("success_url");
    const items = form.line_items as FormObject[] | undefined;
    if (mode === "subscription" && (!Array.isArray(items) || items.length === 0)) return missing("line_items");
    for (const [index, item] of (items ?? []).entries()) {
      const price = item.price_data as FormObject | undefined;
      if (!item.price && !price) return missing(`line_items[${index}][price]`);
      if (price) {
        for (const field of ["currency", "unit_amount"]) {
          if (!price[field]) return missing(`line_items[${index}][price_data][${field}]`);
        }
        if (mode === "subscription" && !(price.recurring as FormObject | undefined)?.interval) {
          return missing(`line_items[${index}][price_data][recurring][interval]`);
        }
        if (!price.product && !(price.product_data as FormObject | undefined)?.name) {
          return missing(`line_items[${index}][price_data][product_data][name]`);
        }
      }
    }
    if (form.customer && form.customer_email) {
      return stripeError(
        400,
        "invalid_request_error",
        "You may only specify one of these parameters: customer, customer_email.",
      );
    }
    if (typeof form.customer === "string" && !this.customers.has(form.customer)) {
      return stripeError(400, "invalid_request_error", `No such customer: '${form.customer}'`, {
        code: "resource_missing",
        param: "customer",
      });
    }
    const id = `cs_test_${randomBytes(24).toString("hex")}`;
    const created = Math.floor(Date.now() / 1000);
    const amountTotal = (items ?? []).reduce(
      (sum, item) =>
        sum + Number((item.price_data as FormObject | undefined)?.unit_amount ?? 0) * Number(item.quantity ?? 1),
      0,
    );
    const session = {
      id,
      object: "checkout.session",
      amount_subtotal: amountTotal,
      amount_total: amountTotal,
      cancel_url: form.cancel_url ?? null,
      client_reference_id: form.client_reference_id ?? null,
      created,
      currency: ((items?.[0]?.price_data as FormObject | undefined)?.currency as string | undefined) ?? null,
      customer: form.customer ?? null,
      customer_email: form.customer_email ?? null,
      expires_at: created + 86400,
      livemode: false,
      metadata: form.metadata ?? {},
      mode,
      payment_status: "unpaid",
      status: "open",
      subscription: null,
      success_url: form.success_url,
      url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
    };
    this.sessions.set(id, session);
    return { status: 200, body: session };
  }

  private portalSession(form: FormObject): PaymentsReply {
    const customer = form.customer as string | undefined;
    if (!customer) return missing("customer");
    if (!this.customers.has(customer)) {
      return stripeError(400, "invalid_request_error", `No such customer: '${customer}'`, {
        code: "resource_missing",
        param: "customer",
      });
    }
    const id = `bps_${randomBytes(12).toString("hex")}`;
    return {
      status: 200,
      body: {
        id,
        object: "billing_portal.session",
        configuration: "bpc_1PdefaultConfiguration",
        created: Math.floor(Date.now() / 1000),
        customer,
        flow: null,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: form.return_url ?? null,
        url: `https://billing.stripe.com/p/session/test_${randomBytes(16).toString("hex")}`,
      },
    };
  }
}
