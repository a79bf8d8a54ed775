/**
 * The form of a URL used to recognise two spellings of one page (`normalized_url`, unique per competitor):
 * lowercased scheme and host, no default port, no fragment, no tracking parameters, remaining parameters sorted,
 * no trailing slash.
 */
const TRACKING_PARAMETERS = new Set([
  "gclid",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "yclid",
  "igshid",
  "twclid",
  "mc_cid",
  "mc_eid",
  "_ga",
  "_gl",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  "ref_src",
]);

const isTrackingParameter = (name: string) => {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_PARAMETERS.has(lower);
};

export function normalizeUrl(input: string): string {
  const url = new URL(input.trim());
  url.hash = "";
  // URL already lowercases the scheme and host and drops default ports (":443" on https).
  const kept = [...url.searchParams.entries()].filter(([name]) => !isTrackingParameter(name));
  kept.sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  const query = new URLSearchParams(kept).toString();
  const pathname = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${pathname}${query ? `?${query}` : ""}`;
}

/** The lowercased host of a domain given as a bare host (`Acme.com`) or as a URL (`https://www.acme.com/x`). */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim();
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).hostname;
  } catch {
    return null;
  }
  host = host.replace(/\.$/, "").toLowerCase();
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((l) => label.test(l)) || /^\d+$/.test(labels.at(-1)!)) return null;
  return host;
}
