/**
 * Chat usage: the answered `POST /chat` calls of a workspace in the current calendar month, UTC, and those being
 * answered right now (each holds its slot, see `reserveChatAnswer`) (docs/product-rules.md#chat). One count, read by
 * `GET /me/plan` (`usage.chat_used`) and by the quota check.
 */
import type { WorkspaceScope } from "../db/tenancy.js";
import { storable } from "../detection/fetch/page-text.js";
import { tooManyRequests } from "../http/errors.js";

/** The first instant of the calendar month (UTC) that `now` falls in. */
export function monthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The first instant of the next calendar month (UTC): when the month's quota resets. */
export function nextMonthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** How many chat answers the scope's workspace has had this month (UTC). */
export async function chatUsedThisMonth(scope: WorkspaceScope, now = new Date()): Promise<number> {
  const [row] = await scope
    .from("chat_messages")
    .where("created_at", ">=", monthStartUtc(now))
    .count<{ count: string }[]>({ count: "*" });
  return Number(row?.count ?? 0);
}

/** A slot of the month's quota, taken before the answer is written (see `reserveChatAnswer`). */
export interface ChatSlot {
  /** The `chat_messages` row that holds the slot; the answer is written into it. */
  id: string;
  /** The month's answers with this one (`usage.chat_used` of the reply). */
  used: number;
}

/** Seconds from `now` until the next calendar month (UTC) begins: the 429's `Retry-After`. */
export function secondsToNextMonthUtc(now: Date): number {
  return Math.max(1, Math.ceil((nextMonthStartUtc(now).getTime() - now.getTime()) / 1000));
}

/**
 * Takes one slot of the month's `chat_quota` (docs/product-rules.md#chat), or answers 429 with `Retry-After` until the
 * next UTC month when none is left.
 *
 * The check and the count are one short transaction under a per-workspace advisory lock: two concurrent calls of one
 * workspace take turns for the few milliseconds of count and insert, so the month can never hold more rows than the
 * quota, however many calls race. The slot is a `chat_messages` row inserted before the answer is written (with an
 * empty reply), not after: counting only finished answers would let every call that starts while the others are still
 * waiting for the LLM pass the check. The answer is written into the row afterwards, outside the transaction (no lock
 * is held while the LLM works, docs/architecture.md#no-transaction-across-the-network); a call that fails before
 * reaching the provider gives its slot back (`releaseChatSlot`), one that reached it keeps it (the provider billed
 * it). A process that dies mid-answer leaves its slot counted, with an empty reply: the rare cost of never
 * over-spending the quota.
 */
export async function reserveChatAnswer(
  scope: WorkspaceScope,
  options: { quota: number; planLabel: string; userId: string; messages: unknown; now?: Date },
): Promise<ChatSlot> {
  const now = options.now ?? new Date();
  return scope.transaction(async (txScope) => {
    await txScope.raw("SELECT pg_advisory_xact_lock(hashtext('chat_quota'), hashtext(:workspace_id))");
    const used = await chatUsedThisMonth(txScope, now);
    if (used >= options.quota) {
      const resets = nextMonthStartUtc(now).toISOString().slice(0, 10);
      throw tooManyRequests(
        secondsToNextMonthUtc(now),
        `The ${options.planLabel} plan's chat quota of ${options.quota} answers this month is used up; it resets on ${resets} (UTC)`,
      );
    }
    const [row] = await txScope
      // Stored as received, but for lone surrogates, which jsonb refuses (valid JSON a client may send).
      .insert("chat_messages", {
        user_id: options.userId,
        messages: JSON.stringify(storable(options.messages)),
        reply: "",
      })
      .returning("id");
    return { id: row.id as string, used: used + 1 };
  });
}

/** Gives a slot back: the call failed before it reached the provider, so it does not count. */
export async function releaseChatSlot(scope: WorkspaceScope, slotId: string): Promise<void> {
  await scope.from("chat_messages").where({ id: slotId }).delete();
}
