/**
 * A set-password link (password reset, invitation) is stored nowhere in a usable form: the queued message and its job
 * hold a reference, and the link is rendered when the mail is handed to the transport
 * (docs/product-rules.md#tokens-and-passwords). What the `log` transport wrote (`email_outbox`) is the delivered
 * mail, so the tests read the token from there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminCommand } from "../../src/cli/admin.js";
import { enqueueEmail } from "../../src/email/outbox.js";
import { QUEUES } from "../../src/jobs/queues.js";
import { createWorkspace } from "../setup/factories.js";
import { queueSettled } from "../setup/jobs.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.stop());

const knex = () => app.service.services.knex;

async function deliveredMail(to: string): Promise<{ text_body: string; html_body: string }> {
  return waitFor(() => knex()("email_outbox").where({ to_address: to }).first(), 10_000, `the mail to ${to}`);
}

/** Every row of the queued-mail table and of pg-boss's jobs (live and archived), whole, as text. */
async function storedRows(): Promise<string[]> {
  const rows: { row: string }[] = [
    ...(await knex().raw("SELECT t::text AS row FROM outgoing_emails t")).rows,
    ...(await knex().raw("SELECT j::text AS row FROM pgboss.job j")).rows,
    ...(await knex().raw("SELECT a::text AS row FROM pgboss.archive a")).rows,
  ];
  return rows.map((r) => r.row);
}

const tokenIn = (mail: { text_body: string }) => /token=([\w-]+)/.exec(mail.text_body)![1]!;

describe("set-password links at rest", () => {
  it("keeps the token of a password-reset mail out of the outgoing mail table and the job queue", async () => {
    const member = await createWorkspace(app);
    await app.http.post("/auth/forgot-password").send({ email: member.email }).expect(200);
    const mail = await deliveredMail(member.email);
    const token = tokenIn(mail);
    expect(mail.html_body).toContain(`token=${token}`);
    await queueSettled(knex(), QUEUES.emailSend);

    const rows = await storedRows();
    expect(rows.some((row) => row.includes(member.email))).toBe(true);
    expect(rows.filter((row) => row.includes(token))).toEqual([]);
    const resetRows = await knex().raw("SELECT t::text AS row FROM password_reset_tokens t");
    expect(resetRows.rows.filter((r: { row: string }) => r.row.includes(token))).toEqual([]);

    // The link delivered still works.
    await app.http.post("/auth/reset-password").send({ token, password: "a brand new password" }).expect(200);
    await app.http.post("/auth/login").send({ email: member.email, password: "a brand new password" }).expect(200);
  }, 120_000);

  it("keeps the token of an invitation mail out of them too", async () => {
    const owner = await createWorkspace(app, { plan: "starter" });
    await runAdminCommand(["add-member", owner.workspaceId, "invited.person@example.com"], app.service.services);
    const token = tokenIn(await deliveredMail("invited.person@example.com"));
    await queueSettled(knex(), QUEUES.emailSend);
    expect((await storedRows()).filter((row) => row.includes(token))).toEqual([]);
    await app.http.post("/auth/reset-password").send({ token, password: "my own password" }).expect(200);
  }, 120_000);

  it("renders a link only into mail addressed to the link's own account", async () => {
    const { resetLinkPlaceholder } = await import("../../src/auth/reset-email.js");
    const victim = await createWorkspace(app);
    await app.http.post("/auth/forgot-password").send({ email: victim.email }).expect(200);
    const [reset] = await knex()("password_reset_tokens").where({ user_id: victim.userId });
    // Text that reaches other mail (a scraped page's title in an alert, say) may carry the reference.
    const placeholder = resetLinkPlaceholder(reset.id);
    await enqueueEmail(
      app.service.services.jobs,
      { to: "someone.else@example.com", subject: "Alert", text: `See ${placeholder}`, html: `<p>${placeholder}</p>` },
      knex(),
    );
    const stolen = await deliveredMail("someone.else@example.com");
    const victimMail = await deliveredMail(victim.email);
    expect(stolen.text_body).not.toContain(tokenIn(victimMail));
    expect(stolen.text_body).not.toMatch(/token=/);
    expect(stolen.html_body).not.toMatch(/token=/);
  });
});
