/**
 * Credentials in URLs are redacted before a URL is logged (docs/operations.md#access-log): an unsubscribe link's
 * `?token=` is valid for 90 days, and a log is read by more people, and kept longer, than the mail the link came in.
 * Query parameters whose names say they hold a credential keep their name and lose their value; everything else of
 * the URL is logged as it came, still percent-encoded, so a value cannot forge a parameter of its own.
 */

/** Parameter names that carry credentials: tokens, keys, secrets, signatures, passwords, authorisation codes. */
const CREDENTIAL_PARAMETER = /token|secret|passw|signature|^sig$|^key$|api[-_]?key|^code$|^auth/i;

export const REDACTED = "[redacted]";

/** `url` (a request target such as `/unsubscribe?token=…`) with the values of credential parameters replaced. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  if (queryAt < 0) return url;
  const hashAt = url.indexOf("#", queryAt);
  const query = url.slice(queryAt + 1, hashAt < 0 ? undefined : hashAt);
  const redacted = query
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      if (equals < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, equals).replace(/\+/g, " "));
      } catch {
        name = pair.slice(0, equals);
      }
      return CREDENTIAL_PARAMETER.test(name) ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    })
    .join("&");
  return `${url.slice(0, queryAt)}?${redacted}`;
}
