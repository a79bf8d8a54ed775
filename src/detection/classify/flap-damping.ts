/**
 * Flap damping (docs/product-rules.md#flap-damping: a low-confidence change is confirmed by a second fetch before it
 * becomes an event).
 * Pure: given the changes waiting for confirmation and the drafts of the newest diff, decide what becomes an event
 * now, what waits, and what is dropped. Used by live fetches and by re-analysis alike.
 */
import type { EventDraft } from "../types.js";

/** Drafts at or above this confidence become events at once; below it they wait for the next fetch. */
export const CONFIRMATION_THRESHOLD = 0.7;

export interface Pending<Origin> {
  subject: string;
  before_state: string;
  after_state: string;
  draft: EventDraft;
  /** Where the change was first seen (its diff, its snapshot time): kept on the event when confirmed. */
  origin: Origin;
}

export interface Resolution<Origin> {
  /** Waiting changes the newest fetch did not contradict: they become events with their original origin. */
  confirmed: Pending<Origin>[];
  /** Drafts confident enough to become events now. */
  emit: EventDraft[];
  /** Low-confidence drafts that now wait for confirmation. */
  wait: EventDraft[];
  /** Subjects whose waiting change is settled (confirmed, reverted or superseded): remove them from the store. */
  settled: string[];
}

export function resolveDrafts<Origin>(pending: Pending<Origin>[], drafts: EventDraft[]): Resolution<Origin> {
  const bySubject = new Map(pending.map((p) => [p.subject, p]));
  const touched = new Set<string>();
  const resolution: Resolution<Origin> = { confirmed: [], emit: [], wait: [], settled: [] };

  for (const draft of drafts) {
    const waiting = bySubject.get(draft.subject);
    if (waiting) {
      touched.add(draft.subject);
      resolution.settled.push(draft.subject);
      // A→B then B→A: the page flapped (an A/B test, a rotating banner): neither change is an event.
      if (draft.after_state === waiting.before_state) continue;
    }
    if (draft.confidence_score >= CONFIRMATION_THRESHOLD) resolution.emit.push(draft);
    else resolution.wait.push(draft);
  }
  for (const waiting of pending) {
    if (touched.has(waiting.subject)) continue;
    resolution.confirmed.push(waiting);
    resolution.settled.push(waiting.subject);
  }
  return resolution;
}
