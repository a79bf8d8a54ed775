/** Small shared pieces. Every text they show is rendered by React as text: no HTML from the API is ever parsed. */
import { useEffect, type ReactNode } from "react";
import type { Schemas } from "./api.js";
import { errorText } from "./api.js";
import { capitalise, TYPE_LABEL } from "./format.js";

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Rivalscope`;
  }, [title]);
}

export function SeverityBadge({ severity }: { severity: Schemas["Severity"] }) {
  return <span className={`badge severity-${severity}`}>{capitalise(severity)}</span>;
}

export function TypeBadge({ type }: { type: Schemas["EventType"] }) {
  return <span className={`badge type-${type}`}>{TYPE_LABEL[type] ?? type}</span>;
}

export function StatusBadge({ status }: { status: Schemas["EventStatus"] }) {
  return status === "new" ? null : <span className={`badge status-${status}`}>{capitalise(status)}</span>;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {errorText(error)}
    </p>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p role="status" className="muted">
      {what}…
    </p>
  );
}

export function Section({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = id ?? `h-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section aria-labelledby={headingId} className="card">
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** A URL from the API, linked only when it is http(s): a `javascript:` URL in competitor data is shown, never followed. */
export function ExternalLink({ href, children }: { href: string | null | undefined; children?: ReactNode }) {
  if (!href) return <>{children}</>;
  const safe = /^https?:\/\//i.test(href);
  if (!safe) return <span>{children ?? href}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children ?? href}
    </a>
  );
}
