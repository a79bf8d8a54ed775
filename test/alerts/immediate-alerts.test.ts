import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFanOut } from "../../src/delivery/consumers.js";
import { runAdminCommand } from "../../src/cli/admin.js";
import { DEAD_LETTER_QUEUE, QUEUES } from "../../src/jobs/queues.js";
import { suppress } from "../../src/suppressions/service.js";
import type { PlanName } from "../../src/workspaces/plans.js";
import { FakeSlack } from "../fakes/slack.js";
import {
  addMember,
  createAlertDelivery,
  createCompetitor,
  createEvent,
  createSource,
  createWorkspace,
  type EventFields,
  type TestMember,
} from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

const PUBLIC_BASE_URL = "https://app.rivalscope.test";

let app: TestApp;
const fakes: FakeSlack[] = [];
beforeAll(async () => {
  // Slack retries start at WEBHOOK_RETRY_BASE_SECONDS; 1 s keeps the retry test short.
  app = await startTestApp({ PUBLIC_BASE_URL, WEBHOOK_RETRY_BASE_SECONDS: "1" });
});
afterAll(async () => {
  await app?.stop();
  await Promise.all(fakes.map((fake) => fake.stop()));
});

const knex = () => app.service.services.knex;
const consume = (eventId: string) => new EventFanOut(app.service.services).deliver(eventId);

interface Team {
  owner: TestMember;
  members: TestMember[];
  competitor: { id: string; name: string };
  slack: FakeSlack;
}

/** A workspace of three members, competitor Acme, and its own fake Slack webhook connected. */
async function team(plan: PlanName = "growth"): Promise<Team> {
  const owner = await createWorkspace(app, { plan, name: "Northwind" });
  const members = [owner, await addMember(app, owner.workspaceId), await addMember(app, owner.workspaceId)];
  const competitor = await createCompetitor(app, owner, { name: "Acme" });
  const slack = await new FakeSlack().start();
  fakes.push(slack);
  await runAdminCommand(["slack-connect", owner.workspaceId, "--webhook-url", slack.webhookUrl], app.service.services);
  return { owner, members, competitor, slack };
}

async function createRule(member: TestMember, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await app.http
    .post("/alert-rules")
    .set("Authorization", member.bearer)
    .send({ frequency: "immediate", ...body })
    .expect(201);
  return res.body;
}

async function pricingSource(t: Team): Promise<string> {
  const source = await createSource(app, t.owner, {
    competitorId: t.competitor.id,
    url: "https://acme.com/pricing",
    source_type: "pricing",
  });
  return source.id;
}

const event = (t: Team, fields: Partial<EventFields> = {}) =>
  createEvent(app, t.owner, { competitorId: t.competitor.id, severity: "high", confidence_score: 0.85, ...fields });

/** Sorted in JS: the database's collation may order addresses differently. */
const byKey = <T>(rows: T[], key: (row: T) => string) => rows.sort((a, b) => (key(a) < key(b) ? -1 : 1));

/** The delivery rows of an event, by channel and recipient. */
const deliveries = async (eventId: string) =>
  byKey(
    await knex()("alert_deliveries").where({ event_id: eventId }).select("channel", "recipient", "status", "error"),
    (row) => `${row.channel} ${row.recipient}`,
  );

/** Jobs queued for an event: its alert emails (the link names the event) and its Slack jobs. */
async function jobsFor(eventId: string): Promise<{ emails: number; slack: number }> {
  const { rows } = await knex().raw(
    `SELECT count(*) FILTER (WHERE name = ? AND data->>'email_id' IN (
              SELECT id::text FROM outgoing_emails WHERE text_body LIKE ?))::int AS emails,
            count(*) FILTER (WHERE name = ? AND data->>'delivery_id' IN (
              SELECT id::text FROM alert_deliveries WHERE event_id = ?))::int AS slack
       FROM pgboss.job`,
    [QUEUES.emailSend.name, `%/events/${eventId}%`, QUEUES.alertSlack.name, eventId],
  );
  return rows[0];
}

const outboxFor = async (eventId: string) =>
  byKey(await knex()("email_outbox").where("text_body", "like", `%/events/${eventId}%`), (row) => row.to_address);

