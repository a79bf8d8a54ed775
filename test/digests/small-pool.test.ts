/**
 * Digest sending holds no database connection while the mail is handed over: with a pool of three connections, a
 * dozen concurrent sends all finish and an API request on the same pool still answers meanwhile. The `log` transport
 * writes the mail through the same pool, which is what a sender holding a transaction across the hand-over starves
 * (the pool's 60 s acquire timeout is then the only way out).
 */
import type { Knex } from "knex";
import pino from "pino";
import supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { createKnex } from "../../src/db/knex.js";
import { DigestSender } from "../../src/digests/send.js";
import { createEmailTransport, type EmailTransport } from "../../src/email/transports.js";
import { createDigest, createDigestDelivery, createWorkspace, type TestMember } from "../setup/factories.js";
import { startTestApp, type TestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

const POOL_SIZE = 3;
const SENDS = 12;
/** Far above what a dozen log-transport sends take (about 4 s on a loaded 2-core machine), far below a stall's 60 s. */
const DEADLINE_MS = 20_000;
/** One API read waits behind a few short statements at most. */
const REQUEST_DEADLINE_MS = 10_000;

let app: TestApp;
let smallPool: Knex;
let email: EmailTransport;
let api: supertest.Agent;
beforeAll(async () => {
  app = await startTestApp();
  smallPool = createKnex(app.service.database.url, { max: POOL_SIZE });
  const log = pino({ level: "silent" });
  email = createEmailTransport(app.config, smallPool, log);
  const built = await buildApp({ ...app.service.services, knex: smallPool, email, log });
  api = supertest.agent(built.app);
});
afterAll(async () => {
  await email?.close();
  await smallPool?.destroy();
  await app?.stop();
});

/** Rejects after `ms` with a message naming what stalled, so a stall fails the test rather than its timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Waits for `sends` while asking the API (on the small pool) again and again, from the moment the sends have begun
 * (`begun`, checked on the test app's own pool) until they have finished: every answer must come promptly.
 */
async function apiAnswersDuring<T>(sends: Promise<T>, begun: () => Promise<boolean>, reader: TestMember): Promise<T> {
  let settled = false;
  const watched = sends.finally(() => (settled = true));
  // A stall fails the test below; the sends' own rejection (the pool closing under them) is not a second failure.
  watched.catch(() => {});
  await waitFor(begun, DEADLINE_MS, "the sends to begin");
  do {
    const meanwhile = await within(
      api.get("/digests").set("Authorization", reader.bearer),
      REQUEST_DEADLINE_MS,
      "an API request during the sends",
    );
    expect(meanwhile.status).toBe(200);
  } while (!settled);
  return within(watched, DEADLINE_MS, `${SENDS} concurrent digest sends`);
}

async function outboxCount(owners: TestMember[]): Promise<number> {
  const mails = await app.service.services.knex("email_outbox").whereIn(
    "to_address",
    owners.map((owner) => owner.email),
  );
  return mails.length;
}

describe("digest sending on a small pool", () => {
  it(`answers ${SENDS} concurrent POST /send over ${POOL_SIZE} connections while the API keeps answering`, async () => {
    const owners = await Promise.all(Array.from({ length: SENDS }, () => createWorkspace(app)));
    const digests = await Promise.all(owners.map((owner) => createDigest(app, owner, { period_type: "daily" })));
    const ids = digests.map((digest) => digest.id);

    const sends = Promise.all(
      owners.map((owner, index) => api.post(`/digests/${ids[index]}/send`).set("Authorization", owner.bearer)),
    );
    const begun = async () =>
      (await app.service.services.knex("digest_deliveries").whereIn("digest_id", ids)).length >= POOL_SIZE;
    const answers = await apiAnswersDuring(sends, begun, owners[0]!);

    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.delivery_summary).toMatchObject({ sent: 1, failed: 0, total: 1 });
    }
    expect(await outboxCount(owners)).toBe(SENDS);
  }, 60_000);

  it(`sends ${SENDS} scheduled deliveries at once from worker deps over ${POOL_SIZE} connections`, async () => {
    const owners = await Promise.all(Array.from({ length: SENDS }, () => createWorkspace(app)));
    const deliveries = await Promise.all(
      owners.map(async (owner) => {
        const digest = await createDigest(app, owner);
        return createDigestDelivery(app, owner, { digestId: digest.id, recipient_email: owner.email });
      }),
    );
    const ids = deliveries.map((delivery) => delivery.id);
    const worker = { config: app.config, knex: smallPool, email, log: pino({ level: "silent" }) };

    const sends = Promise.all(ids.map((id) => new DigestSender(worker).sendScheduled(id)));
    const begun = async () =>
      (await app.service.services.knex("digest_deliveries").whereIn("id", ids).where("send_attempts", ">", 0)).length >
      0;
    await apiAnswersDuring(sends, begun, owners[0]!);

    const rows = await app.service.services.knex("digest_deliveries").whereIn("id", ids);
    expect(rows.map((row) => row.status)).toEqual(ids.map(() => "sent"));
    expect(rows.every((row) => row.claimed_until === null)).toBe(true);
    expect(await outboxCount(owners)).toBe(SENDS);
  }, 60_000);
});
