/** Settings: digest preferences, the plan with its limits and usage, and (for owners) checkout and the billing portal. */
import { useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import type { Schemas } from "../api.js";
import { $api } from "../query.js";
import { ErrorNote, Loading, Section, usePageTitle } from "../components.js";

const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

function Preferences() {
  const queries = useQueryClient();
  const prefs = $api.useQuery("get", "/me/preferences");
  const save = $api.useMutation("patch", "/me/preferences", { onSuccess: () => queries.invalidateQueries() });
  if (prefs.isPending) return <Loading what="Loading preferences" />;
  if (prefs.isError) return <ErrorNote error={prefs.error} />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    save.mutate({
      body: {
        digest_frequency: String(form.get("digest_frequency")) as Schemas["DigestFrequency"],
        digest_hour_local: Number(form.get("digest_hour_local")),
        digest_weekly_dow: Number(form.get("digest_weekly_dow")),
        digest_timezone: String(form.get("digest_timezone")).trim(),
      },
    });
  };
  return (
    <form onSubmit={submit} className="stack" key={JSON.stringify(prefs.data)}>
      <label>
        Digest frequency
        <select name="digest_frequency" defaultValue={prefs.data.digest_frequency}>
          <option value="daily">Daily (Starter and above)</option>
          <option value="weekly">Weekly</option>
          <option value="off">Off</option>
        </select>
      </label>
      <label>
        Hour of delivery
        <select name="digest_hour_local" defaultValue={prefs.data.digest_hour_local}>
          {Array.from({ length: 24 }, (_, h) => (
            <option key={h} value={h}>
              {String(h).padStart(2, "0")}:00
            </option>
          ))}
        </select>
      </label>
      <label>
        Day of the weekly digest
        <select name="digest_weekly_dow" defaultValue={prefs.data.digest_weekly_dow}>
          {DAYS.map((d, i) => (
            <option key={d} value={i}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <label>
        Time zone
        <input name="digest_timezone" defaultValue={prefs.data.digest_timezone} maxLength={64} required />
        <small>An IANA zone name, such as Europe/Berlin or America/New_York.</small>
      </label>
      <ErrorNote error={save.error} />
      {save.isSuccess && <p role="status">Preferences saved.</p>}
      <button type="submit" disabled={save.isPending}>
        Save preferences
      </button>
    </form>
  );
}

function Billing({ plan }: { plan: Schemas["WorkspacePlan"] }) {
  const plans = $api.useQuery("get", "/pricing/plans");
  const checkout = $api.useMutation("post", "/billing/checkout", {
    onSuccess: (session) => window.location.assign(session.checkout_url),
  });
  const portal = $api.useMutation("post", "/billing/portal", {
    onSuccess: (session) => window.location.assign(session.portal_url),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    checkout.mutate({
      body: {
        plan: String(form.get("plan")) as Schemas["Plan"],
        billing_cycle: String(form.get("billing_cycle")) as Schemas["BillingCycle"],
        seat_count: Number(form.get("seat_count")),
      },
    });
  };
  return (
    <>
      <form onSubmit={submit} className="inline-form">
        <label>
          Plan
          <select name="plan" defaultValue={plan.plan === "free" ? "starter" : plan.plan}>
            {(plans.data?.plans ?? [])
              .filter((p) => p.plan !== "free")
              .map((p) => (
                <option key={p.plan} value={p.plan}>
                  {p.label} (${p.list_price_per_seat_monthly}/seat/month)
                </option>
              ))}
          </select>
        </label>
        <label>
          Billing
          <select name="billing_cycle" defaultValue="monthly">
            <option value="monthly">Monthly</option>
            <option value="annual">Annual (2 months free)</option>
          </select>
        </label>
        <label>
          Seats
          <input name="seat_count" type="number" min={1} max={50} defaultValue={Math.max(1, plan.usage.seats)} />
        </label>
        <button type="submit" disabled={checkout.isPending}>
          Go to checkout
        </button>
      </form>
      <ErrorNote error={checkout.error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={() => portal.mutate({})} disabled={portal.isPending}>
          Open the billing portal
        </button>
      </div>
      <ErrorNote error={portal.error} />
    </>
  );
}

export default function SettingsPage() {
  usePageTitle("Settings");
  const plan = $api.useQuery("get", "/me/plan");
  const me = $api.useQuery("get", "/auth/me");
  return (
    <>
      <h1>Settings</h1>
      <Section title="Digest preferences">
        <Preferences />
      </Section>
      <Section title="Plan and usage">
        {plan.isPending ? (
          <Loading what="Loading your plan" />
        ) : plan.isError ? (
          <ErrorNote error={plan.error} />
        ) : (
          <>
            <p>
              Your workspace is on the <strong>{plan.data.plan_label}</strong> plan
              {plan.data.billing.subscription_status ? ` (${plan.data.billing.subscription_status})` : ""}.
            </p>
            <table>
              <caption className="sr-only">Limits and usage</caption>
              <thead>
                <tr>
                  <th scope="col">Limit</th>
                  <th scope="col">Allowed</th>
                  <th scope="col">Used</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">Competitors</th>
                  <td>{plan.data.limits.competitors}</td>
                  <td>{plan.data.usage.competitors}</td>
                </tr>
                <tr>
                  <th scope="row">Seats</th>
                  <td>{plan.data.limits.seats}</td>
                  <td>{plan.data.usage.seats}</td>
                </tr>
                <tr>
                  <th scope="row">Chat answers this month</th>
                  <td>{plan.data.limits.chat_quota}</td>
                  <td>{plan.data.usage.chat_used}</td>
                </tr>
                <tr>
                  <th scope="row">History</th>
                  <td>{plan.data.limits.history_days} days</td>
                  <td></td>
                </tr>
                <tr>
                  <th scope="row">Daily digests · realtime · Slack · API</th>
                  <td>
                    {[
                      plan.data.limits.daily_digest,
                      plan.data.limits.realtime,
                      plan.data.limits.slack,
                      plan.data.limits.api_access,
                    ]
                      .map((flag) => (flag ? "yes" : "no"))
                      .join(" · ")}
                  </td>
                  <td></td>
                </tr>
              </tbody>
            </table>
          </>
        )}
      </Section>
      <Section title="Billing">
        {plan.data && me.data ? <Billing plan={plan.data} /> : <Loading what="Loading billing" />}
        <p className="muted">Checkout and the billing portal are for the workspace's owners.</p>
      </Section>
    </>
  );
}
