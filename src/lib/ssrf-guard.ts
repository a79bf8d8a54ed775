/**
 * SSRF guard of the outbound HTTP client (src/lib/http-client.ts). Customers choose the URLs we fetch and the
 * endpoints we call (sources, webhooks, CRM), so every connection must reach a public unicast address, and the
 * address checked must be the address connected to (docs/stack-notes.md#ssrf-with-undici):
 * - IP literals are checked before connecting, because Node skips the `lookup` function for them;
 * - names are resolved by `createGuardedLookup`, which undici hands to `net.connect`/`tls.connect`; the socket connects
 *   to the addresses this lookup returned and checked, so a DNS answer cannot change between check and connect
 *   (rebinding), and a name is refused when ANY of its addresses is not public.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to all its addresses (dns.promises.lookup with `all: true`, or a test double). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardPolicy {
  /** false when ALLOW_PRIVATE_TARGETS=1: addresses are not checked (the scheme still is, by the client). */
  checkAddresses: boolean;
  /** Normalised hostnames (see `normaliseHostname`) whose addresses are not checked: the operator's escape hatch. */
  exemptHosts: ReadonlySet<string>;
}

/**
 * A connection refused by the guard; `literal` when the URL named the address itself. The message never names the
 * address a hostname resolved to: it is stored and shown to the tenant, who could otherwise map internal DNS with it
 * (the address stays on the error for logs).
 */
export class BlockedTargetError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly literal: boolean,
  ) {
    super(literal ? `blocked: ${hostname} is a private address` : `blocked: ${hostname} resolves to a private address`);
    this.name = "BlockedTargetError";
  }
}

/** The name has no address (NXDOMAIN, resolver failure, or no address of the family asked for). */
export class UnresolvableHostError extends Error {
  constructor(
    readonly hostname: string,
    options?: { cause?: unknown },
  ) {
    super(`could not resolve ${hostname}`, options);
    this.name = "UnresolvableHostError";
  }
}

/** URL hostname as compared with `allowHosts`: lower case, IPv6 brackets and a trailing root dot removed. */
export function normaliseHostname(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  return host;
}

/**
 * The IP address a URL hostname names, or null for a name. WHATWG URL parsing has already turned the decimal, octal
 * and hex IPv4 forms (`2130706433`, `0177.0.0.1`, `0x7f.1`) into dotted quads and bracketed IPv6.
 */
export function ipLiteral(hostname: string): string | null {
  const host = normaliseHostname(hostname);
  return isIP(host) ? host : null;
}

/**
 * True only for public unicast addresses. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it
 * carries. Every ipaddr.js special range is refused (loopback, RFC 1918, link-local incl. 169.254.169.254 cloud
 * metadata, 100.64/10 CGNAT, 0/8, multicast, broadcast, reserved, unique-local, NAT64, 6to4, Teredo, …), and IPv6
 * must also lie in 2000::/3, the only block IANA allocates as global unicast: that excludes the deprecated
 * IPv4-compatible `::a.b.c.d` form, which ipaddr.js reports as plain unicast.
 */
export function isPublicUnicast(address: string): boolean {
  if (!isIP(address)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.range() !== "unicast") return false;
  if (parsed.kind() === "ipv6") {
    const first = (parsed as ipaddr.IPv6).parts[0] ?? 0;
    return first >> 13 === 0b001;
  }
  return true;
}

function isExempt(hostname: string, policy: GuardPolicy): boolean {
  return !policy.checkAddresses || policy.exemptHosts.has(normaliseHostname(hostname));
}

/** Throws BlockedTargetError when `hostname` is an IP literal the policy does not allow. */
export function assertLiteralAllowed(hostname: string, policy: GuardPolicy): void {
  const literal = ipLiteral(hostname);
  if (literal === null || isExempt(hostname, policy)) return;
  if (!isPublicUnicast(literal)) throw new BlockedTargetError(literal, literal, true);
}

/** Resolves `hostname` and checks every address; throws UnresolvableHostError or BlockedTargetError. */
export async function resolveChecked(
  hostname: string,
  resolve: Resolver,
  policy: GuardPolicy,
): Promise<ResolvedAddress[]> {
  const host = normaliseHostname(hostname);
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new UnresolvableHostError(host, { cause: error });
  }
  if (addresses.length === 0) throw new UnresolvableHostError(host);
  if (!isExempt(host, policy)) {
    const refused = addresses.find((entry) => !isPublicUnicast(entry.address));
    if (refused) throw new BlockedTargetError(host, refused.address, false);
  }
  return addresses;
}

/**
 * A `lookup` for net/tls `connect` options. Node calls it with `all: true` when it races address families
 * (autoSelectFamily, on by default since Node 20) and expects a single address otherwise.
 */
export function createGuardedLookup(resolve: Resolver, policy: GuardPolicy): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveChecked(hostname, resolve, policy).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : null;
        const usable: LookupAddress[] = family === null ? addresses : addresses.filter((a) => a.family === family);
        const first = usable[0];
        if (!first) {
          callback(new UnresolvableHostError(normaliseHostname(hostname)), "");
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}

/** The operating system's resolver (dns.promises.lookup with `all: true`), as the client uses by default. */
export const systemResolver: Resolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * Checks a hostname now, as the client will when it connects: for endpoints a customer configures ahead of use
 * (webhook-add), so a private target is refused when it is saved instead of failing every later delivery.
 * Throws BlockedTargetError or UnresolvableHostError.
 */
export async function assertTargetAllowed(
  hostname: string,
  policy: GuardPolicy,
  resolve: Resolver = systemResolver,
): Promise<void> {
  if (ipLiteral(hostname) !== null) {
    assertLiteralAllowed(hostname, policy);
    return;
  }
  await resolveChecked(hostname, resolve, policy);
}
