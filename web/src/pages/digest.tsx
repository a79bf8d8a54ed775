/** One digest, as members receive it (the mail renders this same payload), with send and per-recipient delivery. */
import { useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { $api } from "../query.js";
import { ErrorNote, ExternalLink, Loading, Section, SeverityBadge, usePageTitle } from "../components.js";
import { capitalise, dateTime } from "../format.js";

interface Item {
  id: string;
  severity: "low" | "medium" | "high" | "critical";
  title: string;
  summary: string;
  source_url: string;
}
interface Payload {
  headline?: string;
  highlights?: Item[];
  sections?: { competitor: { id: string; name: string; domain: string }; events: Item[]; more_events: number }[];
}

function Items({ items }: { items: Item[] }) {
  return (
    <ul className="plain digest-items">
      {items.map((e) => (
        <li key={e.id}>
          <SeverityBadge severity={e.severity} /> <Link to={`/events/${e.id}`}>{e.title}</Link>
          <p>{e.summary}</p>
          <ExternalLink href={e.source_url}>Source</ExternalLink>
        </li>
      ))}
    </ul>
  );
}

function Deliveries({ digestId }: { digestId: string }) {
  const deliveries = $api.useQuery("get", "/digests/{digest_id}/deliveries", {
    params: { path: { digest_id: digestId } },
  });
  if (deliveries.isPending) return <Loading what="Loading deliveries" />;
  if (deliveries.isError) return <p className="muted">Per-recipient delivery is shown to the workspace's owners.</p>;
  if (deliveries.data.length === 0) return <p className="empty">Not sent to anyone yet.</p>;
  return (
    <table>
      <caption className="sr-only">Deliveries by recipient</caption>
      <thead>
        <tr>
          <th scope="col">Recipient</th>
          <th scope="col">Status</th>
          <th scope="col">Sent</th>
          <th scope="col">Opens</th>
          <th scope="col">Bounce</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.data.map((d) => (
          <tr key={d.id}>
            <th scope="row">{d.recipient_email}</th>
            <td>{capitalise(d.status)}</td>
            <td>{dateTime(d.sent_at)}</td>
            <td>{d.opens_count}</td>
            <td>{d.bounce_reason ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function DigestPage() {
  const { digestId = "" } = useParams();
  const queries = useQueryClient();
  const path = { digest_id: digestId };
  const digest = $api.useQuery("get", "/digests/{digest_id}", { params: { path } });
  const send = $api.useMutation("post", "/digests/{digest_id}/send", {
    onSuccess: () => queries.invalidateQueries(),
  });
  usePageTitle("Digest");
  if (digest.isPending) return <Loading what="Loading the digest" />;
  if (digest.isError) return <ErrorNote error={digest.error} />;
  const d = digest.data;
  const payload = (d.payload_json ?? {}) as Payload;
  return (
    <>
      <p>
        <Link to="/digests">← Digests</Link>
      </p>
      <h1>
        {capitalise(d.period_type)} digest of {dateTime(d.period_end)}
      </h1>
      <p className="muted">
        {dateTime(d.period_start)} – {dateTime(d.period_end)} ·{" "}
        {d.delivered_at ? `sent ${dateTime(d.delivered_at)}` : "not sent yet"}
      </p>
      <div className="actions">
        <button type="button" onClick={() => send.mutate({ params: { path } })} disabled={send.isPending}>
          Send to members
        </button>
      </div>
      <ErrorNote error={send.error} />
      {send.isSuccess && <p role="status">Sent: {send.data.delivery_summary.total} recipient(s).</p>}
      <Section title="As members receive it">
        <div className="digest">
          <p className="headline">{payload.headline ?? "No changes in this period."}</p>
          {(payload.highlights ?? []).length > 0 && (
            <>
              <h3>Highlights</h3>
              <Items items={payload.highlights!} />
            </>
          )}
          {(payload.sections ?? []).map((section) => (
            <div key={section.competitor.id}>
              <h3>{section.competitor.name}</h3>
              <Items items={section.events} />
              {section.more_events > 0 && <p className="muted">And {section.more_events} more.</p>}
            </div>
          ))}
        </div>
      </Section>
      <Section title="Delivery">
        <Deliveries digestId={digestId} />
      </Section>
    </>
  );
}
