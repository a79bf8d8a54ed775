/**
 * What a source's learned rules do to the changes detection is about to store (docs/product-rules.md#learned-rules):
 * a change is suppressed when every one of its keys has a `suppress` rule, demoted (one severity level lower, and out
 * of immediate alerts) when every key has a rule and some only `demote`, and kept otherwise. A protected change (a
 * price change) is always kept as it is. Pure: the pipeline loads the rules and stores what is kept.
 */
import type { Severity } from "../detection/types.js";
import { learnableOfDraft, type KeyedDraft } from "./keys.js";

export type Effect = "suppress" | "demote";

/** The tag of an event a `not_relevant` rule demoted; immediate alerts skip it (src/alerts/consumer.ts). */
export const DEMOTED_TAG = "learned-demoted";

const STEP_DOWN: Record<Severity, Severity> = { critical: "high", high: "medium", medium: "low", low: "low" };

export function verdictOf(draft: KeyedDraft, rules: ReadonlyMap<string, Effect>): "keep" | Effect {
  const learnable = learnableOfDraft(draft);
  if (learnable.protected || learnable.keys.length === 0 || rules.size === 0) return "keep";
  const effects = learnable.keys.map((key) => rules.get(key.key));
  if (effects.some((effect) => effect === undefined)) return "keep";
  return effects.every((effect) => effect === "suppress") ? "suppress" : "demote";
}

/** The drafts with the rules applied: suppressed ones left out, demoted ones a level lower and tagged. */
export function applyRules<T extends { draft: KeyedDraft }>(changes: T[], rules: ReadonlyMap<string, Effect>): T[] {
  if (rules.size === 0) return changes;
  return changes.flatMap((change) => {
    const verdict = verdictOf(change.draft, rules);
    if (verdict === "suppress") return [];
    if (verdict === "keep") return [change];
    const draft = change.draft;
    return [
      {
        ...change,
        draft: {
          ...draft,
          severity: STEP_DOWN[draft.severity],
          tags: [...draft.tags, DEMOTED_TAG],
          confidence_reasoning: `${draft.confidence_reasoning} A member marked this kind of change not relevant, so it is a severity level lower and not sent as an immediate alert.`,
        },
      },
    ];
  });
}
