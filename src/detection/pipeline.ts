/**
 * Fetch → snapshot → extract → diff → classify → events, for one source at a time (the `source-fetch` job).
 *
 * Everything a fetch changes (snapshot, diff, events, evidence, delivery jobs, the source's state) is written in one
 * transaction, so a crash mid-job loses nothing and a retry starts from a consistent state.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import { metrics } from "../metrics/metrics.js";
import { fetchFinished, fetchStarted } from "../sources/fetch-queue.js";
import { breakageOf, markBroken, markRead, NoPlansError } from "../sources/health.js";
import { learnableOf, learnableOfDraft, type KeyedDraft } from "../learning/keys.js";
import { applyRules, type Effect } from "../learning/rules.js";
import type { AssetStore } from "../lib/asset-store.js";
import type { ByteClientOptions } from "../lib/byte-client.js";
import { FetchError, type FetchResult, type HttpClient } from "../lib/http-client.js";
import { BrowserBusyError, BrowserPool } from "./fetch/browser.js";
import { classify } from "./classify/classify.js";
import { diffExtractions, isEmptyDiff } from "./diff/diff.js";
import { resolveDrafts, type Pending } from "./classify/flap-damping.js";
import { hostOf, HostLimiter } from "./fetch/host-limiter.js";
import { shellMessage } from "./fetch/js-shell.js";
import { pageText, PageError } from "./fetch/page-text.js";
import { ParsePool } from "./parse/parse-pool.js";
import { PageRenderer, type RenderedPage, type Screenshot } from "./fetch/render.js";
import { screenshotTarget } from "./fetch/screenshot.js";
import { EXTRACTOR_VERSION, isPlanRecord, type EventDraft, type Extraction } from "./types.js";

export interface DetectionDeps {
  knex: Knex;
  jobs: Jobs;
  http: HttpClient;
  log: Logger;
  /** Time one page's parsing may take (PARSE_BUDGET_MS); default 5 s. */
  parseBudgetMs?: number;
  /** How `browser` sources are rendered; absent: BROWSER_TIMEOUT_MS's and BROWSER_HEAP_MB's defaults, guard on. */
  browser?: BrowserSettings;
  /** Where screenshots of rendered changes go (src/lib/asset-store.ts); absent: none are taken. */
  assets?: AssetStore | null;
}

/** Rendering of `browser` sources (src/detection/fetch/render.ts, src/detection/fetch/browser.ts). */
export interface BrowserSettings {
  /** BROWSER_TIMEOUT_MS. */
  timeoutMs: number;
  /** BROWSER_HEAP_MB. */
  heapMb: number;
  /** CHROMIUM_PATH; null: the packaged Chromium. */
  executablePath?: string | null;
  /** The SSRF guard of the page's requests: ALLOW_PRIVATE_TARGETS (and tests' exempt names and resolver). */
  network: Pick<ByteClientOptions, "allowPrivateTargets" | "allowHosts" | "lookup">;
}

/** The defaults of BROWSER_TIMEOUT_MS and BROWSER_HEAP_MB (docs/operations.md#environment-variables). */
export const DEFAULT_BROWSER_SETTINGS: BrowserSettings = {
  timeoutMs: 20_000,
  heapMb: 256,
  network: { allowPrivateTargets: false },
};

/**
 * At most this many screenshots per fetch: a change of many plans or items is shown by its first regions (product
 * events are themselves at most 10 per diff).
 */
const MAX_SCREENSHOTS = 10;
/**
 * No screenshot is started after this long: with the page's own budget and a wait for a free page it keeps a fetch
 * well inside its job's 120 s expiry.
 */
const SCREENSHOTS_MS = 15_000;

/** A screenshot stored for one change (its subject), before the event that shows it is stored. */
interface StoredShot {
  key: string;
  shot: Screenshot;
  pageUrl: string;
}

/** The screenshots of one fetch by subject, and the keys the stored events used (the others are deleted). */
interface ShotSet {
  bySubject: Map<string, StoredShot>;
  used: Set<string>;
}

/** The default of PARSE_BUDGET_MS (docs/operations.md#environment-variables). */
export const DEFAULT_PARSE_BUDGET_MS = 5000;

/**
 * Re-analysis re-extracts each source's latest snapshots, at most this many per source and REANALYZE_SNAPSHOTS in
 * all per request, and re-derives the changes between them (docs/product-rules.md#detection): the request's work is
 * bounded however long the history and however many the sources.
 */
export const REANALYZE_SNAPSHOTS_PER_SOURCE = 10;
export const REANALYZE_SNAPSHOTS = 100;

