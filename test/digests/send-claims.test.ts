/**
 * How a digest delivery is claimed, sent and recorded without a transaction around the hand-over
 * (src/digests/send.ts): a sender that died mid-send loses nothing, a live sender's row is left alone (and a job
 * holding it looks again later), and a mail the transport took before its sender died is not written twice.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DigestSender, type DigestSendDeps } from "../../src/digests/send.js";
import { createDigest, createDigestDelivery, createWorkspace } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";

let app: TestApp;
let deps: DigestSendDeps;
beforeAll(async () => {
  app = await startTestApp();
  const { config, knex, email } = app.service.services;
  deps = { config, knex, email, log: pino({ level: "silent" }) };
});
afterAll(async () => {
  await app?.stop();
});

const knex = () => app.service.services.knex;
const secondsFromNow = (seconds: number) => new Date(Date.now() + seconds * 1000);

async function pendingDelivery() {
  const owner = await createWorkspace(app);
  const digest = await createDigest(app, owner);
  const delivery = await createDigestDelivery(app, owner, { digestId: digest.id, recipient_email: owner.email });
  return { owner, digestId: digest.id, id: delivery.id };
}

const row = (id: string) => knex()("digest_deliveries").where({ id }).first();
const outbox = (to: string) => knex()("email_outbox").where({ to_address: to });

describe("digest delivery claims", () => {
  it("sends a delivery whose sender died mid-send once its claim has lapsed", async () => {
    const { owner, id } = await pendingDelivery();
    await knex()("digest_deliveries")
      .where({ id })
      .update({ claimed_until: secondsFromNow(-1), send_attempts: 1 });

    expect(await new DigestSender(deps).send(id)).toBe("sent");
    expect(await row(id)).toMatchObject({ status: "sent", claimed_until: null, send_attempts: 2 });
    expect(await outbox(owner.email)).toHaveLength(1);
  });

  it("leaves a row another sender holds, and fails the job so it looks again", async () => {
    const { owner, id } = await pendingDelivery();
    await knex()("digest_deliveries")
      .where({ id })
      .update({ claimed_until: secondsFromNow(60), send_attempts: 1 });

    expect(await new DigestSender(deps).send(id)).toBe("busy");
    await expect(new DigestSender(deps).sendScheduled(id)).rejects.toThrow(/held by another sender/);
    expect(await row(id)).toMatchObject({ status: "pending", send_attempts: 1 });
    expect(await outbox(owner.email)).toHaveLength(0);
  });

  it("sends one mail when two senders race for one row", async () => {
    const { owner, id } = await pendingDelivery();
    const outcomes = await Promise.all([new DigestSender(deps).send(id), new DigestSender(deps).send(id)]);
    // The loser finds the winner's claim (busy), or, had the winner already finished, a done row (skipped).
    expect(outcomes.filter((outcome) => outcome === "sent")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== "sent")).toEqual([expect.stringMatching(/^(busy|skipped)$/)]);
    expect(await outbox(owner.email)).toHaveLength(1);
    // The winner's record released the claim: the row is done, so a later look is a plain skip.
    expect(await new DigestSender(deps).send(id)).toBe("skipped");
  });

  it("does not write a mail twice when the transport took it but its sender died before recording", async () => {
    const { owner, id, digestId } = await pendingDelivery();
    expect(await new DigestSender(deps).send(id)).toBe("sent");
    const first = await row(id);
    // As if the sender had died between the hand-over and its record: the row still pending, its claim lapsed.
    await knex()("digest_deliveries")
      .where({ id })
      .update({ status: "pending", provider_message_id: null, sent_at: null, claimed_until: secondsFromNow(-1) });

    expect(await new DigestSender(deps).send(id)).toBe("sent");
    expect((await row(id)).provider_message_id).toBe(first.provider_message_id);
    expect(first.provider_message_id).toBe(`log-digest-delivery-${id}`);
    expect(await outbox(owner.email)).toHaveLength(1);
    expect((await knex()("digests").where({ id: digestId }).first()).delivered_at).not.toBeNull();
  });

  it("records a transport failure and releases the claim, so the next attempt may send", async () => {
    const { id } = await pendingDelivery();
    const failing: DigestSendDeps = {
      ...deps,
      email: { send: async () => Promise.reject(new Error("421 try again later")), close: async () => {} },
    };
    expect(await new DigestSender(failing).send(id)).toBe("failed");
    expect(await row(id)).toMatchObject({ status: "failed", error: "421 try again later", claimed_until: null });
    await expect(new DigestSender(failing).sendScheduled(id)).rejects.toThrow(/failed; will retry/);

    expect(await new DigestSender(deps).send(id)).toBe("sent");
    expect(await row(id)).toMatchObject({ status: "sent", error: null, send_attempts: 3 });
  });
});
