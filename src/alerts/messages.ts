/**
 * What an immediate alert says, by email and on Slack (docs/product-rules.md#immediate-alerts). Pure: the same event
 * always renders the same message, so tests assert exact output.
 */
import type { EventToDeliver } from "../delivery/types.js";
import type { EmailMessage } from "../email/transports.js";
import { escapeHtml } from "../lib/html.js";
import { SEVERITY_LABEL } from "../lib/severity.js";

/** What an alert shows of an event to deliver: the event, its competitor's name and the page it was seen on. */
export type AlertEvent = Pick<
  EventToDeliver,
  | "id"
  | "event_type"
  | "severity"
  | "title"
  | "summary"
  | "impact_summary"
  | "confidence_score"
  | "confidence_reasoning"
  | "competitor_name"
  | "source_url"
>;

/** Why a member receives the email: the workspace and the immediate rules that matched, in rule order. */
export interface AlertReason {
  workspace_name: string;
  rule_names: string[];
  /** An address the partner API subscribed (docs/product-rules.md#partner-api), not a member. */
  subscribed?: boolean;
}

const EVENT_TYPE_LABEL: Readonly<Record<string, string>> = {
  pricing_change: "Pricing change",
  product_change: "Product change",
  hiring_change: "Hiring change",
  narrative_change: "Narrative change",
};

/**
 * `${PUBLIC_BASE_URL}/events/<id>`, the event in the API, for machines (docs/operations.md#environment-variables:
 * PUBLIC_BASE_URL is the base of links in emails).
 */
export function eventLink(publicBaseUrl: string, eventId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/events/${eventId}`;
}

/**
 * `${PUBLIC_BASE_URL}/app/events/<id>`, the event's page in the web app, for people: a person who clicks a link in a
 * mail or a Slack message lands there (signing in first when needed), never on the API's 401 JSON.
 */
export function eventAppLink(publicBaseUrl: string, eventId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/app/events/${eventId}`;
}

/** "[High] Acme raised Pro from $49 to $59/month": the severity first, so inbox rules and eyes can sort on it. */
export function alertSubject(event: Pick<AlertEvent, "severity" | "title">): string {
  return `[${SEVERITY_LABEL[event.severity]}] ${event.title}`;
}

function percent(score: number): string {
  return `${Math.round(score * 100)}%`;
}

function typeLabel(eventType: string): string {
  return EVENT_TYPE_LABEL[eventType] ?? eventType;
}

function why(reason: AlertReason): string {
  if (reason.subscribed) {
    return `You receive this because this address is subscribed to the immediate alerts of ${reason.workspace_name}.`;
  }
  const rules = reason.rule_names.map((name) => `"${name}"`).join(", ");
  const noun = reason.rule_names.length === 1 ? "rule" : "rules";
  return `You receive this as a member of ${reason.workspace_name}, whose immediate alert ${noun} ${rules} matched this change.`;
}

/** The email one member receives; `to` is filled per recipient. */
export function alertEmail(event: AlertEvent, reason: AlertReason, publicBaseUrl: string, to: string): EmailMessage {
  const link = eventAppLink(publicBaseUrl, event.id);
  const facts = `${event.competitor_name} · ${typeLabel(event.event_type)} · ${SEVERITY_LABEL[event.severity]}`;
  const text = [
    event.title,
    "",
    event.summary,
    "",
    `Impact: ${event.impact_summary}`,
    `Confidence: ${percent(event.confidence_score)} (${event.confidence_reasoning})`,
    facts,
    ...(event.source_url ? [`Source: ${event.source_url}`] : []),
    "",
    `Open the event: ${link}`,
    "",
    "-- ",
    why(reason),
    "",
  ].join("\n");
  const source = event.source_url
    ? `<p style="margin:0 0 8px"><strong>Source:</strong> <a href="${escapeHtml(event.source_url)}">${escapeHtml(event.source_url)}</a></p>`
    : "";
  const html = `<!doctype html>
<html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328;line-height:1.5">
<p style="margin:0 0 4px;color:#57606a">${escapeHtml(facts)}</p>
<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(event.title)}</h1>
<p style="margin:0 0 12px">${escapeHtml(event.summary)}</p>
<p style="margin:0 0 8px"><strong>Impact:</strong> ${escapeHtml(event.impact_summary)}</p>
<p style="margin:0 0 8px"><strong>Confidence:</strong> ${percent(event.confidence_score)} (${escapeHtml(event.confidence_reasoning)})</p>
${source}<p style="margin:16px 0"><a href="${escapeHtml(link)}" style="background:#0969da;color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none">Open the event</a></p>
<p style="margin:24px 0 0;font-size:12px;color:#57606a">${escapeHtml(why(reason))}</p>
</body></html>
`;
  return { to, subject: alertSubject(event), text, html };
}

/** Slack's incoming-webhook body: `text` is the notification and fallback, `blocks` the message shown. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

export type SlackBlock =
  | { type: "section"; text: { type: "mrkdwn"; text: string } }
  | { type: "section"; fields: { type: "mrkdwn"; text: string }[] }
  | { type: "context"; elements: { type: "mrkdwn"; text: string }[] };

/** Block Kit limits: a section's text at most 3000 characters, a field's 2000. */
const SECTION_TEXT_MAX = 3000;
const FIELD_TEXT_MAX = 2000;

export function slackMessage(event: AlertEvent, publicBaseUrl: string): SlackMessage {
  const link = eventAppLink(publicBaseUrl, event.id);
  const headline = `*<${slackUrl(link)}|${slackEscape(alertSubject(event))}>*`;
  const context = [
    slackEscape(event.competitor_name),
    typeLabel(event.event_type),
    `${percent(event.confidence_score)} confidence`,
    ...(event.source_url ? [`<${slackUrl(event.source_url)}|Source page>`] : []),
  ].join(" · ");
  return {
    // Escaped too: Slack parses `text` for mrkdwn and links even when it is only the notification.
    text: slackEscape(alertSubject(event)),
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: clip(`${headline}\n${slackEscape(event.summary)}`, SECTION_TEXT_MAX) },
      },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: clip(`*Impact*\n${slackEscape(event.impact_summary)}`, FIELD_TEXT_MAX) },
          { type: "mrkdwn", text: clip(`*Confidence*\n${slackEscape(event.confidence_reasoning)}`, FIELD_TEXT_MAX) },
        ],
      },
      { type: "context", elements: [{ type: "mrkdwn", text: clip(context, SECTION_TEXT_MAX) }] },
    ],
  };
}

/** Slack mrkdwn: only `&`, `<` and `>` are control characters (Slack's "Escaping text" guide). */
function slackEscape(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A URL inside `<url|label>`: `|` and `>` would end it early. */
function slackUrl(url: string): string {
  return url.replace(/\|/g, "%7C").replace(/>/g, "%3E").replace(/</g, "%3C");
}

function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
