/**
 * The digest email (docs/product-rules.md#sending): HTML and plain text rendered from `payload_json`, with a link back
 * to every event and its source, and the one-click unsubscribe of RFC 8058
 * (docs/product-rules.md#one-click-unsubscribe) both as headers and in the footer.
 *
 * The HTML is what common clients render reliably: one centred table, inline styles only, no scripts, no external
 * CSS or images, system fonts. Pure: the same payload and recipient always give the same message.
 */
import type { EmailMessage } from "../email/transports.js";
import { escapeHtml } from "../lib/html.js";
import { SEVERITY_LABEL } from "../lib/severity.js";
import type { DigestEventItem, DigestPayload } from "./payload.js";

const SEVERITY_COLOUR: Readonly<Record<string, string>> = {
  low: "#57606a",
  medium: "#9a6700",
  high: "#bc4c00",
  critical: "#cf222e",
};
const TYPE_LABEL: Readonly<Record<string, string>> = {
  pricing_change: "Pricing",
  product_change: "Product",
  hiring_change: "Hiring",
  narrative_change: "Narrative",
};

export interface DigestRecipient {
  email: string;
  name: string | null;
}

function periodLabel(payload: DigestPayload): string {
  return payload.period.type === "daily" ? "Daily digest" : "Weekly digest";
}

export function digestSubject(payload: DigestPayload): string {
  return `${periodLabel(payload)} for ${payload.workspace.name}: ${payload.headline}`;
}

/** "12 Nov 2026 08:00 UTC": dates in mail are read by people in many zones, so they name theirs. */
function utcLabel(iso: string): string {
  const date = new Date(iso);
  const day = date.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const time = date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
  return `${day} ${time} UTC`;
}

