/**
 * One run of a workspace's firehose (docs/product-rules.md#firehose): every configured source searched for each
 * competitor's name, aliases and domain since the last successful run, and each new mention stored as one
 * `narrative_change` event with its evidence and its `event-created` job, so it reaches alerts, webhooks, CRMs and
 * partners like any event.
 *
 * The searches run outside any transaction (docs/architecture.md#no-transaction-across-the-network); what they found
 * is then stored in one. A mention is unique per workspace, source and provider id, so a re-run, an overlapping
 * window or a retried job makes no second event.
 */
import type { Knex } from "knex";
import type { FirehoseSourceName } from "../config.js";
import { WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { FetchError } from "../lib/http-client.js";
import { webUrl } from "../lib/web-url.js";
import { limitsOf, type PlanName } from "../workspaces/plans.js";
import { FIREHOSE_SOURCES, type FirehoseSource, type Mention } from "./sources.js";

/** The first run looks back this far; later runs from where the last successful one started. */
const FIRST_RUN_LOOKBACK_MS = 24 * 3_600_000;
/** Providers index posts with some delay: each window starts a little before the last one ended. */
const WINDOW_OVERLAP_MS = 10 * 60_000;
/** Terms searched per competitor: its name, up to two aliases, its domain. */
const MAX_TERMS = 4;
const CALL_TIMEOUT_MS = 20_000;
const EXCERPT_CHARS = 280;

/** What one source did in a run: mentions found (-1: no credentials, not searched), new ones, and its error. */
export interface SourceOutcome {
  found: number;
  created: number;
  error: string | null;
}

export interface FirehoseRunResult {
  workspace_id: string;
  ran_at: string;
  searched_since: string;
  sources: Record<FirehoseSourceName, SourceOutcome>;
  events_created: number;
}

export class FirehoseNotAvailableError extends Error {}

interface CompetitorTerms {
  id: string;
  name: string;
  terms: string[];
}

interface FoundMention extends Mention {
  source: FirehoseSource;
  competitor: CompetitorTerms;
  /** The term the post names, and where. */
  term: string;
  inTitle: boolean;
}

export class FirehoseRun {
  constructor(private readonly deps: DeliveryDeps) {}

  /**
   * Runs the workspace's firehose now, whatever its cadence (the scheduled job and `firehose-run` both call this).
   * `onProgress`, when given (the CLI writes it to stderr), hears one line as each source starts and one as it ends
   * (mentions found, skipped without credentials, or its error), then the events stored.
   */
  async run(workspaceId: string, now = new Date(), onProgress?: (message: string) => void): Promise<FirehoseRunResult> {
    const workspace = await this.deps
      .knex("workspaces")
      .where({ id: workspaceId })
      .first<{ id: string; plan: PlanName } | undefined>("id", "plan");
    if (!workspace) throw new FirehoseNotAvailableError(`no workspace ${workspaceId}`);
    if (!limitsOf(workspace.plan).realtime) {
      throw new FirehoseNotAvailableError(
        `workspace ${workspaceId} is on the ${workspace.plan} plan: the firehose needs realtime (growth or enterprise)`,
      );
    }
    const scope = new WorkspaceScope(this.deps.knex, workspaceId);
    const monitor = await ensureMonitor(scope);
    const since = monitor.searched_until
      ? new Date(monitor.searched_until.getTime() - WINDOW_OVERLAP_MS)
      : new Date(now.getTime() - FIRST_RUN_LOOKBACK_MS);
    const competitors = await competitorTerms(scope);

    const searches = await Promise.all(
      FIREHOSE_SOURCES.map(async (source, index) => {
        const label = `source ${index + 1}/${FIREHOSE_SOURCES.length} ${source.name}`;
        onProgress?.(`${label} started (${competitors.length} competitor(s) since ${since.toISOString()})`);
        const search = await this.searchSource(source, competitors, since, now);
        if (search.found < 0) onProgress?.(`${label} skipped (no credentials)`);
        else if (search.error) onProgress?.(`${label} failed after ${search.found} mention(s): ${search.error}`);
        else onProgress?.(`${label} done (${search.found} mention(s) found)`);
        return search;
      }),
    );
    const found = searches.flatMap((search) => search.mentions);
    const created = await this.store(scope, monitor.id, found, searches, now);
    const eventsCreated = [...created.values()].reduce((a, b) => a + b, 0);
    onProgress?.(`stored ${eventsCreated} new event(s)`);

    const sources = Object.fromEntries(
      FIREHOSE_SOURCES.map((source, index) => {
        const search = searches[index]!;
        return [source.name, { found: search.found, created: created.get(source.name) ?? 0, error: search.error }];
      }),
    ) as Record<FirehoseSourceName, SourceOutcome>;
    return {
      workspace_id: workspaceId,
      ran_at: now.toISOString(),
      searched_since: since.toISOString(),
      sources,
      events_created: eventsCreated,
    };
  }

  /** One source for every competitor: its mentions, or -1 without credentials, or the error that stopped it. */
  private async searchSource(source: FirehoseSource, competitors: CompetitorTerms[], since: Date, now: Date) {
    const { apiBase, token } = this.deps.config.firehose[source.name];
    if (!token && !source.tokenOptional) return { mentions: [] as FoundMention[], found: -1, error: null };
    const mentions: FoundMention[] = [];
    try {
      for (const competitor of competitors) {
        for (const request of source.requests(apiBase, token, { terms: competitor.terms, since, now })) {
          const response = await this.deps.http.send(request.url, {
            method: "GET",
            headers: request.headers,
            timeoutMs: CALL_TIMEOUT_MS,
            totalTimeoutMs: CALL_TIMEOUT_MS,
          });
          if (response.status < 200 || response.status > 299) throw new Error(refusal(source, response.status));
          let body: unknown;
          try {
            body = JSON.parse(response.body);
          } catch {
            throw new Error(`${source.label} answered something other than JSON`);
          }
          for (const post of source.parse(body)) {
            const named = namedTerm(competitor.terms, post);
            if (!named || post.postedAt < since) continue;
            mentions.push({ ...post, source, competitor, ...named });
          }
        }
      }
    } catch (error) {
      // The provider's URL is not in the message: YouTube's carries its API key.
      const message = error instanceof FetchError ? `${source.label}: ${error.kind}` : errorMessage(source, error);
      this.deps.log.warn({ source: source.name, err: message }, "firehose source failed");
      return { mentions, found: mentions.length, error: message };
    }
    return { mentions, found: mentions.length, error: null };
  }

  /**
   * The new mentions with their events, evidence and jobs, and the monitor's state, in one transaction. Returns the
   * events created per source.
   */
  private async store(
    scope: WorkspaceScope,
    monitorId: string,
    found: FoundMention[],
    searches: { error: string | null }[],
    now: Date,
  ): Promise<Map<FirehoseSourceName, number>> {
    const errors = searches.flatMap((search) => (search.error ? [search.error] : []));
    const created = new Map<FirehoseSourceName, number>();
    await scope.db.transaction(async (trx) => {
      const trxScope = scope.on(trx);
      // Only http(s) links are stored (src/lib/web-url.ts): the sources drop other posts already, and this keeps a
      // future source from storing one.
      const fresh = uniqueMentions(found).filter((m) => webUrl(m.url) === m.url);
      let stored: { id: string; source: FirehoseSourceName; external_id: string }[] = [];
      if (fresh.length > 0) {
        stored = await trxScope
          .insert(
            "firehose_mentions",
            fresh.map((m) => ({
              competitor_id: m.competitor.id,
              source: m.source.name,
              external_id: m.externalId,
              url: m.url,
              title: m.title,
              excerpt: excerpt(m),
              engagement: Math.min(m.engagement, 2_147_483_647),
              posted_at: m.postedAt,
            })),
          )
          .onConflict(["workspace_id", "source", "external_id"])
          .ignore()
          .returning(["id", "source", "external_id"]);
      }
      const byKey = new Map(fresh.map((m) => [`${m.source.name} ${m.externalId}`, m]));
      const newMentions = stored.map((row) => ({
        id: row.id,
        mention: byKey.get(`${row.source} ${row.external_id}`)!,
      }));
      for (const { mention } of newMentions) {
        created.set(mention.source.name, (created.get(mention.source.name) ?? 0) + 1);
      }
      await this.insertEvents(trx, trxScope, monitorId, newMentions);
      await trxScope
        .from("firehose_monitors")
        .where({ id: monitorId })
        .update({
          last_run_at: now,
          // A run with a failed source does not move the window: the next run searches it again (no duplicates).
          searched_until: errors.length === 0 ? now : trx.raw("searched_until"),
          consecutive_failures: errors.length === 0 ? 0 : trx.raw("consecutive_failures + 1"),
          last_error: errors.length === 0 ? null : errors.join("; "),
          last_event_at: newMentions.length > 0 ? now : trx.raw("last_event_at"),
        });
    });
    return created;
  }

  private async insertEvents(
    trx: Knex.Transaction,
    scope: WorkspaceScope,
    monitorId: string,
    mentions: { id: string; mention: FoundMention }[],
  ): Promise<void> {
    if (mentions.length === 0) return;
    const events: { id: string; diff_id: string }[] = await scope
      .insert(
        "events",
        mentions.map(({ id, mention }) => ({
          competitor_id: mention.competitor.id,
          // A firehose event's page is the post (its evidence); its source is the firehose, its change the mention.
          source_id: monitorId,
          diff_id: id,
          event_type: "narrative_change",
          severity: severityOf(mention.engagement),
          title: titleOf(mention),
          summary: summaryOf(mention),
          impact_summary: `${mention.competitor.name} is being discussed in public on ${mention.source.label} (${mention.engagementText}): it shows how people outside the company see them.`,
          confidence_score: mention.inTitle ? 0.9 : 0.75,
          confidence_reasoning: `"${mention.term}" appears in the post's ${mention.inTitle ? "title" : "text"} as a whole word; found by ${mention.source.label}'s search.`,
          is_inferred: false,
          tags_json: JSON.stringify(["firehose", mention.source.name, mention.source.monitorType]),
          subject: `firehose:${mention.source.name}:${mention.externalId}`,
          observed_at: mention.postedAt,
          // The post's own date: what the hero stat measures detection against (docs/product-rules.md#public-stats).
          published_at: mention.postedAt,
          detected_at: trx.fn.now(),
        })),
      )
      .returning(["id", "diff_id"]);
    const mentionOf = new Map(mentions.map(({ id, mention }) => [id, mention]));
    await trx("evidence").insert(
      events.map((event) => {
        const mention = mentionOf.get(event.diff_id)!;
        return {
          event_id: event.id,
          evidence_type: "mention",
          title: `${mention.source.label} post`,
          excerpt: excerpt(mention),
          source_url: mention.url,
          metadata_json: JSON.stringify({
            source: mention.source.name,
            author: mention.author,
            engagement: mention.engagement,
            posted_at: mention.postedAt.toISOString(),
          }),
        };
      }),
    );
    // Handed to delivery in the same transaction, as detection does: committed together or not at all.
    await this.deps.jobs.sendMany(
      QUEUES.eventCreated,
      events.map((event) => ({ data: { event_id: event.id } })),
      trx,
    );
  }
}

/** The workspace's monitor row, created by its first run. */
export async function ensureMonitor(scope: WorkspaceScope): Promise<{ id: string; searched_until: Date | null }> {
  await scope.insert("firehose_monitors", {}).onConflict("workspace_id").ignore();
  return scope.from("firehose_monitors").first("id", "searched_until");
}

async function competitorTerms(scope: WorkspaceScope): Promise<CompetitorTerms[]> {
  const rows: { id: string; name: string; domain: string; aliases: unknown }[] = await scope
    .from("competitors")
    .orderBy("created_at")
    .select("id", "name", "domain", "aliases");
  return rows.map((row) => {
    const aliases = Array.isArray(row.aliases) ? row.aliases.filter((a): a is string => typeof a === "string") : [];
    const terms = [row.name, ...aliases.slice(0, MAX_TERMS - 2), row.domain]
      .map((term) => term.trim())
      .filter((term) => term.length >= 2);
    return { id: row.id, name: row.name, terms: [...new Map(terms.map((t) => [t.toLowerCase(), t])).values()] };
  });
}

/** The first term the post names as a whole word (not inside another word), title first. */
export function namedTerm(terms: string[], post: Mention): { term: string; inTitle: boolean } | null {
  for (const inTitle of [true, false]) {
    const haystack = inTitle ? post.title : `${post.text} ${post.url}`;
    for (const term of terms) {
      const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, "iu").test(haystack)) {
        return { term, inTitle };
      }
    }
  }
  return null;
}

