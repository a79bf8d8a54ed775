/**
 * What a source health notice says, by email and on Slack (docs/product-rules.md#source-health). Pure, like the event
 * messages (src/alerts/messages.ts).
 */
import type { NoticeToDeliver } from "../delivery/types.js";
import type { EmailMessage } from "../email/transports.js";
import { escapeHtml } from "../lib/html.js";
import type { SlackMessage } from "./messages.js";

export type AlertNotice = Pick<
  NoticeToDeliver,
  "id" | "notice_type" | "title" | "detail" | "action" | "competitor_id" | "competitor_name" | "source_url"
>;

/** The competitor's page in the web app, where its sources (and their health) are listed. */
function competitorAppLink(publicBaseUrl: string, competitorId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/app/competitors/${competitorId}`;
}

export function noticeSubject(notice: Pick<AlertNotice, "notice_type" | "title">): string {
  return `[${notice.notice_type === "source_broken" ? "Source broken" : "Source recovered"}] ${notice.title}`;
}

/** The email one member receives about a transition. */
export function noticeEmail(
  notice: AlertNotice,
  reason: { workspace_name: string; rule_names: string[] },
  publicBaseUrl: string,
  to: string,
): EmailMessage {
  const link = competitorAppLink(publicBaseUrl, notice.competitor_id);
  const rules = reason.rule_names.map((name) => `"${name}"`).join(", ");
  const why = `You receive this as a member of ${reason.workspace_name}, whose immediate alert ${reason.rule_names.length === 1 ? "rule" : "rules"} ${rules} asked for source health notices.`;
  const text = [
    notice.title,
    "",
    notice.detail,
    ...(notice.action ? ["", `What to do: ${notice.action}`] : []),
    "",
    `Page: ${notice.source_url}`,
    `Open ${notice.competitor_name}'s sources: ${link}`,
    "",
    "-- ",
    why,
    "",
  ].join("\n");
  const action = notice.action
    ? `<p style="margin:0 0 8px"><strong>What to do:</strong> ${escapeHtml(notice.action)}</p>`
    : "";
  const html = `<!doctype html>
<html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328;line-height:1.5">
<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(notice.title)}</h1>
<p style="margin:0 0 12px">${escapeHtml(notice.detail)}</p>
${action}<p style="margin:0 0 8px"><strong>Page:</strong> <a href="${escapeHtml(notice.source_url)}">${escapeHtml(notice.source_url)}</a></p>
<p style="margin:16px 0"><a href="${escapeHtml(link)}" style="background:#0969da;color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none">Open the sources</a></p>
<p style="margin:24px 0 0;font-size:12px;color:#57606a">${escapeHtml(why)}</p>
</body></html>
`;
  return { to, subject: noticeSubject(notice), text, html };
}

const escapeSlack = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function noticeSlackMessage(notice: AlertNotice, publicBaseUrl: string): SlackMessage {
  const link = competitorAppLink(publicBaseUrl, notice.competitor_id).replace(/\|/g, "%7C").replace(/>/g, "%3E");
  const body = [
    `*<${link}|${escapeSlack(noticeSubject(notice))}>*`,
    escapeSlack(notice.detail),
    ...(notice.action ? [`*What to do:* ${escapeSlack(notice.action)}`] : []),
  ].join("\n");
  return {
    text: escapeSlack(noticeSubject(notice)),
    blocks: [{ type: "section", text: { type: "mrkdwn", text: body.slice(0, 3000) } }],
  };
}
