/** One event: summary, impact, confidence and its reasoning, evidence, screenshot, the change before → after. */
import { Link, useParams } from "react-router";
import type { Schemas } from "../api.js";
import { $api } from "../query.js";
import {
  ErrorNote,
  ExternalLink,
  Loading,
  Section,
  SeverityBadge,
  StatusBadge,
  TypeBadge,
  usePageTitle,
} from "../components.js";
import { dateTime, money, percent, perPeriod } from "../format.js";
import { EventActions } from "./events.js";

interface PlanState {
  name?: string;
  amount?: number | null;
  currency?: string | null;
  period?: string | null;
  promo_amount?: number | null;
}

const isPlanState = (value: unknown): value is PlanState =>
  typeof value === "object" && value !== null && "amount" in value && "name" in value;

function price(plan: PlanState | null): string {
  if (!plan) return "not listed";
  const list = `${money(plan.amount, plan.currency)}${plan.amount === null ? "" : perPeriod(plan.period)}`;
  return plan.promo_amount != null ? `${list}, on promotion at ${money(plan.promo_amount, plan.currency)}` : list;
}

/** Prices before and after, from the evidence detection stored with a pricing event (its plan records). */
function PriceChanges({ evidence }: { evidence: Schemas["Evidence"][] }) {
  const rows = evidence
    .map((item) => item.metadata_json as { before?: unknown; after?: unknown } | null)
    .filter((m): m is { before: unknown; after: unknown } => !!m && (isPlanState(m.before) || isPlanState(m.after)));
  if (rows.length === 0) return null;
  return (
    <Section title="Prices before and after">
      <table>
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m, i) => {
            const before = isPlanState(m.before) ? m.before : null;
            const after = isPlanState(m.after) ? m.after : null;
            return (
              <tr key={i}>
                <th scope="row">
                  {before && after && before.name !== after.name
                    ? `${before.name} → ${after.name}`
                    : (after ?? before)?.name}
                </th>
                <td>{price(before)}</td>
                <td>{price(after)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}

/** Other changes in readable before/after form: headings and copy, then the page's added and removed lines. */
function TextChanges({ diff, collapsed }: { diff: Record<string, unknown> | null; collapsed: boolean }) {
  const narrative = (diff?.narrative ?? []) as { field: string; before: string | null; after: string | null }[];
  const text = (diff?.text ?? {}) as { added?: string[]; removed?: string[] };
  if (narrative.length === 0 && !text.added?.length && !text.removed?.length) return null;
  return (
    <Section title="What changed on the page">
      {narrative.length > 0 && (
        <dl className="changes">
          {narrative.map((change, i) => (
            <div key={i}>
              <dt>{change.field.replace("_", " ")}</dt>
              <dd>
                <del>{change.before ?? "(none)"}</del> → <ins>{change.after ?? "(none)"}</ins>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {(text.removed?.length ?? 0) + (text.added?.length ?? 0) > 0 && (
        <details open={!collapsed}>
          <summary>
            Lines of the page this fetch removed ({text.removed?.length ?? 0}) and added ({text.added?.length ?? 0})
          </summary>
          {(text.removed?.length ?? 0) > 0 && (
            <>
              <h3>Removed</h3>
              <ul className="lines removed">
                {text.removed!.slice(0, 20).map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            </>
          )}
          {(text.added?.length ?? 0) > 0 && (
            <>
              <h3>Added</h3>
              <ul className="lines added">
                {text.added!.slice(0, 20).map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            </>
          )}
        </details>
      )}
    </Section>
  );
}

export function EventPage() {
  const { eventId = "" } = useParams();
  const detail = $api.useQuery("get", "/events/{event_id}", { params: { path: { event_id: eventId } } });
  usePageTitle(detail.data?.event.title ?? "Event");
  if (detail.isPending) return <Loading what="Loading the event" />;
  if (detail.isError)
    return (
      <>
        <h1>Event</h1>
        <ErrorNote error={detail.error} />
        <Link to="/events">Back to events</Link>
      </>
    );
  const { event, evidence, competitor_name, source_url, diff_json } = detail.data;
  const screenshot = evidence.find((item) => item.evidence_type === "screenshot" && item.asset_object_key);
  return (
    <article>
      <p>
        <Link to="/events">← Events</Link>
      </p>
      <div className="badges">
        <SeverityBadge severity={event.severity} />
        <TypeBadge type={event.event_type} />
        <StatusBadge status={event.status} />
      </div>
      <h1>{event.title}</h1>
      <p className="muted">
        <Link to={`/competitors/${event.competitor_id}`}>{competitor_name ?? "Competitor"}</Link> · detected{" "}
        {dateTime(event.detected_at)}
        {source_url ? (
          <>
            {" "}
            · <ExternalLink href={source_url}>source page</ExternalLink>
          </>
        ) : null}
      </p>
      <EventActions event={event} />
      <Section title="Summary">
        <p>{event.summary}</p>
        <h3>Impact</h3>
        <p>{event.impact_summary}</p>
        <h3>Confidence: {percent(event.confidence_score)}</h3>
        <p>
          {event.is_inferred ? "Inferred. " : ""}
          {event.confidence_reasoning}
        </p>
      </Section>
      <PriceChanges evidence={evidence} />
      {/* A pricing event's prices say it; the page's other lines of the same fetch stay one click away. */}
      <TextChanges
        diff={diff_json as Record<string, unknown> | null}
        collapsed={event.event_type === "pricing_change" || event.event_type === "hiring_change"}
      />
      {screenshot && (
        <Section title="Screenshot">
          <figure>
            <img
              src={`/events/${encodeURIComponent(event.id)}/screenshot`}
              alt={`The changed region of the page${screenshot.excerpt ? `: ${screenshot.excerpt.slice(0, 200)}` : ""}`}
            />
          </figure>
        </Section>
      )}
      <Section title="Evidence">
        {evidence.length === 0 ? (
          <p className="muted">No evidence was stored with this event.</p>
        ) : (
          <ul className="evidence">
            {evidence.map((item) => (
              <li key={item.id}>
                <strong>{item.title}</strong> <span className="muted">({item.evidence_type.replace("_", " ")})</span>
                {item.excerpt && <blockquote>{item.excerpt}</blockquote>}
                <ExternalLink href={item.source_url}>{item.source_url}</ExternalLink>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </article>
  );
}