/** Snapshots re-analysed per source: the request's total shared out, 10 at most, 2 (one change) at least. */
export function reanalyzedPerSource(sources: number): number {
  return Math.max(2, Math.min(REANALYZE_SNAPSHOTS_PER_SOURCE, Math.floor(REANALYZE_SNAPSHOTS / Math.max(1, sources))));
}

/** A failure that is not the page's nor the fetch's, as the customer sees it; the job retries it. */
const INTERNAL_FAILURE = "internal error while processing the page; the fetch will be retried";

/** Where an event's change was seen: the diff that shows it and when its snapshot was fetched. */
export interface ChangeOrigin {
  diffId: string;
  observedAt: Date;
}

interface SourceRow {
  id: string;
  workspace_id: string;
  competitor_id: string;
  competitor_name: string;
  url: string;
  source_type: string;
  fetch_method: FetchMethod;
  etag: string | null;
  last_modified: string | null;
  last_snapshot_id: string | null;
  fetch_job_id: string | null;
}

interface SnapshotRow {
  id: string;
  content_hash: string;
  body: string;
  content_type: string | null;
  final_url: string;
  extraction: Extraction;
  extractor_version: number;
  fetched_at: Date;
}

/** A snapshot as re-analysis replays it: extracted again, or its stored extraction when that failed. */
interface Replayed {
  id: string;
  fetched_at: Date;
  extraction: Extraction;
  /** Extracted again now (and so to be stored). */
  fresh: boolean;
}

/** A source's `fetch_method`; `browser` pages are extracted as `http` bodies once rendered. */
type FetchMethod = "http" | "rss" | "browser";

/** How a body of a source with this method is extracted: a rendered page is HTML like any other. */
function extractMethod(method: FetchMethod): "http" | "rss" {
  return method === "rss" ? "rss" : "http";
}

/**
 * Below these an extraction looks empty enough to ask whether the page is a JavaScript shell
 * (src/detection/fetch/js-shell.ts): the question costs a second parse, so pages that clearly have content skip it.
 */
const NEAR_EMPTY_TEXT = 400;

