/**
 * Learned rules (docs/product-rules.md#learned-rules): what dismissing an event with a reason teaches detection about
 * its source, listed and undone per source. Every query goes through the caller's WorkspaceScope: another workspace's
 * source or rule is a 404.
 */

import { isoTimestamp } from "../db/sql.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import type { EventDraft } from "../detection/types.js";
import { notFound } from "../http/errors.js";
import type { JsonText, Workspace } from "../http/handler.js";
import type { Schemas } from "../http/schemas.js";
import { learnableOf, type Learnable } from "./keys.js";
import type { Effect } from "./rules.js";

export type DismissalReason = Schemas["DismissalReason"];

/** A source keeps at most this many rules; the oldest is forgotten when one more is learned (the list is unpaginated). */
export const MAX_LEARNED_RULES_PER_SOURCE = 200;

const EFFECT_OF: Record<DismissalReason, Effect> = { noise: "suppress", wrong: "suppress", not_relevant: "demote" };

/** The event a dismissal teaches from, as stored. */
export interface DismissedEvent {
  id: string;
  source_id: string | null;
  title: string;
  event_type: string;
  subject: string;
  tags_json: string[];
  learn_keys: Learnable | null;
}

/**
 * Learns from a dismissal, in the caller's transaction: one rule per key of the event (replacing a rule of the same
 * key on the source), none for a protected change (a price change) or an event whose source is gone. Returns the ids
 * of the rules written.
 */
export async function learnFromDismissal(
  scope: WorkspaceScope,
  event: DismissedEvent,
  reason: DismissalReason,
): Promise<string[]> {
  if (!event.source_id) return [];
  const source = await scope.from("sources").where({ id: event.source_id }).first("id");
  if (!source) return [];
  const learnable = event.learn_keys ?? learnableFromStored(event);
  if (learnable.protected || learnable.keys.length === 0) return [];
  const rows: { id: string }[] = await scope
    .insert(
      "learned_rules",
      learnable.keys.map((key) => ({
        source_id: event.source_id,
        event_id: event.id,
        event_title: event.title,
        reason,
        effect: EFFECT_OF[reason],
        key: key.key,
        description: key.description,
      })),
    )
    .onConflict(["source_id", "key"])
    .merge(["event_id", "event_title", "reason", "effect", "description", "created_at"])
    .returning("id");
  // Bounded per source: the oldest rules beyond the bound are forgotten.
  await scope
    .from("learned_rules")
    .where({ source_id: event.source_id })
    .whereNotIn(
      "id",
      scope
        .from("learned_rules")
        .where({ source_id: event.source_id })
        .orderBy([
          { column: "created_at", order: "desc" },
          { column: "id", order: "desc" },
        ])
        .limit(MAX_LEARNED_RULES_PER_SOURCE)
        .select("id"),
    )
    .delete();
  return rows.map((row) => row.id);
}

/** Setting a dismissed event to another status forgets what its dismissal taught. */
export async function forgetDismissal(scope: WorkspaceScope, eventId: string): Promise<void> {
  await scope.from("learned_rules").where({ event_id: eventId }).delete();
}

/** The keys of an event stored before detection kept them: from its type, subject and tags (pricing is protected). */
function learnableFromStored(event: DismissedEvent): Learnable {
  const draft = {
    event_type: event.event_type,
    subject: event.subject,
    tags: event.tags_json,
    evidence: [],
    before_state: "null",
    after_state: "null",
    title: event.title,
  } as unknown as EventDraft;
  return learnableOf(draft, null, null);
}

export class LearnedRuleService {
  constructor(private readonly workspace: Workspace) {}

  async listJson(sourceId: string): Promise<JsonText<Schemas["LearnedRule"][]>> {
    await this.assertSource(sourceId);
    const { rows } = await this.workspace.scope.raw<{ json: string }>(
      `SELECT coalesce(json_agg(json_build_object(
                'id', r.id, 'source_id', r.source_id, 'event_id', r.event_id, 'event_title', r.event_title,
                'reason', r.reason, 'effect', r.effect, 'key', r.key, 'description', r.description,
                'created_at', ${isoTimestamp("r.created_at")}) ORDER BY r.created_at DESC, r.id DESC), '[]')::text AS json
         FROM learned_rules r
        WHERE r.workspace_id = :workspace_id AND r.source_id = :source_id`,
      { source_id: sourceId },
    );
    return rows[0]!.json;
  }

  async delete(sourceId: string, ruleId: string): Promise<void> {
    await this.assertSource(sourceId);
    const deleted = await this.workspace.scope
      .from("learned_rules")
      .where({ id: ruleId, source_id: sourceId })
      .delete();
    if (deleted === 0) throw notFound("Learned rule");
  }

  private async assertSource(sourceId: string): Promise<void> {
    const source = await this.workspace.scope.from("sources").where({ id: sourceId }).first("id");
    if (!source) throw notFound("Source");
  }
}
