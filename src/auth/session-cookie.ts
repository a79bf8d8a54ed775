/**
 * The web app's browser session (spec/auth.tsp, `POST /auth/session`): the access token in an `HttpOnly`,
 * `SameSite=Strict` cookie, so the app's scripts never hold it and a script injected into the page cannot carry it
 * away. Unsafe methods must also carry `X-Rivalscope-Client: web`, a header another site's page cannot send without
 * a CORS preflight this service never approves: a forged cross-site request finds no usable session.
 */
import type { Config } from "../config.js";

export const SESSION_COOKIE = "rivalscope_session";
export const CLIENT_HEADER = "x-rivalscope-client";

function attributes(config: Readonly<Config>): string {
  const secure = config.publicBaseUrl.startsWith("https:") ? "; Secure" : "";
  return `HttpOnly; SameSite=Strict; Path=/${secure}`;
}

export function sessionCookie(token: string, config: Readonly<Config>): string {
  return `${SESSION_COOKIE}=${token}; ${attributes(config)}; Max-Age=${config.jwtTtlSeconds}`;
}

export function clearedSessionCookie(config: Readonly<Config>): string {
  return `${SESSION_COOKIE}=; ${attributes(config)}; Max-Age=0`;
}

/**
 * The `Authorization` value a request authenticates with: its own header, else the session cookie as a bearer token
 * when the method is safe or the request carries the web client's header.
 */
export function credentialsOf(
  method: string,
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const authorization = first(headers.authorization);
  if (authorization !== undefined) return authorization;
  const token = cookieValue(first(headers.cookie), SESSION_COOKIE);
  if (!token) return undefined;
  const safe = method === "GET" || method === "HEAD";
  if (!safe && first(headers[CLIENT_HEADER]) !== "web") return undefined;
  return `Bearer ${token}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