const slackRow = (eventId: string) => knex()("alert_deliveries").where({ event_id: eventId, channel: "slack" }).first();

describe("immediate alerts", () => {
  it("email every member except a suppressed one, and post once to Slack", async () => {
    const t = await team();
    const [owner, second, suppressed] = t.members as [TestMember, TestMember, TestMember];
    // Suppression is compared case-insensitively.
    await suppress(knex(), t.owner.workspaceId, suppressed.email.toUpperCase(), "manual");
    const rule = await createRule(t.owner, {
      competitor_id: t.competitor.id,
      event_types: ["pricing_change"],
      severity_threshold: "high",
      confidence_threshold: 0.8,
      delivery_channels: ["email", "slack"],
    });
    const { id } = await event(t, { source_id: await pricingSource(t) });

    await consume(id);

    // Queued (or already sent: the workers run meanwhile), one row per recipient and channel.
    const queuedOrSent = expect.stringMatching(/^(queued|sent)$/);
    expect(await deliveries(id)).toEqual(
      [
        { channel: "email", recipient: owner.email, status: queuedOrSent, error: null },
        { channel: "email", recipient: second.email, status: queuedOrSent, error: null },
        { channel: "email", recipient: suppressed.email, status: "suppressed", error: null },
        { channel: "slack", recipient: "slack", status: queuedOrSent, error: null },
      ].sort((a, b) => (`${a.channel} ${a.recipient}` < `${b.channel} ${b.recipient}` ? -1 : 1)),
    );

    // The email-send worker writes what the `log` transport sends to email_outbox.
    const mails = await waitFor(async () => {
      const rows = await outboxFor(id);
      return rows.length === 2 && rows;
    });
    expect(mails.map((mail) => mail.to_address)).toEqual([owner.email, second.email].sort());
    for (const mail of mails) {
      expect(mail.subject).toBe("[High] Acme raised Pro from $49 to $59/month");
      expect(mail.text_body).toContain("The Pro plan now costs $59 per month instead of $49.");
      expect(mail.text_body).toContain("Impact: Prospects comparing on price now see a $10/month gap.");
      expect(mail.text_body).toContain("Confidence: 85% (Read from the plan cards of the pricing page.)");
      expect(mail.text_body).toContain("Source: https://acme.com/pricing");
      expect(mail.text_body).toContain(`Open the event: ${PUBLIC_BASE_URL}/app/events/${id}`);
      expect(mail.text_body).toContain(`"${rule.name}"`);
      expect(mail.html_body).toContain(`href="${PUBLIC_BASE_URL}/app/events/${id}"`);
    }
    // The email-send worker reports back: each email row is `sent` once the transport took the mail.
    await waitFor(async () => {
      const rows = await knex()("alert_deliveries").where({ event_id: id, channel: "email", status: "sent" });
      return rows.length === 2 && rows.every((row) => row.sent_at instanceof Date);
    });

    const sent = await waitFor(async () => {
      const row = await slackRow(id);
      return row?.status === "sent" && row;
    });
    expect(sent.sent_at).toBeInstanceOf(Date);
    expect(t.slack.requests).toHaveLength(1);
    const [request] = t.slack.requests;
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe(t.slack.hookPath);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.body.text).toBe("[High] Acme raised Pro from $49 to $59/month");
    expect(request!.body.blocks[0].text.text).toContain(`<${PUBLIC_BASE_URL}/app/events/${id}|`);
    expect(await jobsFor(id)).toEqual({ emails: 2, slack: 1 });
  });

  it("send one email per member and one Slack message however many rules match", async () => {
    const t = await team();
    const first = await createRule(t.owner, { delivery_channels: ["email"] });
    const second = await createRule(t.owner, { competitor_id: t.competitor.id, delivery_channels: ["email", "slack"] });
    await createRule(t.owner, { event_types: ["pricing_change"], delivery_channels: ["slack"] });
    const { id } = await event(t);

    await consume(id);

    expect(await jobsFor(id)).toEqual({ emails: 3, slack: 1 });
    const mails = await waitFor(async () => {
      const rows = await outboxFor(id);
      return rows.length === 3 && rows;
    });
    expect(new Set(mails.map((mail) => mail.to_address)).size).toBe(3);
    expect(mails[0].text_body).toContain(`"${first.name}", "${second.name}"`);
    await waitFor(async () => (await slackRow(id))?.status === "sent");
    expect(t.slack.requests).toHaveLength(1);
  });

  it("send nothing for events no active immediate rule matches", async () => {
    const t = await team();
    const other = await createCompetitor(app, t.owner, { name: "Globex", domain: "globex.com" });
    await createRule(t.owner, {
      competitor_id: t.competitor.id,
      event_types: ["pricing_change"],
      severity_threshold: "high",
      confidence_threshold: 0.8,
      delivery_channels: ["email", "slack"],
    });
    // A daily rule matching everything (the workspace's default rule is another) only shapes digests.
    await createRule(t.owner, { frequency: "daily", severity_threshold: "low", delivery_channels: ["email", "slack"] });
    const inactive = await createRule(t.owner, { severity_threshold: "low", confidence_threshold: 0 });
    await knex()("alert_rules").where({ id: inactive.id }).update({ is_active: false });

    const misses = [
      await event(t, { severity: "medium" }),
      await event(t, { confidence_score: 0.79 }),
      await event(t, { competitorId: other.id }),
      await event(t, { event_type: "product_change" }),
    ];
    for (const { id } of misses) {
      await consume(id);
      expect(await deliveries(id)).toEqual([]);
      expect(await jobsFor(id)).toEqual({ emails: 0, slack: 0 });
    }

    // The thresholds are inclusive: exactly high and 0.8 is sent.
    const { id } = await event(t, { severity: "high", confidence_score: 0.8 });
    await consume(id);
    expect(await jobsFor(id)).toEqual({ emails: 3, slack: 1 });
    await waitFor(async () => (await slackRow(id))?.status === "sent");
    expect(t.slack.requests).toHaveLength(1);
  });

  it("send nothing once the plan no longer has realtime", async () => {
    const t = await team("growth");
    await createRule(t.owner, { delivery_channels: ["email", "slack"] });
    await runAdminCommand(["set-plan", t.owner.workspaceId, "starter"], app.service.services);
    const { id } = await event(t);

    await consume(id);

    expect(await deliveries(id)).toEqual([]);
    expect(await jobsFor(id)).toEqual({ emails: 0, slack: 0 });
  });

  it("send once when the consumer runs again or twice at the same time", async () => {
    const t = await team();
    await createRule(t.owner, { delivery_channels: ["email", "slack"] });
    const { id } = await event(t);

    await Promise.all([consume(id), consume(id)]);
    await consume(id);

    expect(await jobsFor(id)).toEqual({ emails: 3, slack: 1 });
    expect(await deliveries(id)).toHaveLength(4);
    await waitFor(async () => (await outboxFor(id)).length === 3);
    await waitFor(async () => (await slackRow(id))?.status === "sent");
    expect(t.slack.requests).toHaveLength(1);
  });

  it("retry Slack after a 500 and mark the message sent when it succeeds", async () => {
    const t = await team();
    await createRule(t.owner, { delivery_channels: ["slack"] });
    t.slack.failNext({ status: 500, body: "rollup_error" });
    const { id } = await event(t);

    await consume(id);

    // The failed attempt leaves the row queued with its reason, for the retry.
    await waitFor(async () => (await slackRow(id))?.error === "HTTP 500 from 127.0.0.1: rollup_error");
    const sent = await waitFor(async () => {
      const row = await slackRow(id);
      return row?.status === "sent" && row;
    }, 15_000);
    expect(sent.error).toBeNull();
    expect(t.slack.requests).toHaveLength(2);
    expect(t.slack.requests[1]!.body).toEqual(t.slack.requests[0]!.body);
  });

  it("retry Slack after a 429", async () => {
    const t = await team();
    await createRule(t.owner, { delivery_channels: ["slack"] });
    t.slack.failNext({ status: 429, body: "rate_limited", headers: { "retry-after": "1" } });
    const { id } = await event(t);

    await consume(id);

    await waitFor(async () => (await slackRow(id))?.status === "sent", 15_000);
    expect(t.slack.requests).toHaveLength(2);
  });

  it("mark Slack failed at once, with Slack's reason, on a 4xx", async () => {
    const t = await team();
    await createRule(t.owner, { delivery_channels: ["slack"] });
    t.slack.failNext({ status: 404, body: "no_service" });
    const { id } = await event(t);

    await consume(id);

    const failed = await waitFor(async () => {
      const row = await slackRow(id);
      return row?.status === "failed" && row;
    });
    expect(failed.error).toBe("HTTP 404 from 127.0.0.1: no_service");
    expect(failed.sent_at).toBeNull();
    expect(t.slack.requests).toHaveLength(1);
  });

  it("never post to a Slack webhook copied in from another workspace's row: it does not open there", async () => {
    const victim = await team();
    const thief = await team();
    const { slack_webhook_url: sealed } = await knex()("workspaces").where({ id: victim.owner.workspaceId }).first();
    await knex()("workspaces").where({ id: thief.owner.workspaceId }).update({ slack_webhook_url: sealed });
    await createRule(thief.owner, { delivery_channels: ["slack"] });
    const { id } = await event(thief);

    await consume(id);

    const failed = await waitFor(async () => {
      const row = await slackRow(id);
      return row?.status === "failed" && row;
    });
    expect(failed.error).toBe("the stored Slack webhook cannot be opened; connect it again");
    expect(victim.slack.requests).toHaveLength(0);
    expect(thief.slack.requests).toHaveLength(0);
  });

  it("mark Slack failed, and dead-letter the job, when its last retry fails", async () => {
    const t = await team();
    const { id } = await event(t);
    const row = await createAlertDelivery(app, { eventId: id, channel: "slack", status: "queued" });
    t.slack.failNext({ status: 503, body: "service_unavailable" });
    const jobId = await app.service.services.jobs.send(QUEUES.alertSlack, { delivery_id: row.id }, { retryLimit: 0 });

    const failed = await waitFor(async () => {
      const current = await slackRow(id);
      return current?.status === "failed" && current;
    });
    expect(failed.error).toBe("HTTP 503 from 127.0.0.1: service_unavailable");
    await waitFor(
      async () => (await app.service.services.jobs.boss.getJobById(QUEUES.alertSlack.name, jobId))?.state === "failed",
    );
    const { rows } = await knex().raw(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = ? AND data->>'delivery_id' = ?`,
      [DEAD_LETTER_QUEUE, row.id],
    );
    expect(rows[0].n).toBe(1);
  });

  it("are sent for an event-created job, end to end", async () => {
    const t = await team();
    await createRule(t.owner, { delivery_channels: ["email", "slack"] });
    const { id } = await event(t);

    await app.service.services.jobs.send(QUEUES.eventCreated, { event_id: id });

    const mails = await waitFor(async () => {
      const rows = await outboxFor(id);
      return rows.length === 3 && rows;
    });
    expect(mails.map((mail) => mail.to_address)).toEqual(t.members.map((member) => member.email).sort());
    await waitFor(async () => (await slackRow(id))?.status === "sent");
    expect(t.slack.requests.map((request) => request.body.text)).toEqual([
      "[High] Acme raised Pro from $49 to $59/month",
    ]);
  });
});

describe("the alert_deliveries table", () => {
  it("refuses channels and statuses outside the enumerations, and a second row per recipient", async () => {
    const t = await team();
    const { id } = await event(t);
    const row = (fields: Record<string, unknown>) => ({
      event_id: id,
      channel: "email",
      recipient: "a@example.com",
      status: "queued",
      ...fields,
    });
    await expect(knex()("alert_deliveries").insert(row({ channel: "sms" }))).rejects.toThrow(/channel_check/);
    await expect(knex()("alert_deliveries").insert(row({ status: "bounced" }))).rejects.toThrow(/status_check/);
    await expect(knex()("alert_deliveries").insert(row({ channel: "slack" }))).rejects.toThrow(/slack_recipient_check/);
    await knex()("alert_deliveries").insert(row({}));
    await expect(knex()("alert_deliveries").insert(row({ status: "sent" }))).rejects.toThrow(/unique/);
  });
});
