/**
 * The rate limits of the public auth operations (docs/product-rules.md#tokens-and-passwords), on the Postgres-backed
 * counters of src/lib/rate-limit.ts. Each method counts an attempt (or checks one) and throws the 429 ApiError, with
 * `Retry-After`, when it is over a limit; services call them before any work a limit is there to protect (a password
 * hash, a mail).
 */
import type { Knex } from "knex";
import ipaddr from "ipaddr.js";
import { tooManyRequests } from "../http/errors.js";
import { RateLimiter, type RateLimitRule } from "../lib/rate-limit.js";

const MINUTE = 60;
const HOUR = 3600;

/** Attempts allowed per window. Every attempt counts except where a name says failures. */
export const AUTH_LIMITS = {
  signUpPerEmail: { limit: 5, windowSeconds: HOUR },
  signUpPerClient: { limit: 10, windowSeconds: HOUR },
  /** Failed logins for one email address from one client address: a stranger's failures never lock the owner out. */
  loginFailuresPerEmailAndClient: { limit: 10, windowSeconds: 15 * MINUTE },
  loginPerClient: { limit: 100, windowSeconds: 15 * MINUTE },
  forgotPasswordPerEmail: { limit: 5, windowSeconds: HOUR },
  forgotPasswordPerClient: { limit: 20, windowSeconds: HOUR },
  resetPasswordPerClient: { limit: 20, windowSeconds: HOUR },
  /** Password resets of one account (with a valid token). */
  resetPasswordPerAccount: { limit: 5, windowSeconds: HOUR },
} as const satisfies Record<string, Omit<RateLimitRule, "key">>;

/**
 * The client address a limit counts by: express's `req.ip` (src/app.ts trusts `X-Forwarded-For` from loopback
 * proxies only), with an IPv6 address reduced to its /64, the block one subscriber usually holds, so rotating through
 * it does not multiply the limit; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip || "unknown";
  const address = ipaddr.process(ip);
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

export class AuthLimits {
  private readonly limiter: RateLimiter;

  constructor(knex: Knex) {
    this.limiter = new RateLimiter(knex);
  }

  async signUp(email: string, ip: string): Promise<void> {
    await this.count(`signup:client:${clientKey(ip)}`, AUTH_LIMITS.signUpPerClient);
    await this.count(`signup:email:${email}`, AUTH_LIMITS.signUpPerEmail);
  }

  /** Counts a login attempt from the client, and refuses one whose email and client have failed too often. */
  async logIn(email: string, ip: string): Promise<void> {
    await this.count(`login:client:${clientKey(ip)}`, AUTH_LIMITS.loginPerClient);
    const wait = await this.limiter.peek(this.loginFailures(email, ip));
    if (wait !== null) throw tooManyRequests(wait);
  }

  async loginFailed(email: string, ip: string): Promise<void> {
    await this.limiter.hit(this.loginFailures(email, ip));
  }

  async loginSucceeded(email: string, ip: string): Promise<void> {
    await this.limiter.reset(this.loginFailures(email, ip).key);
  }

  async forgotPassword(email: string, ip: string): Promise<void> {
    await this.count(`forgot-password:client:${clientKey(ip)}`, AUTH_LIMITS.forgotPasswordPerClient);
    await this.count(`forgot-password:email:${email}`, AUTH_LIMITS.forgotPasswordPerEmail);
  }

  async resetPassword(ip: string): Promise<void> {
    await this.count(`reset-password:client:${clientKey(ip)}`, AUTH_LIMITS.resetPasswordPerClient);
  }

  async resetPasswordOf(email: string): Promise<void> {
    await this.count(`reset-password:email:${email}`, AUTH_LIMITS.resetPasswordPerAccount);
  }

  /** The email comes first and the client address, which holds no `|`, last: distinct pairs get distinct keys. */
  private loginFailures(email: string, ip: string): RateLimitRule {
    return { key: `login:failures:${email}|${clientKey(ip)}`, ...AUTH_LIMITS.loginFailuresPerEmailAndClient };
  }

  private async count(key: string, rule: Omit<RateLimitRule, "key">): Promise<void> {
    const wait = await this.limiter.hit({ key, ...rule });
    if (wait !== null) throw tooManyRequests(wait);
  }
}
