/** A competitor's page: details (edit, delete), sources, activity, insight and the pricing history. */
import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import type { Schemas } from "../api.js";
import { $api } from "../query.js";
import { ErrorNote, ExternalLink, Loading, Section, SeverityBadge, TypeBadge, usePageTitle } from "../components.js";
import {
  capitalise,
  dateTime,
  day,
  frequency,
  money,
  perPeriod,
  SERIES_COLORS as COLORS,
  SOURCE_TYPES,
} from "../format.js";

const PricingChart = lazy(() => import("./pricing-chart.js"));

export default function CompetitorPage() {
  const { competitorId = "" } = useParams();
  const path = { competitor_id: competitorId };
  const competitor = $api.useQuery("get", "/competitors/{competitor_id}", { params: { path } });
  usePageTitle(competitor.data?.name ?? "Competitor");
  if (competitor.isPending) return <Loading what="Loading the competitor" />;
  if (competitor.isError)
    return (
      <>
        <h1>Competitor</h1>
        <ErrorNote error={competitor.error} />
        <Link to="/competitors">Back to competitors</Link>
      </>
    );
  return (
    <>
      <p>
        <Link to="/competitors">← Competitors</Link>
      </p>
      <h1>{competitor.data.name}</h1>
      <p className="muted">
        <ExternalLink href={`https://${competitor.data.domain}`}>{competitor.data.domain}</ExternalLink>
        {competitor.data.description ? ` · ${competitor.data.description}` : ""}
      </p>
      <Details competitor={competitor.data} />
      <Sources competitorId={competitorId} />
      <PricingHistory competitorId={competitorId} />
      <Activity competitorId={competitorId} />
      <Insight competitorId={competitorId} />
    </>
  );
}

function Details({ competitor }: { competitor: Schemas["Competitor"] }) {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const path = { competitor_id: competitor.id };
  const update = $api.useMutation("patch", "/competitors/{competitor_id}", {
    onSuccess: () => queries.invalidateQueries(),
  });
  const remove = $api.useMutation("delete", "/competitors/{competitor_id}", {
    onSuccess: async () => {
      await queries.invalidateQueries();
      navigate("/competitors");
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const aliases = String(form.get("aliases") ?? "")
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean);
    update.mutate({
      params: { path },
      body: {
        name: String(form.get("name")).trim(),
        domain: String(form.get("domain")).trim(),
        description: String(form.get("description")).trim() || null,
        aliases: aliases.length ? aliases : null,
      },
    });
  };
  return (
    <details className="card">
      <summary>Edit or delete {competitor.name}</summary>
      <form onSubmit={submit} className="stack">
        <label>
          Name
          <input name="name" defaultValue={competitor.name} required maxLength={200} />
        </label>
        <label>
          Domain
          <input name="domain" defaultValue={competitor.domain} required />
        </label>
        <label>
          Description
          <input name="description" defaultValue={competitor.description ?? ""} maxLength={2000} />
        </label>
        <label>
          Aliases (comma-separated)
          <input name="aliases" defaultValue={(competitor.aliases ?? []).join(", ")} />
        </label>
        <ErrorNote error={update.error} />
        {update.isSuccess && <p role="status">Saved.</p>}
        <div className="actions">
          <button type="submit" disabled={update.isPending}>
            Save changes
          </button>
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm(`Stop tracking ${competitor.name}? Its sources and events are deleted.`))
                remove.mutate({ params: { path } });
            }}
          >
            Delete competitor
          </button>
        </div>
        <ErrorNote error={remove.error} />
      </form>
    </details>
  );
}

function health(source: Schemas["Source"]): string {
  if (!source.is_active) return "Paused";
  if (source.error_message) return "Failing";
  if (!source.last_fetched_at) return "Waiting for its first fetch";
  return "Healthy";
}

