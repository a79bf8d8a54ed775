/**
 * Stateless processes over one Postgres (docs/architecture.md#roles): 2 `ROLE=api` and 3 `ROLE=worker` child
 * processes share the test database and do real work, and the outcome equals that of one `ROLE=all` process given
 * the same scenario.
 *
 * The scenario: 200 pricing pages on 100 loopback sites, tracked by 4 workspaces through the API processes; every
 * worker's scheduler ticks each second. Members in five time zones get the daily digest of the latest slot. Once
 * every page has its first snapshot, the pages change price and every source is made due again (its last fetch moved
 * back by its frequency, as time would): each must be fetched once, never twice at once, and each change must become
 * exactly one event. Events go to each workspace's webhook endpoint, which answers the first attempt of each event
 * with a 503 (half of all attempts fail). In that round one worker is killed with SIGKILL mid-run: its jobs are
 * expired (their start moved back past their expiry, as waiting would) and pg-boss's maintenance in the surviving
 * workers retries them (their backoff likewise cut short, and the fetch claims and a digest mail's send claim it held
 * lapsed). Nothing may be lost or made twice.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Knex } from "knex";
import { afterEach, describe, expect, it } from "vitest";
import { latestSlots } from "../../src/digests/schedule.js";
import { EVENT_ID_HEADER } from "../../src/webhooks/signature.js";
import { WebhookReceiver } from "../fakes/webhook-receiver.js";
import { addMember, createCompetitor, createWebhookSubscription, createWorkspace } from "../setup/factories.js";
import type { TestMember } from "../setup/factories.js";
import { startServiceProcess, type Role, type ServiceProcess } from "../setup/service-process.js";
import { startTestApp } from "../setup/test-app.js";
import { waitFor } from "../setup/wait.js";

const SITES = 100;
const SOURCES = 200;
const WORKSPACES = 4;
const COMPETITORS_PER_WORKSPACE = 5;
/** The Pro plan's price in each round: the baseline, then a change. */
const PRICES = [49, 59];
const ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Pacific/Auckland"];
const ROUND_TIMEOUT_MS = 120_000;

/** Pricing pages whose Pro price the test sets; counts requests per path and fetches of one path at once. */
class PricingSites {
  price = PRICES[0]!;
  readonly requests = new Map<string, number>();
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private readonly servers: Server[] = [];
  readonly baseUrls: string[] = [];

