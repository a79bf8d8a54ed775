/**
 * How a provider message becomes part of a support thread (docs/product-rules.md#support-inbox), shared by the inbound
 * webhook and sync: messages of one provider thread form one support thread, each provider message is stored once
 * (unique `provider_message_id`, so a webhook and a sync racing on one message store it once), a new inbound message
 * reopens a closed thread, and its triage job is queued in the same transaction
 * (docs/architecture.md#jobs-in-the-same-transaction).
 */
import type { Knex } from "knex";
import { invalid } from "../http/errors.js";
import type { Jobs } from "../jobs/boss.js";
import { QUEUES } from "../jobs/queues.js";
import type { ProviderMessage } from "./agentmail.js";

export interface InboundMail {
  providerMessageId: string;
  providerThreadId: string;
  providerInboxId: string;
  fromEmail: string;
  fromName: string | null;
  /** The support address the customer wrote to (replies are sent from it), when the message names one. */
  toAddress: string | null;
  subject: string;
  text: string;
  receivedAt: Date;
}

/** The `email` format the contract checks responses with (ajv-formats' "fast" mode), so a stored sender is valid. */
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Longest body kept: support mail is read by people, and quoted history beyond this is noise. */
const MAX_TEXT = 100_000;
const MAX_SUBJECT = 998; // RFC 5322's line limit

/** Postgres text refuses NUL (docs/product-rules.md#validation); mail may carry one. */
function clean(value: string, max: number): string {
  return value.replaceAll("\u0000", "").trim().slice(0, max);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** `"Name <address>"`, `"<address>"`, a bare address, or AgentMail's older `{name, email}` object. */
export function parseAddress(value: unknown): { email: string; name: string | null } | null {
  if (Array.isArray(value)) return parseAddress(value[0]);
  if (value && typeof value === "object") {
    const { email, name } = value as { email?: unknown; name?: unknown };
    const parsed = parseAddress(email);
    return parsed && { email: parsed.email, name: text(name) ? clean(String(name), 200) : null };
  }
  // An address line is short; a longer value is not one, and is not worth a backtracking match.
  if (typeof value !== "string" || value.length > 1000) return null;
  const angled = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(value);
  const address = (angled ? angled[2]! : value).trim().toLowerCase();
  if (address.length > 320 || !EMAIL.test(address)) return null;
  const name = angled ? angled[1]!.replace(/^"|"$/g, "").trim() : "";
  return { email: address, name: name === "" ? null : clean(name, 200) };
}

/**
 * Reads the fields a thread needs from a provider message (AgentMail's shape). `inboxIdHint` is the inbox the caller
 * knows the message is from (the event's `inbox_id`, the inbox sync lists), preferred to the message's own; `loc` is
 * where the message sits in the request, for the 422 a message without an id or a sender answers.
 */
export function parseProviderMessage(
  message: ProviderMessage,
  inboxIdHint: string | null,
  loc: (string | number)[],
  now = new Date(),
): InboundMail {
  const providerMessageId = text(message.message_id);
  // Both provider ids are unique-indexed: 500 characters stay within a btree entry whatever their encoding.
  if (!providerMessageId || providerMessageId.length > 500 || providerMessageId.includes("\u0000")) {
    throw invalid([...loc, "message_id"], "Field required: the provider's message id");
  }
  const from = parseAddress(message.from);
  if (!from) throw invalid([...loc, "from"], "Field required: the sender's email address");
  const inboxId = inboxIdHint ?? text(message.inbox_id);
  if (!inboxId) throw invalid([...loc, "inbox_id"], "Field required: the id of the inbox that received the message");
  const to = Array.isArray(message.to) ? message.to : [message.to];
  const toAddress = to.map(parseAddress).find((address) => address !== null)?.email ?? parseAddress(inboxId)?.email;
  const timestamp = new Date(String(message.timestamp ?? message.created_at ?? ""));
  // A missing or unreadable time is the time it reached us; so is one Postgres cannot store, and one in the future
  // (a message dated 9999 would pin its thread to the top of the list for ever).
  const receivedAt =
    Number.isNaN(timestamp.getTime()) || timestamp.getUTCFullYear() < 1970 || timestamp.getTime() > now.getTime()
      ? now
      : timestamp;
  return {
    providerMessageId,
    providerThreadId: clean(text(message.thread_id) ?? providerMessageId, 500),
    providerInboxId: clean(inboxId, 1000),
    fromEmail: from.email,
    fromName: from.name,
    toAddress: toAddress ?? null,
    subject: clean(text(message.subject) ?? "", MAX_SUBJECT) || "(no subject)",
    text: clean(text(message.extracted_text) ?? text(message.text) ?? text(message.preview) ?? "", MAX_TEXT),
    receivedAt,
  };
}

/**
 * Stores one inbound message in its thread, creating the thread or reopening it, and queues its triage. Returns the
 * thread's id, or null when the message was stored before (nothing changes). Runs in the caller's transaction.
 */
export async function ingestInbound(trx: Knex.Transaction, jobs: Jobs, mail: InboundMail): Promise<string | null> {
  // One statement creates the thread or finds it, so concurrent first messages of one thread meet on one row.
  await trx.raw(
    `INSERT INTO support_threads
       (provider_thread_id, provider_inbox_id, inbox_address, subject, sender_name, sender_email, created_at, last_message_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (provider_thread_id) DO NOTHING`,
    [
      mail.providerThreadId,
      mail.providerInboxId,
      mail.toAddress,
      mail.subject,
      mail.fromName ?? "",
      mail.fromEmail,
      mail.receivedAt,
      mail.receivedAt,
    ],
  );
  const thread: { id: string } = await trx("support_threads")
    .where({ provider_thread_id: mail.providerThreadId })
    .forUpdate()
    .first("id");
  const inserted: { id: string }[] = await trx("support_messages")
    .insert({
      thread_id: thread.id,
      direction: "inbound",
      provider_message_id: mail.providerMessageId,
      from_email: mail.fromEmail,
      from_name: mail.fromName,
      text: mail.text,
      created_at: mail.receivedAt,
    })
    .onConflict("provider_message_id")
    .ignore()
    .returning("id");
  const stored = inserted[0];
  if (!stored) return null;
  await trx("support_threads")
    .where({ id: thread.id })
    .update({
      message_count: trx.raw("message_count + 1"),
      created_at: trx.raw("LEAST(created_at, ?)", [mail.receivedAt]),
      last_message_at: trx.raw("GREATEST(last_message_at, ?)", [mail.receivedAt]),
      // A customer writing again reopens a closed thread; an escalated one stays with its human.
      status: trx.raw("CASE WHEN status = 'closed' THEN 'open' ELSE status END"),
      inbox_address: trx.raw("COALESCE(inbox_address, ?)", [mail.toAddress]),
      updated_at: trx.fn.now(),
    });
  await jobs.send(QUEUES.supportTriage, { message_id: stored.id }, {}, trx);
  return thread.id;
}