function typeCounts(byType: Record<string, number>): string {
  return Object.entries(byType)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${TYPE_LABEL[type] ?? type} ${n}`)
    .join(" · ");
}

/**
 * The event's page in the web app, where a person reads it; digests stored before `app_url` existed carry only the
 * API's `url`, whose path the app's route mirrors under `/app`.
 */
function personLink(event: DigestEventItem): string {
  return event.app_url ?? event.url.replace(/\/events\/([^/]+)$/, "/app/events/$1");
}

function eventLine(event: DigestEventItem): string {
  return `[${SEVERITY_LABEL[event.severity]}] ${event.title}`;
}

function textEvent(event: DigestEventItem): string[] {
  return [
    `- ${eventLine(event)}`,
    `  ${event.summary}`,
    `  ${TYPE_LABEL[event.event_type] ?? event.event_type} · confidence ${Math.round(event.confidence_score * 100)}% · ${utcLabel(event.detected_at)}`,
    `  Event: ${personLink(event)}`,
    `  Source: ${event.source_url}`,
  ];
}

function renderText(payload: DigestPayload, unsubscribeUrl: string, recipient: DigestRecipient): string {
  const lines = [
    `${periodLabel(payload)} for ${payload.workspace.name}`,
    `${utcLabel(payload.period.start)} to ${utcLabel(payload.period.end)}`,
    "",
    payload.headline,
  ];
  if (payload.counts.total > 0) lines.push(typeCounts(payload.counts.by_type));
  if (payload.highlights.length > 0) {
    lines.push("", "HIGHLIGHTS", "");
    for (const event of payload.highlights) lines.push(...textEvent(event), "");
  }
  for (const section of payload.sections) {
    lines.push("", `${section.competitor.name.toUpperCase()} (${section.competitor.domain})`);
    lines.push(
      `${section.counts.total} ${section.counts.total === 1 ? "change" : "changes"}: ${typeCounts(section.counts.by_type)}`,
      "",
    );
    for (const event of section.events) lines.push(...textEvent(event), "");
    if (section.more_events > 0) lines.push(`  …and ${section.more_events} more`, "");
  }
  const attention = payload.sources_needing_attention ?? [];
  if (attention.length > 0) {
    lines.push("", "SOURCES NEEDING ATTENTION", "");
    for (const source of attention) {
      lines.push(`- ${source.competitor.name}: ${source.source_url}`, `  ${source.detail}`);
      if (source.action) lines.push(`  What to do: ${source.action}`);
      lines.push("");
    }
  }
  lines.push(
    "",
    "-- ",
    `Sent to ${recipient.email} as a member of ${payload.workspace.name}.`,
    `Unsubscribe from these digests: ${unsubscribeUrl}`,
    "",
  );
  return lines.join("\n");
}

function htmlEvent(event: DigestEventItem): string {
  const colour = SEVERITY_COLOUR[event.severity] ?? "#57606a";
  const meta = `${TYPE_LABEL[event.event_type] ?? event.event_type} · confidence ${Math.round(event.confidence_score * 100)}% · ${utcLabel(event.detected_at)}`;
  return `<tr><td style="padding:10px 0;border-top:1px solid #d0d7de">
<div style="font-size:12px;color:${colour};font-weight:600">${escapeHtml(SEVERITY_LABEL[event.severity])}</div>
<div style="font-size:15px;font-weight:600;margin:2px 0"><a href="${escapeHtml(personLink(event))}" style="color:#0969da;text-decoration:none">${escapeHtml(event.title)}</a></div>
<div style="font-size:14px;color:#1f2328">${escapeHtml(event.summary)}</div>
<div style="font-size:12px;color:#57606a;margin-top:4px">${escapeHtml(meta)} · <a href="${escapeHtml(event.source_url)}" style="color:#57606a">source</a></div>
</td></tr>`;
}

function renderHtml(payload: DigestPayload, unsubscribeUrl: string, recipient: DigestRecipient): string {
  const parts: string[] = [];
  if (payload.highlights.length > 0) {
    parts.push(`<tr><td style="padding:20px 0 4px"><h2 style="font-size:16px;margin:0">Highlights</h2></td></tr>`);
    parts.push(...payload.highlights.map(htmlEvent));
  }
  for (const section of payload.sections) {
    const summary = `${section.counts.total} ${section.counts.total === 1 ? "change" : "changes"}: ${typeCounts(section.counts.by_type)}`;
    parts.push(`<tr><td style="padding:24px 0 4px">
<h2 style="font-size:16px;margin:0">${escapeHtml(section.competitor.name)} <span style="font-weight:400;color:#57606a">${escapeHtml(section.competitor.domain)}</span></h2>
<div style="font-size:12px;color:#57606a">${escapeHtml(summary)}</div>
</td></tr>`);
    parts.push(...section.events.map(htmlEvent));
    if (section.more_events > 0) {
      parts.push(
        `<tr><td style="padding:6px 0;font-size:13px;color:#57606a">…and ${section.more_events} more</td></tr>`,
      );
    }
  }
  const attention = payload.sources_needing_attention ?? [];
  if (attention.length > 0) {
    parts.push(
      `<tr><td style="padding:24px 0 4px"><h2 style="font-size:16px;margin:0">Sources needing attention</h2></td></tr>`,
    );
    for (const source of attention) {
      const action = source.action
        ? `<div style="font-size:13px;color:#57606a;margin-top:4px"><strong>What to do:</strong> ${escapeHtml(source.action)}</div>`
        : "";
      parts.push(`<tr><td style="padding:10px 0;border-top:1px solid #d0d7de">
<div style="font-size:15px;font-weight:600;margin:2px 0">${escapeHtml(source.competitor.name)} · <a href="${escapeHtml(source.source_url)}" style="color:#0969da;text-decoration:none">${escapeHtml(source.source_url)}</a></div>
<div style="font-size:14px;color:#1f2328">${escapeHtml(source.detail)}</div>
${action}</td></tr>`);
    }
  }
  const counts =
    payload.counts.total > 0
      ? `<div style="font-size:13px;color:#57606a">${escapeHtml(typeCounts(payload.counts.by_type))}</div>`
      : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(digestSubject(payload))}</title></head>
<body style="margin:0;padding:0;background:#f6f8fa">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f6f8fa"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%;background:#ffffff;border:1px solid #d0d7de;border-radius:8px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328;line-height:1.5">
<tr><td style="padding:24px 24px 8px">
<div style="font-size:12px;color:#57606a">${escapeHtml(periodLabel(payload))} · ${escapeHtml(payload.workspace.name)} · ${escapeHtml(utcLabel(payload.period.start))} to ${escapeHtml(utcLabel(payload.period.end))}</div>
<h1 style="font-size:20px;margin:4px 0">${escapeHtml(payload.headline)}</h1>
${counts}
</td></tr>
<tr><td style="padding:0 24px 16px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0">
${parts.join("\n")}
</table></td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #d0d7de;font-size:12px;color:#57606a">
Sent to ${escapeHtml(recipient.email)} as a member of ${escapeHtml(payload.workspace.name)}.
<a href="${escapeHtml(unsubscribeUrl)}" style="color:#57606a">Unsubscribe from these digests</a>.
</td></tr>
</table>
</td></tr></table>
</body></html>
`;
}

/** The message for one recipient, with RFC 8058 one-click unsubscribe headers. */
export function digestEmail(payload: DigestPayload, recipient: DigestRecipient, unsubscribeUrl: string): EmailMessage {
  return {
    to: recipient.email,
    subject: digestSubject(payload),
    text: renderText(payload, unsubscribeUrl, recipient),
    html: renderHtml(payload, unsubscribeUrl, recipient),
    headers: {
      "List-Unsubscribe": `<${unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}
