/**
 * Source health (docs/product-rules.md#source-health): whether a source is being read, and each transition told once.
 *
 * A source is `broken` when it fails FAILURES_BEFORE_BROKEN fetches in a row, answers 404 or 410, is walled (a bot
 * challenge, or an app shell read with `http`), or, for a pricing page that used to yield plans, yields none while
 * its fetch succeeds (the quiet failure). It is `healthy` again on its next good read.
 *
 * The state lives on the source row. A transition is a conditional UPDATE (only a `healthy` source breaks, only a
 * `broken` one recovers), written in the transaction that records the fetch, together with its `source_notices` row
 * and that row's `source-notice-created` job: a retried fetch job finds the state already moved and tells nothing
 * again, and a notice exists exactly when its transition was committed. A muted source moves its state and tells
 * nothing.
 */
import type { Knex } from "knex";
import { WorkspaceScope } from "../db/tenancy.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import { FetchError } from "../lib/http-client.js";
import type { Schemas } from "../http/schemas.js";

export type HealthReason = Schemas["SourceHealthReason"];
export type NoticeType = Schemas["SourceNoticeType"];

/** "Several fetches in a row": the third failed fetch in a row breaks a source whatever the error. */
export const FAILURES_BEFORE_BROKEN = 3;

/** A failed read worth telling as a broken source, with what happened and what to do, in plain words. */
export interface Breakage {
  reason: HealthReason;
  detail: string;
  action: string;
}

/** What the pipeline knows about a failed fetch. */
export interface FailureFacts {
  error: unknown;
  /** The message recorded on the source (`error_message`). */
  message: string;
  /** Failed fetches in a row, this one included. */
  consecutiveFailures: number;
  fetchMethod: string;
}

/**
 * A pricing page that used to yield plans and now yields none while its fetch succeeds: the quiet failure. Thrown by
 * the pipeline as the fetch's failure, so the page is not stored as the new baseline (its diff would report every plan
 * as removed, and every plan as new when the page is read again).
 */
export class NoPlansError extends Error {
  constructor(readonly planCount: number) {
    super(
      `the pricing page showed no plans (it showed ${planCount} at the last good read), though it loaded: it may have ` +
        `been redesigned, moved its prices elsewhere, or be drawn by scripts`,
    );
    this.name = "NoPlansError";
  }
}

const ACTION = {
  url: "Open the page: if it moved, fix the source's URL, or re-run discovery (Find suggested pages) to track where it went.",
  browser:
    "Switch the source's fetch_method to \"browser\", which renders the page as a visitor's browser does; if the site still refuses it, track another page of the site.",
  noPlans:
    "Open the page: if its prices moved to another URL, fix the source's URL or re-run discovery; if they are drawn by scripts, switch the source's fetch_method to \"browser\".",
  retry:
    "Open the page: if it loads, nothing to do (the next fetches will tell); if it moved, fix the source's URL or re-run discovery.",
};

/**
 * Whether this failure breaks the source, and how to say so; null when it does not (yet): a transient error before
 * the third in a row.
 */
export function breakageOf(facts: FailureFacts): Breakage | null {
  const { error, message } = facts;
  if (error instanceof NoPlansError) {
    return {
      reason: "no_plans",
      detail: `The pricing page loads but ${message.replace(/^the pricing page /, "")}.`,
      action: ACTION.noPlans,
    };
  }
  if (error instanceof FetchError && error.kind === "http" && (error.status === 404 || error.status === 410)) {
    const what = error.status === 404 ? "404 (not found)" : "410 (gone)";
    return { reason: "not_found", detail: `The page answers ${what}: ${message}.`, action: ACTION.url };
  }
  if (isWalled(error, message)) {
    const detail = /bot challenge/.test(message)
      ? `The site answers with a bot challenge instead of the page: ${message}.`
      : `The page is drawn by scripts, so an http fetch sees an empty shell: ${message}.`;
    return {
      reason: "walled",
      detail,
      action:
        facts.fetchMethod === "browser"
          ? "The page refuses even a rendering browser: track another page of the site, or ask the vendor's support."
          : ACTION.browser,
    };
  }
  if (facts.consecutiveFailures >= FAILURES_BEFORE_BROKEN) {
    return {
      reason: "repeated_failures",
      detail: `The last ${facts.consecutiveFailures} fetches failed; the latest: ${message}.`,
      action: ACTION.retry,
    };
  }
  return null;
}

function isWalled(error: unknown, message: string): boolean {
  if (error instanceof FetchError) return false;
  return /looks like a bot challenge page|is a JavaScript app shell/.test(message);
}

/** The page as people name it in a sentence: "Acme's pricing page", "Acme's acme.com/about page". */
export function pageLabel(competitorName: string, sourceType: string, url: string): string {
  if (sourceType === "homepage") return `${competitorName}'s homepage`;
  if (["pricing", "careers", "changelog", "blog", "docs", "press"].includes(sourceType)) {
    return `${competitorName}'s ${sourceType} page`;
  }
  try {
    const parsed = new URL(url);
    return `${competitorName}'s ${parsed.host.replace(/^www\./, "")}${parsed.pathname.replace(/\/+$/, "")} page`;
  } catch {
    return `${competitorName}'s page`;
  }
}

