/** Operations views for platform admins: jobs, the scheduler, failing sources and source health. */
import { $api } from "../query.js";
import { ErrorNote, ExternalLink, Loading, Section, usePageTitle } from "../components.js";
import { capitalise, dateTime } from "../format.js";

function Scheduler() {
  const status = $api.useQuery("get", "/admin/scheduler");
  if (status.isPending) return <Loading what="Loading the scheduler" />;
  if (status.isError) return <ErrorNote error={status.error} />;
  const s = status.data;
  return (
    <dl className="facts">
      <div>
        <dt>State</dt>
        <dd>{!s.enabled ? "disabled" : s.healthy ? "healthy" : "unhealthy"}</dd>
      </div>
      <div>
        <dt>Last tick</dt>
        <dd>{dateTime(s.last_tick_at)}</dd>
      </div>
      <div>
        <dt>Next daily run</dt>
        <dd>{dateTime(s.next_daily_run_at)}</dd>
      </div>
      <div>
        <dt>Next weekly run</dt>
        <dd>{dateTime(s.next_weekly_run_at)}</dd>
      </div>
    </dl>
  );
}

function Jobs() {
  const jobs = $api.useQuery("get", "/admin/jobs", { params: { query: { limit: 50 } } });
  if (jobs.isPending) return <Loading what="Loading jobs" />;
  if (jobs.isError) return <ErrorNote error={jobs.error} />;
  if (jobs.data.length === 0) return <p className="empty">No jobs.</p>;
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Latest jobs</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Created</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {jobs.data.map((j) => (
            <tr key={j.id}>
              <th scope="row">{j.job_type}</th>
              <td>{j.status}</td>
              <td>{j.attempts}</td>
              <td>{dateTime(j.created_at)}</td>
              <td>{j.last_error ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Failures() {
  const failures = $api.useQuery("get", "/admin/sources/failures", { params: { query: { limit: 50 } } });
  if (failures.isPending) return <Loading what="Loading failing sources" />;
  if (failures.isError) return <ErrorNote error={failures.error} />;
  if (failures.data.items.length === 0) return <p className="empty">No source is failing.</p>;
  return (
    <div className="scroll">
      <table>
        <caption className="sr-only">Failing sources ({failures.data.total})</caption>
        <thead>
          <tr>
            <th scope="col">Page</th>
            <th scope="col">Type</th>
            <th scope="col">Error</th>
            <th scope="col">Since</th>
          </tr>
        </thead>
        <tbody>
          {failures.data.items.map((f) => (
            <tr key={f.id}>
              <th scope="row">
                <ExternalLink href={f.url}>{f.url}</ExternalLink>
              </th>
              <td>{capitalise(f.source_type)}</td>
              <td>{f.error_message}</td>
              <td>{dateTime(f.last_error_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Health() {
  const health = $api.useQuery("get", "/admin/sources/health");
  if (health.isPending) return <Loading what="Loading source health" />;
  if (health.isError) return <ErrorNote error={health.error} />;
  return (
    <table>
      <caption className="sr-only">Sources by type</caption>
      <thead>
        <tr>
          <th scope="col">Type</th>
          <th scope="col">Sources</th>
          <th scope="col">Healthy</th>
          <th scope="col">Failing</th>
        </tr>
      </thead>
      <tbody>
        {health.data.map((h) => (
          <tr key={h.source_type}>
            <th scope="row">{capitalise(h.source_type)}</th>
            <td>{h.total}</td>
            <td>{h.healthy}</td>
            <td>{h.errored}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function AdminPage() {
  usePageTitle("Operations");
  return (
    <>
      <h1>Operations</h1>
      <Section title="Scheduler">
        <Scheduler />
      </Section>
      <Section title="Source health">
        <Health />
      </Section>
      <Section title="Failing sources">
        <Failures />
      </Section>
      <Section title="Jobs">
        <Jobs />
      </Section>
    </>
  );
}
