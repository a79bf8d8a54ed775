/** The competitors of the workspace: list and create (edit and delete are on a competitor's page). */
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { $api } from "../query.js";
import { ErrorNote, Loading, Section, usePageTitle } from "../components.js";

export default function CompetitorsPage() {
  usePageTitle("Competitors");
  const navigate = useNavigate();
  const queries = useQueryClient();
  const competitors = $api.useQuery("get", "/competitors");
  const activity = $api.useQuery("get", "/events/activity", { params: { query: { days: 30 } } });
  const markers = (activity.data?.competitors ?? {}) as Record<string, unknown[]>;
  const create = $api.useMutation("post", "/competitors", {
    onSuccess: async (created) => {
      await queries.invalidateQueries();
      navigate(`/competitors/${created.id}`);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const description = String(form.get("description") ?? "").trim();
    create.mutate({
      body: {
        name: String(form.get("name")).trim(),
        domain: String(form.get("domain")).trim(),
        ...(description ? { description } : {}),
      },
    });
  };
  return (
    <>
      <h1>Competitors</h1>
      {competitors.isPending ? (
        <Loading what="Loading competitors" />
      ) : competitors.isError ? (
        <ErrorNote error={competitors.error} />
      ) : competitors.data.length === 0 ? (
        <p className="empty">No competitors yet: add the first one below.</p>
      ) : (
        <table>
          <caption className="sr-only">Tracked competitors</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Domain</th>
              <th scope="col">Description</th>
              <th scope="col">Events (30 days)</th>
            </tr>
          </thead>
          <tbody>
            {competitors.data.map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <Link to={`/competitors/${c.id}`}>{c.name}</Link>
                </th>
                <td>{c.domain}</td>
                <td>{c.description ?? ""}</td>
                <td>
                  {activity.data ? <Link to={`/events?competitor_id=${c.id}`}>{markers[c.id]?.length ?? 0}</Link> : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Section title="Add a competitor">
        <form onSubmit={submit} className="stack">
          <label>
            Name
            <input name="name" required maxLength={200} />
          </label>
          <label>
            Domain
            <input name="domain" required placeholder="acme.com" />
          </label>
          <label>
            Description
            <input name="description" maxLength={2000} />
          </label>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Add competitor
          </button>
        </form>
      </Section>
    </>
  );
}