/** A notice's one-line headline, as alerts and webhooks title it. */
export function noticeTitle(type: NoticeType, page: string): string {
  return type === "source_broken" ? `${page} is no longer read` : `${page} is read again`;
}

interface TransitionRow {
  competitor_id: string;
  source_type: string;
  url: string;
  competitor_name: string;
  muted: boolean;
  reason: HealthReason | null;
  detail: string | null;
}

/**
 * Marks the source broken in the caller's transaction, and tells it once (a `source_broken` notice and its job) when
 * it was healthy and is not muted. A source already broken keeps its state and gets the newer detail, told to no one.
 * Returns the notice's id when one was made.
 */
export async function markBroken(
  trx: Knex.Transaction,
  jobs: Jobs,
  scope: WorkspaceScope,
  sourceId: string,
  breakage: Breakage,
  at: Date,
): Promise<string | null> {
  const { rows } = await scope.on(trx).raw<TransitionRow>(
    `UPDATE sources s
        SET health_state = 'broken', health_reason = :reason, health_detail = :detail, health_action = :action,
            health_changed_at = :at
       FROM competitors c
      WHERE s.id = :source_id AND s.workspace_id = :workspace_id AND s.health_state = 'healthy'
        AND c.id = s.competitor_id
      RETURNING s.competitor_id, s.source_type, s.url, c.name AS competitor_name, s.health_notices_muted AS muted,
                s.health_reason AS reason, s.health_detail AS detail`,
    { ...breakage, at, source_id: sourceId },
  );
  const moved = rows[0];
  if (!moved) {
    // Already broken: the newer reason and advice are shown, and nothing is told again.
    await scope
      .on(trx)
      .from("sources")
      .where({ id: sourceId, health_state: "broken" })
      .update({ health_reason: breakage.reason, health_detail: breakage.detail, health_action: breakage.action });
    return null;
  }
  if (moved.muted) return null;
  const page = pageLabel(moved.competitor_name, moved.source_type, moved.url);
  return tell(trx, jobs, scope, sourceId, moved.competitor_id, {
    notice_type: "source_broken",
    reason: breakage.reason,
    detail: `${page}: ${breakage.detail}`,
    action: breakage.action,
    at,
  });
}

/**
 * Marks the source healthy in the caller's transaction after a good read, and tells it once (a `source_recovered`
 * notice naming why it had broken) when it was broken and is not muted. Cheap when the source is healthy (the common
 * case): one UPDATE that matches nothing.
 */
export async function markRead(
  trx: Knex.Transaction,
  jobs: Jobs,
  scope: WorkspaceScope,
  sourceId: string,
  at: Date,
): Promise<string | null> {
  const { rows } = await scope.on(trx).raw<TransitionRow>(
    `UPDATE sources s
        SET health_state = 'healthy', health_reason = NULL, health_detail = NULL, health_action = NULL,
            health_changed_at = :at
       FROM (SELECT id, health_reason, health_detail FROM sources
              WHERE id = :source_id AND workspace_id = :workspace_id AND health_state = 'broken' FOR UPDATE) old,
            competitors c
      WHERE s.id = old.id AND c.id = s.competitor_id
      RETURNING s.competitor_id, s.source_type, s.url, c.name AS competitor_name, s.health_notices_muted AS muted,
                old.health_reason AS reason, old.health_detail AS detail`,
    { at, source_id: sourceId },
  );
  const moved = rows[0];
  if (!moved || moved.muted) return null;
  const page = pageLabel(moved.competitor_name, moved.source_type, moved.url);
  return tell(trx, jobs, scope, sourceId, moved.competitor_id, {
    notice_type: "source_recovered",
    reason: moved.reason ?? "repeated_failures",
    detail: `${page} is read again${moved.detail ? ` (it had stopped: ${moved.detail.replace(/\.$/, "")})` : ""}.`,
    action: "",
    at,
  });
}

async function tell(
  trx: Knex.Transaction,
  jobs: Jobs,
  scope: WorkspaceScope,
  sourceId: string,
  competitorId: string,
  notice: { notice_type: NoticeType; reason: HealthReason; detail: string; action: string; at: Date },
): Promise<string> {
  const [row] = await scope
    .on(trx)
    .insert("source_notices", {
      source_id: sourceId,
      competitor_id: competitorId,
      notice_type: notice.notice_type,
      reason: notice.reason,
      detail: notice.detail,
      action: notice.action,
      created_at: notice.at,
    })
    .returning("id");
  // Delivery (immediate alerts, webhooks; never the CRM) is queued with the notice: committed together or not at all.
  await jobs.send(QUEUES.sourceNoticeCreated, { notice_id: row.id }, {}, trx);
  return row.id;
}