function Sources({ competitorId }: { competitorId: string }) {
  const queries = useQueryClient();
  const path = { competitor_id: competitorId };
  const [polling, setPolling] = useState(0);
  const [editing, setEditing] = useState<Schemas["Source"] | null>(null);
  const sources = $api.useQuery(
    "get",
    "/competitors/{competitor_id}/sources",
    { params: { path } },
    { refetchInterval: polling > Date.now() ? 2000 : false },
  );
  const refresh = () => queries.invalidateQueries();
  const runNow = $api.useMutation("post", "/sources/{source_id}/run-now", {
    onSuccess: () => {
      // A fetch takes seconds: follow it for a minute (sources, events and pricing history refresh).
      setPolling(Date.now() + 60_000);
      setTimeout(refresh, 3000);
    },
  });
  const update = $api.useMutation("patch", "/sources/{source_id}", { onSuccess: refresh });
  const remove = $api.useMutation("delete", "/sources/{source_id}", { onSuccess: refresh });
  const create = $api.useMutation("post", "/competitors/{competitor_id}/sources", { onSuccess: refresh });
  const profile = $api.useMutation("post", "/competitors/{competitor_id}/profile");
  const discover = $api.useMutation("post", "/competitors/{competitor_id}/discover-sources", { onSuccess: refresh });

  const add = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    create.mutate({
      params: { path },
      body: {
        url: String(form.get("url")).trim(),
        source_type: String(form.get("source_type")) as Schemas["SourceType"],
        fetch_method: String(form.get("fetch_method")) as Schemas["FetchMethod"],
        fetch_frequency_minutes: Number(form.get("fetch_frequency_minutes")),
      },
    });
  };
  const suggestions = ((profile.data?.recommendations ?? []) as Record<string, unknown>[]).filter(
    (r) => r.type === "track_source" && typeof r.url === "string",
  );
  const tracked = new Set((sources.data ?? []).map((s) => s.url));

  return (
    <Section title="Sources">
      {sources.isPending ? (
        <Loading what="Loading sources" />
      ) : sources.isError ? (
        <ErrorNote error={sources.error} />
      ) : sources.data.length === 0 ? (
        <p className="empty">No pages tracked yet. Add one below, or find suggested pages.</p>
      ) : (
        <div className="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Page</th>
                <th scope="col">Type</th>
                <th scope="col">Method</th>
                <th scope="col">Frequency</th>
                <th scope="col">Last success</th>
                <th scope="col">Health</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sources.data.map((source) => (
                <tr key={source.id}>
                  <th scope="row">
                    <ExternalLink href={source.url}>{source.url}</ExternalLink>
                  </th>
                  <td>{capitalise(source.source_type)}</td>
                  <td>{source.fetch_method}</td>
                  <td>{frequency(source.fetch_frequency_minutes)}</td>
                  <td>{dateTime(source.last_success_at)}</td>
                  <td>
                    <span className={`health health-${health(source).split(" ")[0]!.toLowerCase()}`}>
                      {health(source)}
                    </span>
                    {source.error_message && <p className="error-text">{source.error_message}</p>}
                  </td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        aria-label={`Run now: ${source.url}`}
                        onClick={() => runNow.mutate({ params: { path: { source_id: source.id } } })}
                        disabled={!source.is_active || runNow.isPending}
                      >
                        Run now
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        aria-label={`${source.is_active ? "Pause" : "Resume"}: ${source.url}`}
                        onClick={() =>
                          update.mutate({
                            params: { path: { source_id: source.id } },
                            body: { is_active: !source.is_active },
                          })
                        }
                      >
                        {source.is_active ? "Pause" : "Resume"}
                      </button>
                      <button
                        type="button"
                        className="link"
                        aria-label={`Change: ${source.url}`}
                        onClick={() => setEditing(source)}
                      >
                        Change
                      </button>
                      <button
                        type="button"
                        className="link"
                        aria-label={`Remove: ${source.url}`}
                        onClick={() => {
                          if (window.confirm(`Stop tracking ${source.url}?`))
                            remove.mutate({ params: { path: { source_id: source.id } } });
                        }}
                      >
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <form
          aria-label={`Change ${editing.url}`}
          className="inline-form card"
          key={editing.id}
          onSubmit={(e) => {
            e.preventDefault();
            const form = new FormData(e.currentTarget);
            update.mutate(
              {
                params: { path: { source_id: editing.id } },
                body: {
                  source_type: String(form.get("source_type")) as Schemas["SourceType"],
                  fetch_method: String(form.get("fetch_method")) as Schemas["FetchMethod"],
                  fetch_frequency_minutes: Number(form.get("fetch_frequency_minutes")),
                },
              },
              { onSuccess: () => setEditing(null) },
            );
          }}
        >
          <p>
            <strong>{editing.url}</strong>
          </p>
          <label>
            Type of the page
            <select name="source_type" defaultValue={editing.source_type}>
              {SOURCE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {capitalise(t)}
                </option>
              ))}
            </select>
          </label>
          <label>
            How to fetch it
            <select name="fetch_method" defaultValue={editing.fetch_method}>
              <option value="http">http (as the server sends it)</option>
              <option value="browser">browser (render its scripts)</option>
              <option value="rss">rss (a feed)</option>
            </select>
          </label>
          <label>
            How often
            <select name="fetch_frequency_minutes" defaultValue={String(editing.fetch_frequency_minutes)}>
              {[...new Set([60, 360, 1440, 10080, editing.fetch_frequency_minutes])].map((m) => (
                <option key={m} value={m}>
                  {capitalise(frequency(m))}
                  {m < 360 ? " (Growth and above)" : ""}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={update.isPending}>
            Save page
          </button>
          <button type="button" className="link" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      {runNow.isSuccess && (
        <p role="status">
          {runNow.data.status === "already_queued" ? "A fetch is already queued." : "Fetch queued."} The page is fetched
          in a few seconds; new events appear in the feed.
        </p>
      )}
      <ErrorNote error={runNow.error ?? update.error ?? remove.error} />

      <h3>Add a page</h3>
      <form onSubmit={add} className="inline-form">
        <label>
          URL
          <input name="url" type="url" required placeholder="https://acme.com/pricing" />
        </label>
        <label>
          Type
          <select name="source_type" defaultValue="pricing">
            {SOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {capitalise(t)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Method
          <select name="fetch_method" defaultValue="http">
            <option value="http">http (as the server sends it)</option>
            <option value="browser">browser (render its scripts)</option>
            <option value="rss">rss (a feed)</option>
          </select>
        </label>
        <label>
          Frequency
          <select name="fetch_frequency_minutes" defaultValue="1440">
            <option value="60">Hourly (Growth and above)</option>
            <option value="360">Every 6 hours</option>
            <option value="1440">Daily</option>
            <option value="10080">Weekly</option>
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          Add page
        </button>
      </form>
      <ErrorNote error={create.error} />

      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={profile.isPending}
          onClick={() => profile.mutate({ params: { path } })}
        >
          {profile.isPending ? "Reading their website…" : "Find suggested pages"}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={discover.isPending}
          onClick={() => discover.mutate({ params: { path } })}
        >
          {discover.isPending ? "Reading their website…" : "Track every page found"}
        </button>
      </div>
      <ErrorNote error={profile.error ?? discover.error} />
      {discover.isSuccess && (
        <p role="status">
          {discover.data.length === 0
            ? "No new pages found: the pages their website links to are tracked already."
            : `Now tracking ${discover.data.length} more page${discover.data.length === 1 ? "" : "s"}.`}
        </p>
      )}
      {profile.isSuccess &&
        (suggestions.length === 0 ? (
          <p role="status">No new pages to suggest: the pages found on their website are tracked already.</p>
        ) : (
          <ul className="suggestions" aria-label="Suggested pages">
            {suggestions.map((s) => (
              <li key={String(s.url)}>
                <strong>{capitalise(String(s.source_type ?? "other"))}</strong> {String(s.url)}
                {s.reason ? <span className="muted"> — {String(s.reason)}</span> : null}{" "}
                <button
                  type="button"
                  disabled={tracked.has(String(s.url)) || create.isPending}
                  aria-label={`${tracked.has(String(s.url)) ? "Tracked" : "Track"} ${String(s.url)}`}
                  onClick={() =>
                    create.mutate({
                      params: { path },
                      body: {
                        url: String(s.url),
                        source_type: String(s.source_type ?? "other") as Schemas["SourceType"],
                        fetch_method: (s.fetch_method ?? "http") as Schemas["FetchMethod"],
                      },
                    })
                  }
                >
                  {tracked.has(String(s.url)) ? "Tracked" : "Track"}
                </button>
              </li>
            ))}
          </ul>
        ))}
    </Section>
  );
}

function PricingHistory({ competitorId }: { competitorId: string }) {
  const history = $api.useQuery("get", "/competitors/{competitor_id}/pricing-history", {
    params: { path: { competitor_id: competitorId } },
  });
  return (
    <Section title="Pricing history">
      {history.isPending ? (
        <Loading what="Loading the pricing history" />
      ) : history.isError ? (
        <ErrorNote error={history.error} />
      ) : history.data.series.length === 0 ? (
        <p className="empty">No prices seen yet: track the competitor's pricing page to build its history.</p>
      ) : (
        <>
          <p className="muted">
            Since {day(history.data.since)} (your plan's history). Each step is a change the pricing page showed; select
            a step to open its event.
          </p>
          <figure>
            <div
              role="img"
              aria-label="Step chart of each plan's price over time; the table below lists the same data."
            >
              <Suspense fallback={<Loading what="Drawing the chart" />}>
                <PricingChart history={history.data} />
              </Suspense>
            </div>
            <figcaption>
              <ul className="legend">
                {history.data.series.map((s, i) => (
                  <li key={s.id}>
                    <span className="swatch" data-color={i % COLORS.length} aria-hidden="true" /> {s.name}
                    {s.kind !== "plan" ? ` (${s.kind === "addon" ? "add-on" : "usage"})` : ""}
                  </li>
                ))}
              </ul>
            </figcaption>
          </figure>
          <div className="scroll">
            <table>
              <caption>Price steps by plan</caption>
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">Date</th>
                  <th scope="col">Price</th>
                  <th scope="col">Promotion</th>
                  <th scope="col">Event</th>
                </tr>
              </thead>
              <tbody>
                {history.data.series.flatMap((s) =>
                  s.points.map((p, i) => (
                    <tr key={`${s.id}-${i}`}>
                      <th scope="row">{p.name ?? s.name}</th>
                      <td>{dateTime(p.observed_at)}</td>
                      <td>
                        {p.listed
                          ? `${money(p.amount, s.currency)}${p.amount === null ? "" : perPeriod(p.period)}`
                          : "No longer listed"}
                      </td>
                      <td>{p.promo_amount !== null ? money(p.promo_amount, s.currency) : ""}</td>
                      <td>{p.event_id ? <Link to={`/events/${p.event_id}`}>Open event</Link> : ""}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Section>
  );
}

function Activity({ competitorId }: { competitorId: string }) {
  const activity = $api.useQuery("get", "/events/activity", { params: { query: { days: 30 } } });
  const markers = ((activity.data?.competitors ?? {}) as Record<string, Schemas["ActivityMarker"][]>)[competitorId];
  return (
    <Section title="Activity">
      {activity.isPending ? (
        <Loading what="Loading activity" />
      ) : activity.isError ? (
        <ErrorNote error={activity.error} />
      ) : !markers || markers.length === 0 ? (
        <p className="empty">No events in the last {activity.data.days} days.</p>
      ) : (
        <>
          <p>
            {markers.length} event{markers.length === 1 ? "" : "s"} in the last {activity.data.days} days.
          </p>
          <ol className="markers" aria-label="Events by time">
            {markers.map((m, i) => (
              <li key={i}>
                <SeverityBadge severity={m.severity} /> {dateTime(m.detected_at)}
              </li>
            ))}
          </ol>
          <Link to={`/events?competitor_id=${competitorId}`}>See these events</Link>
        </>
      )}
    </Section>
  );
}

function Insight({ competitorId }: { competitorId: string }) {
  const insight = $api.useQuery("get", "/insights/{competitor_id}", {
    params: { path: { competitor_id: competitorId } },
  });
  const data = insight.data && "event_count" in insight.data ? insight.data : null;
  return (
    <Section title="Insight">
      {insight.isPending ? (
        <Loading what="Loading the insight" />
      ) : insight.isError ? (
        <ErrorNote error={insight.error} />
      ) : !data ? (
        <p className="empty">No insight yet.</p>
      ) : (
        <>
          <dl className="facts">
            <div>
              <dt>Industry</dt>
              <dd>{data.industry ?? "unknown"}</dd>
            </div>
            <div>
              <dt>Business model</dt>
              <dd>{data.business_model ?? "unknown"}</dd>
            </div>
            <div>
              <dt>Events</dt>
              <dd>{data.event_count}</dd>
            </div>
            <div>
              <dt>Sources scanned</dt>
              <dd>
                {data.scanned_sources} of {data.total_sources}
              </dd>
            </div>
          </dl>
          {data.recent_events.length > 0 && (
            <>
              <h3>Recent moves</h3>
              <ul className="plain">
                {data.recent_events.slice(0, 5).map((e) => (
                  <li key={e.id}>
                    <SeverityBadge severity={e.severity} /> <TypeBadge type={e.event_type} />{" "}
                    <Link to={`/events/${e.id}`}>{e.title}</Link>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </Section>
  );
}
