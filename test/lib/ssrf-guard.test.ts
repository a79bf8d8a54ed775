import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import {
  BlockedTargetError,
  UnresolvableHostError,
  createGuardedLookup,
  ipLiteral,
  isPublicUnicast,
  normaliseHostname,
  type GuardPolicy,
  type Resolver,
} from "../../src/lib/ssrf-guard.js";

const guarded: GuardPolicy = { checkAddresses: true, exemptHosts: new Set() };

describe("isPublicUnicast", () => {
  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82a::200e",
    "::ffff:8.8.8.8",
  ])("accepts the public address %s", (address) => {
    expect(isPublicUnicast(address)).toBe(true);
  });

  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.20.0.1",
    "192.168.0.1",
    "169.254.169.254",
    "100.100.100.200",
    "0.0.0.0",
    "0.1.2.3",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
    "240.0.0.1",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:192.168.0.1",
    "::7f00:1",
    "64:ff9b::a00:7",
    "2002:7f00:1::",
    "2001::1",
    "2001:db8::1",
    "fc00::1",
    "fdff::1",
    "fe80::1",
    "ff02::1",
    "not-an-address",
    "",
  ])("refuses %s", (address) => {
    expect(isPublicUnicast(address)).toBe(false);
  });
});

describe("ipLiteral and normaliseHostname", () => {
  it("recognises the forms WHATWG URL leaves in a hostname", () => {
    expect(ipLiteral(new URL("http://2130706433/").hostname)).toBe("127.0.0.1");
    expect(ipLiteral(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe("::ffff:7f00:1");
    expect(ipLiteral("example.com")).toBeNull();
  });

  it("lower-cases and strips brackets and the root dot", () => {
    expect(normaliseHostname("Site.Test.")).toBe("site.test");
    expect(normaliseHostname("[::1]")).toBe("::1");
  });
});

function lookupWith(table: Record<string, LookupAddress[]>, policy: GuardPolicy = guarded) {
  const resolve: Resolver = async (hostname) => {
    const found = table[hostname];
    if (!found) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
  };
  const lookup = createGuardedLookup(resolve, policy);
  return (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>((resolveCall) => {
      lookup(hostname, options, (error, address, family) => resolveCall({ error, address, family }));
    });
}

describe("createGuardedLookup", () => {
  const table = {
    "public.test": [
      { address: "2606:4700:4700::1111", family: 6 },
      { address: "1.1.1.1", family: 4 },
    ],
    "private.test": [{ address: "10.0.0.7", family: 4 }],
    "v4only.test": [{ address: "8.8.8.8", family: 4 }],
  };

  it("answers Node's all-addresses form with every checked address", async () => {
    const result = await lookupWith(table)("public.test", { all: true });
    expect(result.error).toBeNull();
    expect(result.address).toEqual(table["public.test"]);
  });

  it("answers the single-address form with the first address of the family asked for", async () => {
    expect(await lookupWith(table)("public.test", {})).toEqual({
      error: null,
      address: "2606:4700:4700::1111",
      family: 6,
    });
    expect(await lookupWith(table)("public.test", { family: 4 })).toEqual({
      error: null,
      address: "1.1.1.1",
      family: 4,
    });
  });

  it("fails with a blocked-target error for a private answer", async () => {
    const result = await lookupWith(table)("private.test", { all: true });
    expect(result.error).toBeInstanceOf(BlockedTargetError);
    expect(result.error?.message).toBe("blocked: private.test resolves to a private address");
  });

  it("lets exempt hosts and an unguarded policy through", async () => {
    const exempt = await lookupWith(table, { checkAddresses: true, exemptHosts: new Set(["private.test"]) })(
      "Private.Test.",
      {},
    );
    expect(exempt.address).toBe("10.0.0.7");
    const unguarded = await lookupWith(table, { checkAddresses: false, exemptHosts: new Set() })("private.test", {});
    expect(unguarded.address).toBe("10.0.0.7");
  });

  it("reports unknown names and missing families as unresolvable", async () => {
    const unknown = await lookupWith(table)("nowhere.test", {});
    expect(unknown.error).toBeInstanceOf(UnresolvableHostError);
    expect(unknown.error?.message).toBe("could not resolve nowhere.test");
    const noV6 = await lookupWith(table)("v4only.test", { family: 6 });
    expect(noV6.error).toBeInstanceOf(UnresolvableHostError);
  });
});