  async start(count: number): Promise<this> {
    for (let i = 0; i < count; i++) {
      const server = createServer((req, res) => {
        const key = `${i}${req.url}`;
        this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
        const now = (this.inFlight.get(key) ?? 0) + 1;
        this.inFlight.set(key, now);
        this.maxInFlight.set(key, Math.max(now, this.maxInFlight.get(key) ?? 0));
        // A short wait widens the window in which a second fetch of the same page would overlap the first.
        setTimeout(() => {
          this.inFlight.set(key, this.inFlight.get(key)! - 1);
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pricingPage(this.price));
        }, 30);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      this.servers.push(server);
      this.baseUrls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

function pricingPage(proPrice: number): string {
  return `<!doctype html><html><head><title>Pricing</title></head><body><main><h1>Pricing</h1>
<section class="plans">
  <div class="plan"><h3>Starter</h3><p class="price">$19/month</p><ul><li>3 projects</li></ul></div>
  <div class="plan"><h3>Pro</h3><p class="price">$${proPrice}/month</p><ul><li>Unlimited projects</li></ul></div>
</section></main></body></html>`;
}

/** The service's processes of a scenario: every scheduler ticks each second, webhook retries start after 1 s. */
const SCENARIO_ENV = { SCHEDULER_TICK_SECONDS: "1", WEBHOOK_RETRY_BASE_SECONDS: "1" };

/** What a scenario produced, in terms that do not depend on ids or timing. */
interface Outcome {
  /** `<source #>: <event type> <title>`, sorted (titles name the prices, so each round's differ). */
  events: string[];
  /** Per round, the sources fetched other than once (a fetch killed mid-request is retried: counted, not hidden). */
  refetched: number[];
  /** The most fetches of one page at once. */
  maxConcurrentFetches: number;
  /** Events whose webhook never arrived with a 2xx answer. */
  undelivered: number;
  /** Webhook requests carrying an event id the events table does not hold, or two delivery rows for one event. */
  strayDeliveries: number;
  /** Requests the receiver answered 2xx for an event it had already accepted (at-least-once: allowed, reported). */
  redelivered: number;
  /** Per member `<member #>: <digests sent>`, sorted. */
  digests: string[];
  /** Digest emails beyond one per member and digest. */
  duplicateDigests: number;
}

interface Topology {
  api: number;
  worker: number;
  all: number;
  killWorker: boolean;
}

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

async function runScenario(topology: Topology): Promise<Outcome> {
  const app = await startTestApp({ ROLE: "api" });
  cleanups.push(() => app.stop());
  const knex = app.service.services.knex;
  const sites = await new PricingSites().start(SITES);
  cleanups.push(() => sites.stop());
  const receiver = await new WebhookReceiver().start();
  cleanups.push(() => receiver.stop());

  // Workspaces, members and their digest hours exist before any worker ticks: the first tick schedules the latest
  // daily slot's digests for them.
  // The slot the workers' scheduler will generate: from the database's own settings (a hard-coded hour disagreed
  // with them, and the members' digests fell due or not depending on the time of day the suite ran).
  const settings = await knex("scheduler_state").where({ id: 1 }).first("daily_hour_utc", "weekly_dow");
  const slot = latestSlots(new Date(), settings.daily_hour_utc, settings.weekly_dow)[0]!;
  const owners: TestMember[] = [];
  const seenEvents = new Set<string>();
  const members: TestMember[] = [];
  for (let w = 0; w < WORKSPACES; w++) {
    const owner = await createWorkspace(app, { plan: "enterprise", name: `Workspace ${w}` });
    owners.push(owner);
    members.push(owner, await addMember(app, owner.workspaceId));
    // Half the attempts fail: each event's first one answers 503, its retry 200.
    receiver.decide(`/hooks/${w}`, (headers) => {
      const eventId = String(headers[EVENT_ID_HEADER]);
      if (seenEvents.has(eventId)) return { status: 200 };
      seenEvents.add(eventId);
      return { status: 503 };
    });
    await createWebhookSubscription(app, owner, { url: `${receiver.baseUrl}/hooks/${w}` });
  }
  for (const [i, member] of members.entries()) {
    const tz = ZONES[i % ZONES.length]!;
    // The member's local hour at the slot's end: the digest is due at once, in every zone (all whole-hour offsets).
    const hour = Number(
      new Intl.DateTimeFormat("en-GB", { timeZone: tz, hour: "2-digit", hourCycle: "h23" }).format(
        new Date(slot.scheduled_for),
      ),
    );
    await knex("users")
      .where({ id: member.userId })
      .update({ digest_frequency: "daily", digest_hour_local: hour, digest_timezone: tz });
  }

  const children: ServiceProcess[] = [];
  const start = async (name: string, role: Role) => {
    const child = await startServiceProcess(app, role, { name, env: SCENARIO_ENV });
    children.push(child);
    cleanups.push(() => child.stop("SIGKILL"));
    return child;
  };
  await Promise.all([
    ...Array.from({ length: topology.all }, (_, i) => start(`all-${i}`, "all")),
    ...Array.from({ length: topology.api }, (_, i) => start(`api-${i}`, "api")),
    ...Array.from({ length: topology.worker }, (_, i) => start(`worker-${i}`, "worker")),
  ]);
  children.sort((a, b) => a.name.localeCompare(b.name));
  const apis = children.filter((child) => !child.name.startsWith("worker"));
  const workers = children.filter((child) => !child.name.startsWith("api"));

  // Round 0 is the first fetch of each new source, which starts as soon as it is created.
  const databaseNow = async () => (await knex.raw("SELECT now() AS now")).rows[0].now as Date;
  let roundStart = await databaseNow();
  // Sources through the API processes, in turn; competitors directly (they are not what this test is about).
  const sourceIds: string[] = [];
  const sourceIndex = new Map<string, number>();
  let n = 0;
  for (const [w, owner] of owners.entries()) {
    for (let c = 0; c < COMPETITORS_PER_WORKSPACE; c++) {
      const competitor = await createCompetitor(app, owner, {
        name: `Rival ${w}-${c}`,
        domain: `rival-${w}-${c}.test`,
      });
      for (let s = 0; s < SOURCES / WORKSPACES / COMPETITORS_PER_WORKSPACE; s++, n++) {
        const api = apis[n % apis.length]!;
        const res = await fetch(`${api.baseUrl}/competitors/${competitor.id}/sources`, {
          method: "POST",
          headers: { authorization: owner.bearer, "content-type": "application/json" },
          body: JSON.stringify({ source_type: "pricing", url: `${sites.baseUrls[n % SITES]}/pricing/${n}` }),
        });
        expect(res.status, await res.clone().text()).toBe(201);
        const id = ((await res.json()) as { id: string }).id;
        sourceIds.push(id);
        sourceIndex.set(id, n);
      }
    }
  }
  expect(sourceIds).toHaveLength(SOURCES);

  // The killed worker's jobs, once expired: their retries wait out their backoff (30 s and more) at once, as time would.
  let orphaned: string[] = [];
  const expediteOrphans = async () => {
    if (orphaned.length === 0) return;
    await knex("pgboss.job")
      .whereIn("id", orphaned)
      .where({ state: "retry" })
      .where("start_after", ">", knex.fn.now())
      .update({ start_after: knex.fn.now() });
  };
  const refetched: number[] = [];
  for (let round = 0; round < PRICES.length; round++) {
    if (round > 0) {
      sites.price = PRICES[round]!;
      sites.requests.clear();
      roundStart = await databaseNow();
      // As if each source's frequency had passed since its last fetch.
      await knex("sources").update({
        last_fetched_at: knex.raw("last_fetched_at - fetch_frequency_minutes * interval '1 minute'"),
      });
    }
    const fetchedSince = async () =>
      Number((await knex("sources").where("last_fetched_at", ">=", roundStart).count({ n: "*" }).first())!.n as string);
    if (topology.killWorker && round === PRICES.length - 1) {
      await waitFor(async () => ((await fetchedSince()) >= SOURCES / 4 ? true : null), ROUND_TIMEOUT_MS);
      orphaned = await killAndExpire(knex, workers[0]!);
    }
    await waitFor(
      async () => {
        await expediteOrphans();
        return (await fetchedSince()) === SOURCES ? true : null;
      },
      ROUND_TIMEOUT_MS,
      `round ${round}: every source fetched`,
    ).catch(async (error) => {
      const fetched = await fetchedSince();
      const stuck = await knex("sources as s")
        .leftJoin("pgboss.job as j", "j.id", "s.fetch_job_id")
        .where("s.last_fetched_at", "<", roundStart)
        .limit(5)
        .select(
          "s.url",
          "s.last_fetched_at",
          "s.fetch_job_id",
          "s.fetch_queued_at",
          "j.state",
          "j.start_after",
          "j.retry_count",
        );
      const state = await knex("scheduler_state").first();
      const diagnosis = JSON.stringify({ roundStart, stuck, scheduler: state, now: await databaseNow() });
      const tails = children.map((child) => `--- ${child.name}\n${child.output().slice(-3000)}`).join("\n");
      throw new Error(`${(error as Error).message} (${fetched} of ${SOURCES})\n${diagnosis}\n${tails}`);
    });
    const failed = await knex("sources").whereNotNull("error_message").first("url", "error_message");
    expect(failed).toBeUndefined();
    refetched.push([...sites.requests.values()].filter((count) => count !== 1).length);
    expect(sites.requests.size, `round ${round}: pages requested`).toBe(SOURCES);
  }

  const changes = SOURCES * (PRICES.length - 1);
  // Every event reaches its webhook (each took one or two attempts) and every member their digest.
  await waitFor(
    async () => {
      await expediteOrphans();
      const row = await knex("webhook_deliveries").first(
        knex.raw("count(*) FILTER (WHERE status = 'delivered')::int AS delivered"),
      );
      return row.delivered >= changes ? true : null;
    },
    ROUND_TIMEOUT_MS,
    "every event's webhook delivered",
  ).catch(async (error) => {
    const stuck = await knex("webhook_deliveries as d")
      .leftJoin("pgboss.job as j", knex.raw("j.id = d.job_id"))
      .whereNot("d.status", "delivered")
      .select(
        "d.status",
        "d.attempts",
        "d.job_id",
        "d.next_attempt_at",
        "j.state",
        "j.start_after",
        "j.retry_count",
        "j.output",
      );
    const archived = await knex("pgboss.archive")
      .whereIn(
        "id",
        stuck.map((row) => row.job_id),
      )
      .select("id", "state", "output");
    throw new Error(`${(error as Error).message}\n${JSON.stringify({ stuck, archived, now: await databaseNow() })}`);
  });
  await waitFor(
    async () => {
      await expediteOrphans();
      const sent = await knex("digest_deliveries").where({ status: "sent" }).count({ n: "*" }).first();
      return Number(sent!.n) >= members.length ? true : null;
    },
    ROUND_TIMEOUT_MS,
    "every member's digest sent",
  ).catch(async (error) => {
    const deliveries = await knex("digest_deliveries")
      .whereNot({ status: "sent" })
      .select("digest_id", "user_id", "status", "send_attempts", "claimed_until", "last_event");
    const digests = await knex("digests").select("id", "workspace_id", "period_type", "period_end", "scheduled_mark");
    const jobs = await knex("pgboss.job")
      .where("name", "like", "digest%")
      .whereNot({ state: "completed" })
      .select("name", "state", "start_after", "started_on", "retry_count", "output");
    const diagnosis = {
      deliveries,
      digests,
      jobs,
      scheduler: await knex("scheduler_state").first(),
      now: await databaseNow(),
    };
    throw new Error(`${(error as Error).message}\n${JSON.stringify(diagnosis)}`);
  });
  // Let retries still in flight land before counting what arrived twice.
  await new Promise((resolve) => setTimeout(resolve, 3000));

  const events = await knex("events").select("id", "source_id", "event_type", "title", "detected_at");
  const eventIds = new Set(events.map((event) => event.id as string));
  const accepted = new Map<string, number>();
  let stray = 0;
  for (const request of receiver.requests) {
    const id = String(request.headers[EVENT_ID_HEADER]);
    if (!eventIds.has(id)) stray += 1;
    if (request.status >= 200 && request.status < 300) accepted.set(id, (accepted.get(id) ?? 0) + 1);
  }
  const deliveryRows = await knex("webhook_deliveries").select("event_id").count({ n: "*" }).groupBy("event_id");
  stray += deliveryRows.filter((row) => Number(row.n) !== 1).length;
  const digestMails = await knex("digest_deliveries").select("user_id", "digest_id", "status");
  const perMember = new Map<string, number>();
  for (const row of digestMails)
    if (row.status === "sent") perMember.set(row.user_id, (perMember.get(row.user_id) ?? 0) + 1);
  const outbox = await knex("email_outbox")
    .whereIn(
      "to_address",
      members.map((member) => member.email.toLowerCase()),
    )
    .select("to_address", "subject");
  const digestSubjects = outbox.filter((mail) => /digest/i.test(mail.subject));
  const perAddress = new Map<string, number>();
  for (const mail of digestSubjects) perAddress.set(mail.to_address, (perAddress.get(mail.to_address) ?? 0) + 1);

  const maxConcurrentFetches = Math.max(...sites.maxInFlight.values());
  await Promise.all(children.map((child) => child.stop()));
  return {
    events: events.map((event) => `${sourceIndex.get(event.source_id)}: ${event.event_type} ${event.title}`).sort(),
    refetched,
    maxConcurrentFetches,
    undelivered: events.filter((event) => !accepted.has(event.id)).length,
    strayDeliveries: stray,
    redelivered: [...accepted.values()].reduce((sum, count) => sum + count - 1, 0),
    digests: members.map((member, i) => `${i}: ${perMember.get(member.userId) ?? 0}`).sort(),
    duplicateDigests: [...perAddress.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0),
  };
}

/**
 * SIGKILL, then what the passing of the jobs' expiry would do: the jobs still active a few seconds later (the killed
 * worker's; the others finish theirs in milliseconds) get their start moved back past their expiry, and the next
 * maintenance of a surviving worker (every 30 s) sends them to retry.
 */
async function killAndExpire(knex: Knex, worker: ServiceProcess): Promise<string[]> {
  // Jobs are picked up until the signal lands: the dead worker's are those started before it and still active after
  // (a list taken before the kill missed a job picked up in between, which then waited out its real expiry and the
  // retry backoff, past the round's deadline on a busy machine).
  await worker.stop("SIGKILL");
  const killedAt = (await knex.raw("SELECT now() AS now")).rows[0].now as Date;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  // A page the killed worker was fetching keeps its claim on the source (src/sources/fetch-queue.ts) for the job's
  // expiry; a live fetch finishes in milliseconds, so a claim taken before the kill and still held now is the dead
  // worker's and lapses as time would. Left held, each expedited retry of the job found the source busy, used up its
  // retries within seconds, and the source waited for the scheduler past the round's deadline.
  await knex("sources")
    .where("fetch_started_at", "<", killedAt)
    .update({ fetch_started_at: knex.raw("fetch_started_at - interval '1 day'") });
  // A digest mail the killed worker was sending keeps its claim (src/digests/send.ts) for twice the mail deadline;
  // a live sender's claim lasts milliseconds, so one still held now is the dead worker's and lapses as time would.
  await knex("digest_deliveries")
    .where("claimed_until", ">", knex.fn.now())
    .update({ claimed_until: knex.raw("now() - interval '1 second'") });
  return knex("pgboss.job")
    .where("started_on", "<", killedAt)
    .where({ state: "active" })
    .update({ started_on: knex.raw("started_on - interval '1 day'") })
    .returning("id")
    .then((rows) => rows.map((row: { id: string }) => row.id));
}

describe("many processes on one database", () => {
  it("2 API and 3 worker processes, one killed mid-run, do what one process does: nothing lost, nothing twice", async () => {
    // One after the other: side by side they took as long (both are CPU-bound on 2 cores) and starved the test
    // files running beside this one.
    const single = await runScenario({ all: 1, api: 0, worker: 0, killWorker: false });
    const many = await runScenario({ all: 0, api: 2, worker: 3, killWorker: true });
    for (const outcome of [single, many]) {
      expect(outcome.events).toHaveLength(SOURCES * (PRICES.length - 1));
      expect(outcome.maxConcurrentFetches).toBe(1);
      expect(outcome.undelivered).toBe(0);
      expect(outcome.strayDeliveries).toBe(0);
      expect(outcome.duplicateDigests).toBe(0);
      expect(outcome.digests.every((line) => line.endsWith(": 1"))).toBe(true);
    }
    expect(single.refetched).toEqual([0, 0]);
    // Only a fetch cut by the kill may be made again (it never completed).
    expect(many.refetched.slice(0, -1)).toEqual([0]);
    expect(many.events).toEqual(single.events);
    expect(many.digests).toEqual(single.digests);
    console.info(
      `many processes: ${many.events.length} events, ${many.redelivered} redelivered webhooks, ` +
        `${many.refetched.at(-1)} fetches repeated after the kill; one process: ${single.redelivered} redelivered`,
    );
  }, 900_000);
});
