/** Digests: the list, and generating one now. */
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { $api } from "../query.js";
import { ErrorNote, Loading, Section, usePageTitle } from "../components.js";
import { capitalise, dateTime } from "../format.js";

/** Addresses digests are never sent to (bounces, complaints, unsubscribes, and those added here). */
function Suppressions() {
  const queries = useQueryClient();
  const list = $api.useQuery("get", "/digests/suppressions");
  const add = $api.useMutation("post", "/digests/suppressions", { onSuccess: () => queries.invalidateQueries() });
  const remove = $api.useMutation("delete", "/digests/suppressions/{email}", {
    onSuccess: () => queries.invalidateQueries(),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    add.mutate({ body: { email: String(new FormData(form).get("email")).trim() } }, { onSuccess: () => form.reset() });
  };
  return (
    <Section title="Addresses that get no digest">
      {list.isPending ? (
        <Loading what="Loading the suppression list" />
      ) : list.isError ? (
        <ErrorNote error={list.error} />
      ) : list.data.length === 0 ? (
        <p className="empty">Every member's address receives digests.</p>
      ) : (
        <table>
          <caption className="sr-only">Suppressed addresses</caption>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Why</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((row) => (
              <tr key={row.email}>
                <th scope="row">{row.email}</th>
                <td>
                  {row.reason}
                  {row.detail ? ` (${row.detail})` : ""}
                </td>
                <td>{dateTime(row.suppressed_at)}</td>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-label={`Send digests to ${row.email} again`}
                    onClick={() => remove.mutate({ params: { path: { email: row.email } } })}
                  >
                    Send again
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={submit} className="inline-form">
        <label>
          Address to stop sending to
          <input name="email" type="email" required maxLength={320} />
        </label>
        <button type="submit" disabled={add.isPending}>
          Stop sending
        </button>
      </form>
      <ErrorNote error={add.error ?? remove.error} />
    </Section>
  );
}

export default function DigestsPage() {
  usePageTitle("Digests");
  const navigate = useNavigate();
  const queries = useQueryClient();
  const digests = $api.useQuery("get", "/digests");
  const create = $api.useMutation("post", "/digests", {
    onSuccess: async (digest) => {
      await queries.invalidateQueries();
      navigate(`/digests/${digest.id}`);
    },
  });
  return (
    <>
      <h1>Digests</h1>
      <div className="actions">
        <button type="button" onClick={() => create.mutate({ params: { query: { period_type: "daily" } } })}>
          Generate a daily digest now
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => create.mutate({ params: { query: { period_type: "weekly" } } })}
        >
          Generate a weekly digest now
        </button>
      </div>
      <ErrorNote error={create.error} />
      {digests.isPending ? (
        <Loading what="Loading digests" />
      ) : digests.isError ? (
        <ErrorNote error={digests.error} />
      ) : digests.data.length === 0 ? (
        <p className="empty">No digests yet. They are generated on schedule, or now with the buttons above.</p>
      ) : (
        <table>
          <caption className="sr-only">Digests, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Digest</th>
              <th scope="col">Period</th>
              <th scope="col">Sent</th>
              <th scope="col">Recipients</th>
            </tr>
          </thead>
          <tbody>
            {digests.data.map((d) => (
              <tr key={d.id}>
                <th scope="row">
                  <Link to={`/digests/${d.id}`}>
                    {capitalise(d.period_type)} digest of {dateTime(d.period_end)}
                  </Link>
                </th>
                <td>
                  {dateTime(d.period_start)} – {dateTime(d.period_end)}
                </td>
                <td>{d.delivered_at ? dateTime(d.delivered_at) : "not sent"}</td>
                <td>{d.delivery_summary.total}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Suppressions />
    </>
  );
}
