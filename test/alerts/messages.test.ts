import { describe, expect, it } from "vitest";
import {
  alertEmail,
  alertSubject,
  eventAppLink,
  eventLink,
  slackMessage,
  type AlertEvent,
} from "../../src/alerts/messages.js";

const event: AlertEvent = {
  id: "0b6f5c1e-9d7a-4a51-8f0e-3c2b1a0d9e8f",
  event_type: "pricing_change",
  severity: "high",
  title: "Acme raised Pro from $49 to $59/month",
  summary: "The Pro plan now costs $59 per month instead of $49.",
  impact_summary: "Prospects comparing on price now see a $10/month gap.",
  confidence_score: 0.85,
  confidence_reasoning: "Read from the plan cards of the pricing page.",
  competitor_name: "Acme",
  source_url: "https://acme.com/pricing",
};
const reason = { workspace_name: "Northwind", rule_names: ["High+ pricing changes — Acme"] };
const base = "https://app.rivalscope.test";
// People land on the event's page in the web app (src/alerts/messages.ts eventAppLink).
const link = "https://app.rivalscope.test/app/events/0b6f5c1e-9d7a-4a51-8f0e-3c2b1a0d9e8f";

describe("alert messages", () => {
  it("link people to the event's page in the app, and keep the API's URL for machines", () => {
    expect(eventAppLink(`${base}/`, event.id)).toBe(link);
    expect(eventLink(`${base}/`, event.id)).toBe(link.replace("/app/events/", "/events/"));
  });

  it("put the severity before the title in the subject", () => {
    expect(alertSubject(event)).toBe("[High] Acme raised Pro from $49 to $59/month");
    expect(alertSubject({ ...event, severity: "critical" })).toBe("[Critical] Acme raised Pro from $49 to $59/month");
  });

  it("email the summary, impact, confidence, source and link in text", () => {
    const mail = alertEmail(event, reason, base, "ada@example.com");
    expect(mail.to).toBe("ada@example.com");
    expect(mail.subject).toBe("[High] Acme raised Pro from $49 to $59/month");
    expect(mail.text).toBe(
      [
        "Acme raised Pro from $49 to $59/month",
        "",
        "The Pro plan now costs $59 per month instead of $49.",
        "",
        "Impact: Prospects comparing on price now see a $10/month gap.",
        "Confidence: 85% (Read from the plan cards of the pricing page.)",
        "Acme · Pricing change · High",
        "Source: https://acme.com/pricing",
        "",
        `Open the event: ${link}`,
        "",
        "-- ",
        'You receive this as a member of Northwind, whose immediate alert rule "High+ pricing changes — Acme" matched this change.',
        "",
      ].join("\n"),
    );
  });

  it("email the same in HTML, escaped", () => {
    const html = alertEmail({ ...event, summary: "Plans <b>& prices</b>" }, reason, base, "ada@example.com").html!;
    expect(html).toContain('<h1 style="font-size:20px;margin:0 0 12px">Acme raised Pro from $49 to $59/month</h1>');
    expect(html).toContain("Plans &lt;b&gt;&amp; prices&lt;/b&gt;");
    expect(html).toContain("<strong>Impact:</strong> Prospects comparing on price now see a $10/month gap.");
    expect(html).toContain("<strong>Confidence:</strong> 85%");
    expect(html).toContain('<a href="https://acme.com/pricing">https://acme.com/pricing</a>');
    expect(html).toContain(`<a href="${link}"`);
  });

  it("leave the source line out when the event has no source page", () => {
    const mail = alertEmail({ ...event, source_url: null }, reason, base, "ada@example.com");
    expect(mail.text).not.toContain("Source:");
    expect(mail.html).not.toContain("Source:");
  });

  it("name every matching rule when several matched", () => {
    const mail = alertEmail(event, { ...reason, rule_names: ["A", "B"] }, base, "ada@example.com");
    expect(mail.text).toContain('whose immediate alert rules "A", "B" matched');
  });

  it("post Slack's incoming-webhook JSON: the subject as text, and blocks", () => {
    expect(slackMessage(event, base)).toEqual({
      text: "[High] Acme raised Pro from $49 to $59/month",
      blocks: [
        {
          type: "section",
          text: {
            type: "mrkdwn",
            text: `*<${link}|[High] Acme raised Pro from $49 to $59/month>*\nThe Pro plan now costs $59 per month instead of $49.`,
          },
        },
        {
          type: "section",
          fields: [
            { type: "mrkdwn", text: "*Impact*\nProspects comparing on price now see a $10/month gap." },
            { type: "mrkdwn", text: "*Confidence*\nRead from the plan cards of the pricing page." },
          ],
        },
        {
          type: "context",
          elements: [
            {
              type: "mrkdwn",
              text: "Acme · Pricing change · 85% confidence · <https://acme.com/pricing|Source page>",
            },
          ],
        },
      ],
    });
  });

  it("escape Slack's control characters in the event's text", () => {
    const message = slackMessage({ ...event, title: "A <b> & c", summary: "x > y" }, base);
    const section = message.blocks[0] as { text: { text: string } };
    expect(section.text.text).toBe(`*<${link}|[High] A &lt;b&gt; &amp; c>*\nx &gt; y`);
    expect(message.text).toBe("[High] A &lt;b&gt; &amp; c");
  });
});