/** A post found for two competitors is one mention: the first competitor's. */
function uniqueMentions(found: FoundMention[]): FoundMention[] {
  const seen = new Map<string, FoundMention>();
  for (const mention of found) {
    const key = `${mention.source.name} ${mention.externalId}`;
    if (!seen.has(key)) seen.set(key, mention);
  }
  return [...seen.values()];
}

/** Severity by engagement (points, likes, comments, reactions added up). */
export function severityOf(engagement: number): "low" | "medium" | "high" {
  if (engagement >= 500) return "high";
  if (engagement >= 100) return "medium";
  return "low";
}

function titleOf(mention: FoundMention): string {
  const label = `${mention.competitor.name} mentioned on ${mention.source.label}`;
  if (!mention.title) return label;
  const title = mention.title.length > 120 ? `${mention.title.slice(0, 119)}…` : mention.title;
  return `${label}: "${title}"`;
}

function summaryOf(mention: FoundMention): string {
  const by = mention.author ? ` by ${mention.author}` : "";
  return `A ${mention.source.label} post${by} (${mention.engagementText}) names ${mention.competitor.name}: ${excerpt(mention)}`;
}

/** The text around the named term, or the title when the text does not name it. */
function excerpt(mention: FoundMention): string {
  const body = mention.text || mention.title;
  const at = body.toLowerCase().indexOf(mention.term.toLowerCase());
  const start = at < 0 ? 0 : Math.max(0, at - EXCERPT_CHARS / 2);
  const window = body.slice(start, start + EXCERPT_CHARS);
  return `${start > 0 ? "…" : ""}${window}${start + EXCERPT_CHARS < body.length ? "…" : ""}`;
}

function refusal(source: FirehoseSource, status: number): string {
  if (status === 401 || status === 403) return `${source.label} refused the credentials (HTTP ${status})`;
  if (status === 429) return `${source.label} rate-limited the search (HTTP 429)`;
  return `${source.label} answered HTTP ${status}`;
}

function errorMessage(source: FirehoseSource, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(source.label) ? message : `${source.label}: ${message}`;
}
