/** Alert rules: list, create, edit, delete. A refusal by the plan (403) shows the API's words, which name the limit. */
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { Schemas } from "../api.js";
import { $api } from "../query.js";
import { ErrorNote, Loading, Section, usePageTitle } from "../components.js";
import { capitalise, EVENT_TYPES, SEVERITIES, TYPE_LABEL } from "../format.js";

type Rule = Schemas["AlertRule"];

function RuleForm({
  rule,
  competitors,
  onSubmit,
  pending,
  label,
}: {
  rule?: Rule;
  competitors: Schemas["Competitor"][];
  onSubmit: (body: Schemas["AlertRuleRequest"]) => void;
  pending: boolean;
  label: string;
}) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const types = form.getAll("event_types").map(String) as Schemas["EventType"][];
    const channels = form.getAll("delivery_channels").map(String) as Schemas["DeliveryChannel"][];
    onSubmit({
      competitor_id: String(form.get("competitor_id")) || null,
      event_types: types.length === 0 || types.length === EVENT_TYPES.length ? null : types,
      severity_threshold: String(form.get("severity_threshold")) as Schemas["Severity"],
      confidence_threshold: Number(form.get("confidence_threshold")) / 100,
      frequency: String(form.get("frequency")) as Schemas["AlertFrequency"],
      delivery_channels: channels.length ? channels : ["email"],
    });
  };
  const types = rule?.event_types_json ?? null;
  return (
    <form onSubmit={submit} className="stack">
      <label>
        Competitor
        <select name="competitor_id" defaultValue={rule?.competitor_id ?? ""}>
          <option value="">Every competitor</option>
          {competitors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Event types</legend>
        {EVENT_TYPES.map((t) => (
          <label key={t} className="check">
            <input type="checkbox" name="event_types" value={t} defaultChecked={!types || types.includes(t)} />{" "}
            {TYPE_LABEL[t]}
          </label>
        ))}
      </fieldset>
      <label>
        Minimum severity
        <select name="severity_threshold" defaultValue={rule?.severity_threshold ?? "medium"}>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {capitalise(s)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Minimum confidence (%)
        <input
          name="confidence_threshold"
          type="number"
          min={0}
          max={100}
          step={5}
          defaultValue={Math.round((rule?.confidence_threshold ?? 0.5) * 100)}
        />
      </label>
      <label>
        Frequency
        <select name="frequency" defaultValue={rule?.frequency ?? "daily"}>
          <option value="immediate">Immediately (Growth and above)</option>
          <option value="daily">In the daily digest</option>
          <option value="weekly">In the weekly digest</option>
        </select>
      </label>
      <fieldset>
        <legend>Channels</legend>
        <label className="check">
          <input
            type="checkbox"
            name="delivery_channels"
            value="email"
            defaultChecked={!rule || rule.delivery_channels_json.includes("email")}
          />{" "}
          Email
        </label>
        <label className="check">
          <input
            type="checkbox"
            name="delivery_channels"
            value="slack"
            defaultChecked={rule?.delivery_channels_json.includes("slack") ?? false}
          />{" "}
          Slack (Starter and above)
        </label>
      </fieldset>
      <button type="submit" disabled={pending}>
        {label}
      </button>
    </form>
  );
}

function RuleItem({ rule, competitors }: { rule: Rule; competitors: Schemas["Competitor"][] }) {
  const queries = useQueryClient();
  const [editing, setEditing] = useState(false);
  const path = { rule_id: rule.id };
  const update = $api.useMutation("patch", "/alert-rules/{rule_id}", {
    onSuccess: async () => {
      await queries.invalidateQueries();
      setEditing(false);
    },
  });
  const remove = $api.useMutation("delete", "/alert-rules/{rule_id}", {
    onSuccess: () => queries.invalidateQueries(),
  });
  return (
    <li className="card">
      <h2 className="rule-name">{rule.name}</h2>
      <p className="muted">
        {capitalise(rule.frequency)} · {rule.delivery_channels_json.join(" and ")} · confidence ≥{" "}
        {Math.round(rule.confidence_threshold * 100)}%{rule.is_default ? " · the workspace's default rule" : ""}
      </p>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? "Cancel editing" : `Edit rule`}
        </button>
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate({ params: { path } })}
        >
          Delete rule
        </button>
      </div>
      {editing && (
        <RuleForm
          rule={rule}
          competitors={competitors}
          pending={update.isPending}
          label="Save rule"
          onSubmit={(body) => update.mutate({ params: { path }, body })}
        />
      )}
      <ErrorNote error={update.error ?? remove.error} />
    </li>
  );
}

export default function AlertRulesPage() {
  usePageTitle("Alert rules");
  const queries = useQueryClient();
  const rules = $api.useQuery("get", "/alert-rules");
  const competitors = $api.useQuery("get", "/competitors");
  const create = $api.useMutation("post", "/alert-rules", { onSuccess: () => queries.invalidateQueries() });
  return (
    <>
      <h1>Alert rules</h1>
      <p className="muted">
        Immediate rules send each matching event at once; daily and weekly rules choose what your digests highlight.
      </p>
      {rules.isPending ? (
        <Loading what="Loading alert rules" />
      ) : rules.isError ? (
        <ErrorNote error={rules.error} />
      ) : rules.data.length === 0 ? (
        <p className="empty">No alert rules: digests highlight high and critical events.</p>
      ) : (
        <ul className="plain" aria-label="Alert rules">
          {rules.data.map((rule) => (
            <RuleItem key={rule.id} rule={rule} competitors={competitors.data ?? []} />
          ))}
        </ul>
      )}
      <Section title="New alert rule">
        <RuleForm
          competitors={competitors.data ?? []}
          pending={create.isPending}
          label="Create rule"
          onSubmit={(body) => create.mutate({ body })}
        />
        <ErrorNote error={create.error} />
        {create.isSuccess && <p role="status">Rule created: {create.data.name}.</p>}
      </Section>
    </>
  );
}
