/** Digests: the list, and generating one now. */
import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "react-router";
import { $api } from "../query.js";
import { ErrorNote, Loading, usePageTitle } from "../components.js";
import { capitalise, dateTime } from "../format.js";

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
    </>
  );
}
