/** The events feed: the API's filters (kept in the URL, so a filtered feed can be shared), paging, badges, triage. */
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import type { Schemas } from "../api.js";
import { $api } from "../query.js";
import { ErrorNote, Loading, SeverityBadge, StatusBadge, TypeBadge, usePageTitle } from "../components.js";
import { capitalise, dateTime, EVENT_TYPES, percent, SEVERITIES, TYPE_LABEL } from "../format.js";

const PAGE_SIZE = 20;

/** Why an event is dismissed, as the API's `reason` (the empty value sends none: the dismissal teaches nothing). */
const DISMISSAL_REASONS: { value: Schemas["DismissalReason"] | ""; label: string }[] = [
  { value: "", label: "No reason" },
  { value: "noise", label: "Noise (a banner, a counter, a date)" },
  { value: "not_relevant", label: "Not relevant to us" },
  { value: "wrong", label: "Wrongly read" },
];

/**
 * Acknowledge and Dismiss, in the feed and on an event's page; the feed and the event refresh after a change. A
 * dismissal may say why, which teaches detection about the event's source (learned rules).
 */
export function EventActions({ event }: { event: Pick<Schemas["EventResponse"], "id" | "status" | "title"> }) {
  const queries = useQueryClient();
  const [reason, setReason] = useState<Schemas["DismissalReason"] | "">("");
  const update = $api.useMutation("patch", "/events/{event_id}/status", {
    onSuccess: () => queries.invalidateQueries(),
  });
  const set = (status: Schemas["EventStatus"]) =>
    update.mutate({
      params: {
        path: { event_id: event.id },
        query: status === "dismissed" && reason ? { status, reason } : { status },
      },
    });
  return (
    <div className="actions">
      {event.status !== "acknowledged" && (
        <button type="button" onClick={() => set("acknowledged")} disabled={update.isPending}>
          Acknowledge
        </button>
      )}
      {event.status !== "dismissed" && (
        <>
          <select
            aria-label={`Why dismiss "${event.title}"`}
            value={reason}
            onChange={(change) => setReason(change.target.value as Schemas["DismissalReason"] | "")}
          >
            {DISMISSAL_REASONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          <button type="button" className="secondary" onClick={() => set("dismissed")} disabled={update.isPending}>
            Dismiss
          </button>
        </>
      )}
      {event.status !== "new" && (
        <button type="button" className="link" onClick={() => set("new")} disabled={update.isPending}>
          Mark as new
        </button>
      )}
      <ErrorNote error={update.error} />
    </div>
  );
}

export function EventsPage() {
  usePageTitle("Events");
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get("offset") ?? 0) || 0;
  const minConfidence = params.get("min_confidence");
  const since = params.get("since");
  const query = {
    competitor_id: params.get("competitor_id") || undefined,
    event_type: (params.get("event_type") || undefined) as Schemas["EventType"] | undefined,
    severity: (params.get("severity") || undefined) as Schemas["Severity"] | undefined,
    min_confidence: minConfidence ? Number(minConfidence) / 100 : undefined,
    search: params.get("search") || undefined,
    since: since ? new Date(`${since}T00:00:00`).toISOString() : undefined,
    offset,
    limit: PAGE_SIZE,
  };
  const events = $api.useQuery("get", "/events", { params: { query } });
  const competitors = $api.useQuery("get", "/competitors");
  const names = new Map((competitors.data ?? []).map((c) => [c.id, c.name]));

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const [key, value] of form) if (String(value).trim()) next.set(key, String(value).trim());
    setParams(next);
  };
  const page = (to: number) => {
    const next = new URLSearchParams(params);
    if (to > 0) next.set("offset", String(to));
    else next.delete("offset");
    setParams(next);
  };

  return (
    <>
      <h1>Events</h1>
      <p>
        <Link to="/ask">Ask a question about your competitors</Link>
      </p>
      <form role="search" aria-label="Filter events" className="filters" onSubmit={apply} key={params.toString()}>
        <label>
          Competitor
          <select name="competitor_id" defaultValue={params.get("competitor_id") ?? ""}>
            <option value="">All competitors</option>
            {(competitors.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select name="event_type" defaultValue={params.get("event_type") ?? ""}>
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABEL[t]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select name="severity" defaultValue={params.get("severity") ?? ""}>
            <option value="">Any severity</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {capitalise(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Minimum confidence (%)
          <input name="min_confidence" type="number" min={0} max={100} step={5} defaultValue={minConfidence ?? ""} />
        </label>
        <label>
          Search
          <input name="search" type="search" maxLength={200} defaultValue={params.get("search") ?? ""} />
        </label>
        <label>
          Since
          <input name="since" type="date" defaultValue={since ?? ""} />
        </label>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="link" onClick={() => setParams(new URLSearchParams())}>
            Clear
          </button>
        </div>
      </form>

      {events.isPending ? (
        <Loading what="Loading events" />
      ) : events.isError ? (
        <ErrorNote error={events.error} />
      ) : events.data.length === 0 ? (
        <p className="empty">
          No events{params.toString() ? " match these filters" : " yet"}. Events appear when a tracked page changes;{" "}
          <Link to="/competitors">add competitors and their pages</Link> to start.
        </p>
      ) : (
        <ol className="feed" aria-label="Events">
          {events.data.map((event) => (
            <li key={event.id} className={`event status-${event.status}`}>
              <div className="badges">
                <SeverityBadge severity={event.severity} />
                <TypeBadge type={event.event_type} />
                <StatusBadge status={event.status} />
              </div>
              <h2 className="event-title">
                <Link to={`/events/${event.id}`}>{event.title}</Link>
              </h2>
              <p className="muted">
                {names.get(event.competitor_id) ?? "Competitor"} · {dateTime(event.detected_at)} · confidence{" "}
                {percent(event.confidence_score)}
              </p>
              <p>{event.summary}</p>
              <EventActions event={event} />
            </li>
          ))}
        </ol>
      )}
      <nav aria-label="Pages" className="pager">
        <button type="button" onClick={() => page(Math.max(0, offset - PAGE_SIZE))} disabled={offset === 0}>
          Previous page
        </button>
        <span className="muted">
          {events.data && events.data.length > 0 ? `Events ${offset + 1}–${offset + events.data.length}` : ""}
        </span>
        <button
          type="button"
          onClick={() => page(offset + PAGE_SIZE)}
          disabled={!events.data || events.data.length < PAGE_SIZE}
        >
          Next page
        </button>
      </nav>
    </>
  );
}
