/**
 * The web app's pages: the dashboard at /app (every path under it is the same single page, whose router picks the
 * screen) and the public home page at /, built by `npm run build:web` into web/dist/ (committed, so `npm ci && npm
 * start` serves them with no build step and no network). Outside the contract, like /docs/assets: they are documents
 * for browsers, and every call they make goes to an operation of the contract.
 *
 * Every page carries a strict Content-Security-Policy: scripts and styles from this origin only (no inline script, no
 * eval), calls to this origin only, no frames, no plugins. Text from competitors' pages is rendered by React as text,
 * never as HTML (web/src), and this policy is the second line should that ever fail.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Request, type Response, type Router } from "express";

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../web/dist");

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");

const PAGE_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  // The pages name their hashed assets: a new build must be seen at once.
  "Cache-Control": "no-cache",
};

/** The app's routes; without a build (web/dist missing) they answer nothing and fall through to the JSON 404. */
export function webApp(dist: string = WEB_DIST): Router {
  const router = express.Router();
  const page = (file: string) => {
    const location = path.join(dist, file);
    const html = existsSync(location) ? readFileSync(location, "utf8") : null;
    return (_req: Request, res: Response, next: () => void) => {
      if (html === null) return next();
      res.status(200).set(PAGE_HEADERS).type("html").send(html);
    };
  };
  router.use(
    "/app/assets",
    express.static(path.join(dist, "assets"), {
      immutable: true,
      maxAge: "365d",
      index: false,
      setHeaders: (res) => {
        res.setHeader("X-Content-Type-Options", "nosniff");
        res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      },
    }),
  );
  const home = page("home.html");
  const app = page("index.html");
  router.get("/", home);
  router.get(["/app", "/app/*splat"], (req, res, next) => {
    // A missing asset is a 404, not the app's page.
    if (req.path.startsWith("/app/assets/")) return next();
    return app(req, res, next);
  });
  return router;
}