export type FetchOutcome =
  | { kind: "missing" }
  /** Nothing was fetched, and the job is retried: another fetch of the source is running, or every browser page is taken. */
  | { kind: "busy"; reason: string }
  | { kind: "failed"; message: string; retryable: boolean }
  | { kind: "unchanged"; events: number }
  | { kind: "changed"; snapshotId: string; events: number };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export class DetectionPipeline {
  /** Politeness: at most two concurrent fetches per host in this process. */
  private readonly hosts = new HostLimiter(2);
  /** Where pages are parsed: off the event loop, within the parse budget (src/detection/parse/parse-pool.ts). */
  readonly parser: ParsePool;
  /** The browser and its renderer, made when the first `browser` source is fetched. */
  private rendering: { pool: BrowserPool; renderer: PageRenderer } | null = null;

  constructor(private readonly deps: DetectionDeps) {
    this.parser = new ParsePool({ budgetMs: deps.parseBudgetMs ?? DEFAULT_PARSE_BUDGET_MS });
  }

  /** Where screenshots are stored (GET /events/{event_id}/screenshot reads them); null when none are. */
  get assets(): AssetStore | null {
    return this.deps.assets ?? null;
  }

  /** Ends the parse pool's threads, the browser and the asset store's client (at shutdown). */
  async close(): Promise<void> {
    const rendering = this.rendering;
    this.rendering = null;
    await Promise.all([
      this.parser.close(),
      rendering?.pool.close(),
      rendering?.renderer.close(),
      this.deps.assets?.close(),
    ]);
  }

  /** The renderer of `browser` sources; the browser itself starts with the first page (src/detection/fetch/browser.ts). */
  private renderer(): PageRenderer {
    if (!this.rendering) {
      const settings = this.deps.browser ?? DEFAULT_BROWSER_SETTINGS;
      const pool = new BrowserPool({ executablePath: settings.executablePath, heapMb: settings.heapMb });
      const renderer = new PageRenderer({ pool, network: settings.network, timeoutMs: settings.timeoutMs });
      this.rendering = { pool, renderer };
    }
    return this.rendering.renderer;
  }

  /**
   * Fetches one source and records what changed. Every failure is recorded on the source, so the scheduler waits its
   * frequency before trying again and the customer sees why (docs/product-rules.md#detection). Throws only for
   * failures worth retrying (pg-boss retries them).
   */
  async fetchSource(sourceId: string, jobId: string | null = null): Promise<FetchOutcome> {
    const { knex } = this.deps;
    const source = await this.loadSource(sourceId);
    if (!source) return { kind: "missing" };
    // One fetch of a source at a time (src/sources/fetch-queue.ts): a second one is retried once the first is done.
    if (!(await fetchStarted(knex, sourceId, jobId)))
      return { kind: "busy", reason: "another fetch of this source is running" };
    // Everything else the fetch reads and writes is the source's workspace's.
    const scope = new WorkspaceScope(knex, source.workspace_id);
    const fetchedAt = new Date();
    try {
      const outcome = await this.fetchAndRecord(scope, source, fetchedAt);
      metrics.fetches.inc({ outcome: outcome.kind });
      return outcome;
    } catch (error) {
      if (error instanceof BrowserBusyError) {
        // Every page of this process's browser is taken: nothing was fetched, so nothing is recorded; the claim is
        // released and the job retried later.
        await scope
          .from("sources")
          .where({ id: source.id })
          .update({ ...fetchFinished });
        return { kind: "busy", reason: "every page of the browser is taken" };
      }
      const blocked =
        (error instanceof FetchError && error.kind === "blocked") || (error instanceof PageError && error.blocked);
      metrics.fetches.inc({ outcome: blocked ? "blocked" : "error" });
      return this.failed(scope, source.id, error, fetchedAt);
    }
  }

  private async fetchAndRecord(scope: WorkspaceScope, source: SourceRow, fetchedAt: Date): Promise<FetchOutcome> {
    const previous = (source.last_snapshot_id && (await loadSnapshot(scope, source.last_snapshot_id))) || null;
    // One pipeline, two fetchers: an http(s) GET, or the page rendered in the browser (kept open for screenshots).
    const { result, rendered } = await this.fetchPage(source, previous !== null);
    try {
      if (result.notModified && previous) {
        const events = await this.recordUnchanged(scope, source, fetchedAt, result.etag, result.lastModified);
        return { kind: "unchanged", events };
      }

      // Text without NUL characters, or a PageError ("not a text page: image/png"); parsed in the pool.
      const body = pageText(result);
      const extraction = await this.parser.run("extract", {
        body,
        options: { url: result.url, contentType: result.contentType, fetchMethod: extractMethod(source.fetch_method) },
      });
      if (extraction.signals.bot_challenge) {
        throw new PageError(`looks like a bot challenge page (${new URL(result.url).host})`, true);
      }
      await this.assertNotShell(source, body, extraction, rendered);
      assertStillPriced(source, previous, extraction);

      const contentHash = sha256(body);
      if (previous && previous.content_hash === contentHash) {
        const shots = await this.takeScreenshots(source, rendered, []);
        const events = await this.withShots(shots, () =>
          this.recordUnchanged(scope, source, fetchedAt, result.etag, result.lastModified, shots),
        );
        return { kind: "unchanged", events };
      }
      return await this.recordChange(scope, source, previous, {
        result: { ...result, body },
        extraction,
        contentHash,
        fetchedAt,
        rendered,
      });
    } finally {
      if (rendered && rendered.blocked.length > 0) {
        this.deps.log.info({ source: source.id, blocked: rendered.blocked.slice(0, 20) }, "page requests blocked");
      }
      await rendered?.close();
    }
  }

  /**
   * An http page that is an empty JavaScript app shell fails, saying so and what to do
   * (docs/product-rules.md#javascript-shells); a rendered page still empty after rendering fails too. Asked only when
   * the extraction found (almost) nothing, so that pages with content pay no second parse.
   */
  private async assertNotShell(
    source: SourceRow,
    body: string,
    extraction: Extraction,
    rendered: RenderedPage | null,
  ): Promise<void> {
    if (source.fetch_method === "rss" || (rendered && !rendered.rendered)) return;
    const found =
      extraction.pricing.length > 0 ||
      extraction.jobs.length > 0 ||
      extraction.items.length > 0 ||
      extraction.text.length > NEAR_EMPTY_TEXT;
    if (found) return;
    const verdict = await this.parser.run("shell", { body });
    if (verdict.sign === null) return;
    if (!rendered) throw new PageError(shellMessage(verdict));
    throw new PageError(
      `the page still showed no content after rendering (${verdict.sign}; ${verdict.textLength} characters of ` +
        `text): its scripts did not draw it within ${this.renderer().budgetLabel}`,
    );
  }

  /**
   * Records a failed fetch on the source: the fetch's or the page's own message (FetchError, PageError), or a plain
   * internal one for anything else (logged in full). Rethrows what is worth retrying.
   */
  private async failed(
    scope: WorkspaceScope,
    sourceId: string,
    error: unknown,
    fetchedAt: Date,
  ): Promise<FetchOutcome> {
    const known = error instanceof FetchError || error instanceof PageError || error instanceof NoPlansError;
    if (!known) this.deps.log.error({ err: error, source: sourceId }, "source fetch failed unexpectedly");
    const message = known ? error.message : INTERNAL_FAILURE;
    await this.recordFailure(scope, sourceId, message, fetchedAt, error);
    if (error instanceof FetchError ? error.retryable : !known) throw error;
    return { kind: "failed", message, retryable: false };
  }

  /**
   * The source's page, politely (per-host limit): an http(s) GET with the previous snapshot's validators while it
   * exists, or, for `browser` sources, the page rendered (src/detection/fetch/render.ts), still open.
   */
  private fetchPage(
    source: SourceRow,
    hasSnapshot: boolean,
  ): Promise<{ result: FetchResult; rendered: RenderedPage | null }> {
    return this.hosts.run(hostOf(source.url), async () => {
      if (source.fetch_method === "browser") {
        const rendered = await this.renderer().render(source.url);
        return { result: rendered.result, rendered };
      }
      const result = await this.deps.http.fetchPage(source.url, {
        // Validators only make sense while the snapshot they describe is still there.
        etag: hasSnapshot ? source.etag : null,
        lastModified: hasSnapshot ? source.last_modified : null,
        accept:
          source.fetch_method === "rss"
            ? "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
            : "text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8",
      });
      return { result, rendered: null };
    });
  }

  /**
   * Screenshots of the changes a rendered page shows (docs/product-rules.md#screenshots), stored before the
   * transaction that stores the events (no transaction waits on the browser or the store): one per subject of the
   * new drafts and of the changes waiting for confirmation (this fetch may confirm them), MAX_SCREENSHOTS at most;
   * one region shown by several changes is stored once. A screenshot that cannot be taken or stored is left out:
   * the events are recorded without it. This is the page's last use: it is closed here, so its place in the browser
   * pool is free while the events are stored.
   */
  private async takeScreenshots(
    source: SourceRow,
    rendered: RenderedPage | null,
    drafts: EventDraft[],
  ): Promise<ShotSet> {
    try {
      return await this.shotsOf(source, rendered, drafts);
    } finally {
      await rendered?.close();
    }
  }

  private async shotsOf(source: SourceRow, rendered: RenderedPage | null, drafts: EventDraft[]): Promise<ShotSet> {
    const shots: ShotSet = { bySubject: new Map(), used: new Set() };
    const store = this.deps.assets;
    if (!store || !rendered?.rendered) return shots;
    const waiting: { draft: EventDraft }[] = await this.deps
      .knex("pending_changes")
      .where({ source_id: source.id })
      .select("draft");
    const candidates = new Map<string, EventDraft>();
    for (const draft of [...drafts, ...waiting.map((row) => row.draft)]) {
      if (!candidates.has(draft.subject)) candidates.set(draft.subject, draft);
    }
    const byRegion = new Map<string, StoredShot>();
    const until = Date.now() + SCREENSHOTS_MS;
    for (const draft of [...candidates.values()].slice(0, MAX_SCREENSHOTS)) {
      if (Date.now() > until) break;
      let shot: Screenshot | null;
      try {
        shot = await rendered.screenshot(screenshotTarget(draft));
      } catch (error) {
        this.deps.log.warn({ err: error, source: source.id, subject: draft.subject }, "screenshot not taken");
        continue;
      }
      if (!shot) continue;
      const region = shot.region ? `${shot.region.x},${shot.region.y},${shot.width},${shot.height}` : "top";
      let stored = byRegion.get(region);
      if (!stored) {
        const key = `screenshots/${source.workspace_id}/${source.id}/${randomUUID()}.png`;
        try {
          await store.put(key, shot.png, "image/png");
        } catch (error) {
          this.deps.log.warn({ err: error, source: source.id }, "screenshot not stored");
          continue;
        }
        stored = { key, shot, pageUrl: rendered.result.url };
        byRegion.set(region, stored);
      }
      shots.bySubject.set(draft.subject, stored);
    }
    return shots;
  }

  /**
   * Runs the transaction that stores the events, then deletes the screenshots no stored event uses (all of them when
   * the transaction failed).
   */
  private async withShots<T>(shots: ShotSet, store: () => Promise<T>): Promise<T> {
    let committed = false;
    try {
      const result = await store();
      committed = true;
      return result;
    } finally {
      const keys = new Set([...shots.bySubject.values()].map((s) => s.key));
      for (const key of keys) {
        if (committed && shots.used.has(key)) continue;
        await this.deps.assets?.delete(key).catch((error: unknown) => {
          this.deps.log.warn({ err: error, key }, "unused screenshot not deleted");
        });
      }
    }
  }

  /**
   * A page whose content changed: its snapshot, the diff against the previous one and the events classified from it,
   * in one transaction with the source's new state.
   */
  private async recordChange(
    scope: WorkspaceScope,
    source: SourceRow,
    previous: SnapshotRow | null,
    page: {
      result: FetchResult;
      extraction: Extraction;
      contentHash: string;
      fetchedAt: Date;
      rendered: RenderedPage | null;
    },
  ): Promise<FetchOutcome> {
    const previousExtraction = previous ? await this.currentExtraction(previous, source.fetch_method) : null;
    const diff = previousExtraction ? diffExtractions(previousExtraction, page.extraction) : null;
    const drafts =
      diff && !isEmptyDiff(diff)
        ? withKeys(
            classify(diff, {
              competitorName: source.competitor_name,
              sourceType: source.source_type,
              sourceUrl: source.url,
            }),
            previousExtraction,
            page.extraction,
          )
        : [];
    const shots = await this.takeScreenshots(source, page.rendered, drafts);

    return this.withShots(shots, () => this.storeChange(scope, source, previous, page, diff, drafts, shots));
  }

  /** The snapshot, diff, events and the source's new state, in one transaction. */
  private storeChange(
    scope: WorkspaceScope,
    source: SourceRow,
    previous: SnapshotRow | null,
    page: { result: FetchResult; extraction: Extraction; contentHash: string; fetchedAt: Date },
    diff: ReturnType<typeof diffExtractions> | null,
    drafts: EventDraft[],
    shots: ShotSet,
  ): Promise<FetchOutcome> {
    const { result, extraction, contentHash, fetchedAt } = page;
    return this.deps.knex.transaction(async (trx) => {
      const trxScope = scope.on(trx);
      const [snapshot] = await trxScope
        .insert("snapshots", {
          source_id: source.id,
          content_hash: contentHash,
          body: result.body,
          content_type: result.contentType,
          http_status: result.status,
          final_url: result.url,
          extraction: JSON.stringify(extraction),
          extractor_version: EXTRACTOR_VERSION,
          fetched_at: fetchedAt,
        })
        .returning("id");
      let events = 0;
      if (previous && diff && !isEmptyDiff(diff)) {
        const diffId = await upsertDiff(trxScope, source, previous.id, snapshot.id, diff);
        events = await this.applyDrafts(trx, source, drafts, { diffId, observedAt: fetchedAt }, shots);
      } else {
        // No diff (first snapshot, or only masked/volatile text changed): waiting changes held.
        events = await this.applyDrafts(trx, source, [], null, shots);
      }
      await trxScope
        .from("sources")
        .where({ id: source.id })
        .update({
          last_snapshot_id: snapshot.id,
          etag: result.etag,
          last_modified: result.lastModified,
          ...successState(fetchedAt),
        });
      await markRead(trx, this.deps.jobs, scope, source.id, fetchedAt);
      return { kind: "changed" as const, snapshotId: snapshot.id, events };
    });
  }

  /**
   * Re-extracts the latest snapshots of each of the competitor's sources (reanalyzedPerSource) with the current
   * extractor and re-derives the diffs and events between them. Idempotent: events are unique per (diff, subject),
   * so a second run creates nothing new. Only the competitor of the scope's workspace is found (the caller's:
   * POST /insights/reanalyze/{id}). Parsing happens before each source's transaction, in the parse pool.
   */
  async reanalyzeCompetitor(scope: WorkspaceScope, competitorId: string): Promise<number> {
    const sources: SourceRow[] = await sourceQuery(scope.from("sources as s")).where("s.competitor_id", competitorId);
    const perSource = reanalyzedPerSource(sources.length);
    let created = 0;
    for (const source of sources) {
      const snapshots = await this.reextract(scope, source, perSource);
      created += await scope.db.transaction((trx) => this.replay(scope.on(trx), trx, source, snapshots));
    }
    return created;
  }

  /**
   * The source's latest snapshots, oldest first, each extracted again; one that cannot be (too complex to parse
   * within the budget) keeps its stored extraction. Bodies are read one at a time, so memory holds one page.
   */
  private async reextract(scope: WorkspaceScope, source: SourceRow, limit: number): Promise<Replayed[]> {
    const rows: Omit<SnapshotRow, "body" | "content_hash">[] = await scope
      .from("snapshots")
      .where({ source_id: source.id })
      .orderBy([
        { column: "fetched_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(limit)
      .select("id", "fetched_at", "final_url", "content_type", "extraction", "extractor_version");
    const replayed: Replayed[] = [];
    for (const row of rows.reverse()) {
      const { body } = await scope.from("snapshots").where({ id: row.id }).first("body");
      try {
        const options = {
          url: row.final_url,
          contentType: row.content_type,
          fetchMethod: extractMethod(source.fetch_method),
        };
        const extraction = await this.parser.run("extract", { body, options });
        replayed.push({ id: row.id, fetched_at: row.fetched_at, extraction, fresh: true });
      } catch (error) {
        if (!(error instanceof PageError)) throw error;
        replayed.push({ id: row.id, fetched_at: row.fetched_at, extraction: row.extraction, fresh: false });
      }
    }
    return replayed;
  }

  /** Stores the new extractions and replays diffs, flap damping and events over them, in the caller's transaction. */
  private async replay(
    trxScope: WorkspaceScope,
    trx: Knex.Transaction,
    source: SourceRow,
    snapshots: Replayed[],
  ): Promise<number> {
    let pending: Pending<ChangeOrigin>[] = [];
    let inserted = 0;
    let before: Replayed | null = null;
    for (const snapshot of snapshots) {
      if (snapshot.fresh) {
        await trxScope
          .from("snapshots")
          .where({ id: snapshot.id })
          .update({ extraction: JSON.stringify(snapshot.extraction), extractor_version: EXTRACTOR_VERSION });
      }
      let drafts: EventDraft[] = [];
      let origin: ChangeOrigin | null = null;
      if (before) {
        const diff = diffExtractions(before.extraction, snapshot.extraction);
        if (!isEmptyDiff(diff)) {
          origin = {
            diffId: await upsertDiff(trxScope, source, before.id, snapshot.id, diff),
            observedAt: snapshot.fetched_at,
          };
          drafts = withKeys(
            classify(diff, {
              competitorName: source.competitor_name,
              sourceType: source.source_type,
              sourceUrl: source.url,
            }),
            before.extraction,
            snapshot.extraction,
          );
        }
      }
      const resolution = resolveDrafts(pending, drafts);
      inserted += await this.insertEvents(trx, source, toStore(resolution, origin));
      pending = pending
        .filter((p) => !resolution.settled.includes(p.subject))
        .concat(resolution.wait.map((draft) => toPending(draft, origin!)));
      before = snapshot;
    }
    // What still waits at the end waits for the next live fetch.
    await trx("pending_changes").where({ source_id: source.id }).delete();
    for (const waiting of pending) await insertPending(trx, source.id, waiting);
    return inserted;
  }

  /** Applies flap damping to the drafts of a new diff (or to none) and stores the resulting events. */
  private async applyDrafts(
    trx: Knex.Transaction,
    source: SourceRow,
    drafts: EventDraft[],
    origin: ChangeOrigin | null,
    shots?: ShotSet,
  ): Promise<number> {
    const rows = await trx("pending_changes").where({ source_id: source.id }).forUpdate();
    const pending: Pending<ChangeOrigin>[] = rows.map((row) => ({
      subject: row.subject,
      before_state: row.before_state,
      after_state: row.after_state,
      draft: row.draft,
      origin: { diffId: row.diff_id, observedAt: row.observed_at },
    }));
    const resolution = resolveDrafts(pending, drafts);
    const inserted = await this.insertEvents(trx, source, toStore(resolution, origin), shots);
    if (resolution.settled.length > 0) {
      await trx("pending_changes").where({ source_id: source.id }).whereIn("subject", resolution.settled).delete();
    }
    for (const draft of resolution.wait) await insertPending(trx, source.id, toPending(draft, origin!));
    return inserted;
  }

  /**
   * Stores a fetch's events with their evidence and queues their delivery, in the caller's transaction, in three
   * statements however many there are (a page's changes come together; one round trip each costs more than the
   * rest of the work: docs/architecture.md#batch-handlers). An event already stored for its diff and subject (a
   * re-analysis) is skipped with its evidence and job. Returns how many are new.
   */
  private async insertEvents(
    trx: Knex.Transaction,
    source: SourceRow,
    proposed: ChangeToStore[],
    shots?: ShotSet,
  ): Promise<number> {
    if (proposed.length === 0) return 0;
    const scope = new WorkspaceScope(trx, source.workspace_id);
    // What members taught by dismissing events of this source (docs/product-rules.md#learned-rules), live fetches and
    // re-analysis alike.
    const rules: { key: string; effect: Effect }[] = await scope
      .from("learned_rules")
      .where({ source_id: source.id })
      .select("key", "effect");
    const changes = applyRules(proposed, new Map(rules.map((rule) => [rule.key, rule.effect])));
    if (changes.length === 0) return 0;
    const stored: { id: string; diff_id: string; subject: string }[] = await scope
      .insert(
        "events",
        changes.map(({ draft, origin }) => ({
          competitor_id: source.competitor_id,
          source_id: source.id,
          diff_id: origin.diffId,
          event_type: draft.event_type,
          severity: draft.severity,
          title: draft.title,
          summary: draft.summary,
          impact_summary: draft.impact_summary,
          confidence_score: draft.confidence_score,
          confidence_reasoning: draft.confidence_reasoning,
          is_inferred: draft.is_inferred,
          tags_json: JSON.stringify(draft.tags),
          subject: draft.subject,
          learn_keys: JSON.stringify(learnableOfDraft(draft)),
          observed_at: origin.observedAt,
          published_at: draft.published_at ?? null,
          detected_at: trx.fn.now(),
        })),
      )
      .onConflict(["diff_id", "subject"])
      .ignore()
      .returning(["id", "diff_id", "subject"]);
    if (stored.length === 0) return 0;
    // RETURNING gives no order: each new row is matched to its change by its unique (diff, subject).
    const idOf = new Map(stored.map((row) => [`${row.diff_id} ${row.subject}`, row.id]));
    const screenshots: ReturnType<typeof screenshotEvidence>[] = [];
    const evidence = changes.flatMap(({ draft, origin }) => {
      const eventId = idOf.get(`${origin.diffId} ${draft.subject}`);
      if (!eventId) return [];
      idOf.delete(`${origin.diffId} ${draft.subject}`);
      const shot = shots?.bySubject.get(draft.subject);
      if (shot) {
        shots!.used.add(shot.key);
        screenshots.push(screenshotEvidence(eventId, source.url, shot));
      }
      return draft.evidence.map((item) => ({
        event_id: eventId,
        evidence_type: item.evidence_type,
        title: item.title,
        excerpt: item.excerpt,
        source_url: source.url,
        metadata_json: JSON.stringify(item.metadata),
      }));
    });
    if (evidence.length > 0) await trx("evidence").insert(evidence);
    // Screenshots (rendered pages only) come after the event's other evidence, which is listed oldest first: the
    // others carry the transaction's time, these the clock's.
    if (screenshots.length > 0) {
      await trx("evidence").insert(screenshots.map((row) => ({ ...row, created_at: trx.raw("clock_timestamp()") })));
    }
    // Handed to delivery (alerts, webhooks, CRM) in the same transaction: committed together or not at all.
    await this.deps.jobs.sendMany(
      QUEUES.eventCreated,
      stored.map((row) => ({ data: { event_id: row.id } })),
      trx,
    );
    return stored.length;
  }

  private async recordUnchanged(
    scope: WorkspaceScope,
    source: SourceRow,
    fetchedAt: Date,
    etag: string | null,
    lastModified: string | null,
    shots?: ShotSet,
  ) {
    return scope.db.transaction(async (trx) => {
      const events = await this.applyDrafts(trx, source, [], null, shots);
      await scope
        .on(trx)
        .from("sources")
        .where({ id: source.id })
        .update({
          etag: etag ?? source.etag,
          last_modified: lastModified ?? source.last_modified,
          ...successState(fetchedAt),
        });
      await markRead(trx, this.deps.jobs, scope, source.id, fetchedAt);
      return events;
    });
  }

  /**
   * Records a failed fetch on the source, and, in the same transaction, the source's health when this failure breaks
   * it (docs/product-rules.md#source-health): told once, however often the job is retried.
   */
  private async recordFailure(
    scope: WorkspaceScope,
    sourceId: string,
    message: string,
    fetchedAt: Date,
    error: unknown,
  ): Promise<void> {
    await scope.db.transaction(async (trx) => {
      const [row] = await scope
        .on(trx)
        .from("sources")
        .where({ id: sourceId })
        .update({
          error_message: message,
          last_error_at: fetchedAt,
          last_fetched_at: fetchedAt,
          consecutive_failures: trx.raw("consecutive_failures + 1"),
          updated_at: fetchedAt,
          ...fetchFinished,
        })
        .returning(["consecutive_failures", "fetch_method"]);
      if (!row) return;
      const breakage = breakageOf({
        error,
        message,
        consecutiveFailures: row.consecutive_failures,
        fetchMethod: row.fetch_method,
      });
      if (breakage) await markBroken(trx, this.deps.jobs, scope, sourceId, breakage, fetchedAt);
    });
    this.deps.log.info({ source: sourceId, error: message }, "source fetch failed");
  }

  /**
   * A stored extraction, re-extracted when it was made by an older extractor (so diffs compare like with like); kept
   * as stored when it cannot be re-extracted within the parse budget.
   */
  private async currentExtraction(snapshot: SnapshotRow, fetchMethod: FetchMethod): Promise<Extraction> {
    if (snapshot.extractor_version === EXTRACTOR_VERSION) return snapshot.extraction;
    try {
      return await this.parser.run("extract", {
        body: snapshot.body,
        options: {
          url: snapshot.final_url,
          contentType: snapshot.content_type,
          fetchMethod: extractMethod(fetchMethod),
        },
      });
    } catch (error) {
      if (error instanceof PageError) return snapshot.extraction;
      throw error;
    }
  }

  /** The source the job names, in whichever workspace it is (the job carries its id only). */
  private async loadSource(sourceId: string): Promise<SourceRow | undefined> {
    return sourceQuery(acrossWorkspaces(this.deps.knex).from("sources as s")).where("s.id", sourceId).first();
  }
}

/** Sources as the pipeline works on them (`sources` aliased `s`, in the scope the caller chose), with their competitor. */
function sourceQuery(sources: Knex.QueryBuilder): Knex.QueryBuilder {
  return sources
    .join("competitors as c", "c.id", "s.competitor_id")
    .select(
      "s.id",
      "s.workspace_id",
      "s.competitor_id",
      "c.name as competitor_name",
      "s.url",
      "s.source_type",
      "s.fetch_method",
      "s.etag",
      "s.last_modified",
      "s.last_snapshot_id",
      "s.fetch_job_id",
    );
}

/**
 * The quiet failure (docs/product-rules.md#source-health): a pricing page whose last good read yielded plans and that
 * now loads without any fails its fetch instead of becoming the baseline, so it is told as broken rather than as
 * every plan removed.
 */
function assertStillPriced(source: SourceRow, previous: SnapshotRow | null, extraction: Extraction): void {
  if (source.source_type !== "pricing" || !previous) return;
  const before = (previous.extraction?.pricing ?? []).filter(isPlanRecord).length;
  if (before > 0 && extraction.pricing.filter(isPlanRecord).length === 0) throw new NoPlansError(before);
}

async function loadSnapshot(scope: WorkspaceScope, snapshotId: string): Promise<SnapshotRow | undefined> {
  return scope.from("snapshots").where({ id: snapshotId }).first();
}

function successState(fetchedAt: Date) {
  return {
    last_fetched_at: fetchedAt,
    last_success_at: fetchedAt,
    // `last_error_at` stays: it is when the last fetch failed, history rather than state.
    error_message: null,
    consecutive_failures: 0,
    updated_at: fetchedAt,
    ...fetchFinished,
  };
}

async function upsertDiff(
  scope: WorkspaceScope,
  source: SourceRow,
  beforeId: string,
  afterId: string,
  diff: unknown,
): Promise<string> {
  const [row] = await scope
    .insert("diffs", {
      source_id: source.id,
      before_snapshot_id: beforeId,
      after_snapshot_id: afterId,
      diff_json: JSON.stringify(diff),
    })
    .onConflict(["before_snapshot_id", "after_snapshot_id"])
    .merge(["diff_json"])
    .returning("id");
  return row.id;
}

function toPending(draft: EventDraft, origin: ChangeOrigin): Pending<ChangeOrigin> {
  return { subject: draft.subject, before_state: draft.before_state, after_state: draft.after_state, draft, origin };
}

async function insertPending(trx: Knex.Transaction, sourceId: string, pending: Pending<ChangeOrigin>): Promise<void> {
  await trx("pending_changes")
    .insert({
      source_id: sourceId,
      diff_id: pending.origin.diffId,
      subject: pending.subject,
      before_state: pending.before_state,
      after_state: pending.after_state,
      draft: JSON.stringify(pending.draft),
      observed_at: pending.origin.observedAt,
    })
    .onConflict(["source_id", "subject"])
    .merge();
}

/**
 * The evidence row of a screenshot: its key in the asset store, the text of the region found (empty for the top of
 * the page), and where and how large it is.
 */
function screenshotEvidence(eventId: string, sourceUrl: string, stored: StoredShot) {
  const { shot } = stored;
  return {
    event_id: eventId,
    evidence_type: "screenshot",
    title: shot.region ? "Screenshot of the changed region" : "Screenshot of the top of the page",
    excerpt: shot.region?.text ?? "",
    source_url: sourceUrl,
    asset_object_key: stored.key,
    metadata_json: JSON.stringify({
      content_type: "image/png",
      width: shot.width,
      height: shot.height,
      bytes: shot.png.length,
      page_url: stored.pageUrl,
      region_found: shot.region !== null,
    }),
  };
}

/**
 * The drafts of one diff with the keys learned rules name them by (src/learning/keys.ts), derived while both
 * extractions are at hand; they travel with a draft that waits for confirmation.
 */
function withKeys(drafts: EventDraft[], before: Extraction | null, after: Extraction): KeyedDraft[] {
  return drafts.map((draft) => ({ ...draft, learn: learnableOf(draft, before, after) }));
}

/** An event to store: its draft and the change it came from. */
interface ChangeToStore {
  draft: KeyedDraft;
  origin: ChangeOrigin;
}

/** What flap damping lets through, in order: the confirmed waiting changes, then the new diff's drafts it emits. */
function toStore(resolution: { confirmed: Pending<ChangeOrigin>[]; emit: EventDraft[] }, origin: ChangeOrigin | null) {
  return [
    ...resolution.confirmed.map((waiting) => ({ draft: waiting.draft, origin: waiting.origin })),
    ...resolution.emit.map((draft) => ({ draft, origin: origin! })),
  ];
}
