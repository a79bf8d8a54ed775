/**
 * Triage of a support thread after each new inbound message (docs/product-rules.md#support-inbox): category, severity,
 * `needs_human`, a one-paragraph summary and a drafted reply. The LLM writes it when `LLM_BASE_URL` is set (its model
 * recorded as `triage_model`); otherwise, and whenever the LLM fails or answers something unusable, deterministic rules
 * do (`triage_model` null, docs/product-rules.md#admin-views), so every thread is triaged.
 *
 * Runs as the `support-triage` job, outside any transaction while the LLM answers
 * (docs/architecture.md#no-transaction-across-the-network), then records the outcome in one statement.
 */
import type { components } from "../../generated/api-types.js";
import type { DeliveryDeps } from "../delivery/types.js";
import { LlmError, llmFromConfig, type LlmClient } from "../lib/llm.js";
import { SupportMessage, SupportThread } from "./models.js";

type Schemas = components["schemas"];
type Category = NonNullable<Schemas["SupportThread"]["category"]>;
type Severity = Schemas["Severity"];

export interface Triage {
  category: Category;
  severity: Severity;
  needs_human: boolean;
  summary: string;
  draft: string;
  /** `LLM_MODEL`, or null for the rules. */
  model: string | null;
}

export interface TriageInput {
  subject: string;
  sender_name: string;
  sender_email: string;
  /** The thread's messages, oldest first; the last inbound one is the one being triaged. */
  messages: { direction: "inbound" | "outbound"; text: string }[];
}

const CATEGORIES: readonly Category[] = ["billing", "bug", "feature_request", "account", "other"];
const SEVERITIES: readonly Severity[] = ["low", "medium", "high", "critical"];

/** Keywords per category, matched as whole words (or phrases) in the subject and the latest message. */
const KEYWORDS: Readonly<Record<Exclude<Category, "other">, readonly string[]>> = {
  bug: [
    "bug",
    "error",
    "broken",
    "crash",
    "crashes",
    "exception",
    "not working",
    "doesn't work",
    "does not work",
    "fails",
    "failing",
    "failed",
    "500",
    "glitch",
    "stuck",
  ],
  billing: [
    "invoice",
    "refund",
    "charge",
    "charged",
    "billing",
    "payment",
    "credit card",
    "receipt",
    "subscription",
    "pricing",
    "price",
    "vat",
    "overcharged",
  ],
  account: [
    "password",
    "login",
    "log in",
    "sign in",
    "signin",
    "account",
    "2fa",
    "locked out",
    "reset",
    "email address",
    "delete my",
    "seat",
    "invite",
  ],
  feature_request: [
    "feature",
    "feature request",
    "would be great",
    "would love",
    "could you add",
    "please add",
    "wish",
    "roadmap",
    "suggestion",
    "integration with",
    "support for",
  ],
};

/** Ties between categories go to the one that most needs attention. */
const TIE_ORDER: readonly Exclude<Category, "other">[] = ["bug", "billing", "account", "feature_request"];

const CRITICAL_WORDS = [
  "outage",
  "is down",
  "all down",
  "data loss",
  "lost data",
  "security",
  "breach",
  "hacked",
  "production down",
];
const HIGH_WORDS = [
  "urgent",
  "asap",
  "immediately",
  "cannot",
  "can't",
  "blocked",
  "charged twice",
  "double charged",
  "locked out",
];
/** Words after which only a person should answer: money back, cancelling, legal, or an explicit ask for a human. */
const HUMAN_WORDS = [
  "refund",
  "cancel",
  "lawyer",
  "legal",
  "gdpr",
  "chargeback",
  "human",
  "speak to someone",
  "complaint",
];

function mentions(haystack: string, phrase: string): boolean {
  const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^a-z0-9])${escaped}($|[^a-z0-9])`, "i").test(haystack);
}

const LABELS: Readonly<Record<Category, string>> = {
  billing: "Billing",
  bug: "Bug report",
  feature_request: "Feature request",
  account: "Account",
  other: "General",
};

const REPLIES: Readonly<Record<Category, string>> = {
  billing:
    "Thanks for reaching out about billing. We are looking into your account's charges and will come back to you with the details shortly.",
  bug: "Thanks for reporting this, and sorry for the trouble. We are investigating the problem you describe; if you can, reply with the steps that lead to it and the time it happened, which helps us find it faster.",
  feature_request:
    "Thanks for the suggestion. We have shared it with the product team, who review requests like this one when planning what comes next.",
  account:
    "Thanks for getting in touch about your account. We are looking into it and will follow up shortly; for your security, please never send us your password.",
  other: "Thanks for your message. We have received it and will get back to you shortly.",
};

/** The latest inbound message, the one triage is about. */
function latestInbound(input: TriageInput): string {
  return [...input.messages].reverse().find((m) => m.direction === "inbound")?.text ?? "";
}

/** The deterministic triage used without an LLM: keyword categories, severity words, and a template reply. */
export function ruleBasedTriage(input: TriageInput): Triage {
  const latest = latestInbound(input);
  const haystack = `${input.subject}\n${latest}`;
  let category: Category = "other";
  let best = 0;
  for (const candidate of TIE_ORDER) {
    const score = KEYWORDS[candidate].filter((word) => mentions(haystack, word)).length;
    if (score > best) {
      best = score;
      category = candidate;
    }
  }
  let severity: Severity =
    category === "bug" || category === "billing" ? "medium" : category === "account" ? "medium" : "low";
  if (HIGH_WORDS.some((word) => mentions(haystack, word)))
    severity = category === "feature_request" ? "medium" : "high";
  if (CRITICAL_WORDS.some((word) => mentions(haystack, word))) severity = "critical";
  const needsHuman =
    severity === "high" || severity === "critical" || HUMAN_WORDS.some((word) => mentions(haystack, word));
  const who = input.sender_name.trim() || input.sender_email;
  const firstSentence =
    latest
      .replace(/\s+/g, " ")
      .trim()
      .split(/(?<=[.!?])\s/)[0] ?? "";
  const gist = firstSentence.length > 200 ? `${firstSentence.slice(0, 197)}...` : firstSentence;
  const summary =
    `${LABELS[category]} from ${who} (${severity} severity${needsHuman ? ", needs a human" : ""}): "${input.subject}".` +
    (gist ? ` ${gist}` : "");
  const greeting = input.sender_name.trim() ? `Hi ${input.sender_name.trim().split(/\s+/)[0]},` : "Hello,";
  const draft = `${greeting}\n\n${REPLIES[category]}\n\nBest regards,\nThe Rivalscope support team`;
  return { category, severity, needs_human: needsHuman, summary, draft, model: null };
}

const SYSTEM_PROMPT = [
  "You triage customer support email for Rivalscope, a competitive-intelligence SaaS product.",
  "Read the thread and answer with ONE JSON object and nothing else, with exactly these keys:",
  '"category": one of "billing", "bug", "feature_request", "account", "other";',
  '"severity": one of "low", "medium", "high", "critical";',
  '"needs_human": true when only a person should answer (refunds, cancellations, legal matters, angry or high-stakes customers, anything you are unsure about);',
  '"summary": one paragraph for the support team;',
  '"draft_reply": a polite plain-text reply to the customer, signed "The Rivalscope support team". Promise nothing about money or dates.',
].join("\n");

/** How much of the thread the LLM sees: the recent end, where the question is. */
const MAX_PROMPT_CHARS = 12_000;

function transcript(input: TriageInput): string {
  const lines = input.messages.map(
    (m) => `--- ${m.direction === "inbound" ? `Customer (${input.sender_email})` : "Support team"}:\n${m.text}`,
  );
  let body = lines.join("\n\n");
  if (body.length > MAX_PROMPT_CHARS) body = `[earlier messages omitted]\n${body.slice(-MAX_PROMPT_CHARS)}`;
  return `Subject: ${input.subject}\nFrom: ${input.sender_name || "(no name)"} <${input.sender_email}>\n\n${body}`;
}

/** The LLM's JSON answer, or null when it is not one this triage can use. */
export function parseLlmTriage(content: string, model: string): Triage | null {
  const start = content.indexOf("{");
  const end = content.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(content.slice(start, end + 1));
  } catch {
    return null;
  }
  const { category, severity, needs_human, summary, draft_reply } = json;
  if (!CATEGORIES.includes(category as Category) || !SEVERITIES.includes(severity as Severity)) return null;
  if (typeof needs_human !== "boolean") return null;
  if (
    typeof summary !== "string" ||
    summary.trim() === "" ||
    typeof draft_reply !== "string" ||
    draft_reply.trim() === ""
  ) {
    return null;
  }
  return {
    category: category as Category,
    severity: severity as Severity,
    needs_human,
    summary: summary.replaceAll("\u0000", "").trim().slice(0, 5000),
    draft: draft_reply.replaceAll("\u0000", "").trim().slice(0, 20_000),
    model,
  };
}

/** The LLM's triage, or the rules' when the LLM fails or answers something unusable. */
export async function triageThread(
  llm: LlmClient | null,
  input: TriageInput,
  log?: DeliveryDeps["log"],
): Promise<Triage> {
  if (llm === null) return ruleBasedTriage(input);
  try {
    const completion = await llm.complete({
      system: SYSTEM_PROMPT,
      messages: [{ role: "user", content: transcript(input) }],
      maxTokens: 800,
      temperature: 0,
    });
    const parsed = parseLlmTriage(completion.content, completion.model);
    if (parsed) return parsed;
    log?.warn("support triage: the LLM's answer is not a usable triage; using the rules");
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    log?.warn({ err: error.message }, "support triage: the LLM failed; using the rules");
  }
  return ruleBasedTriage(input);
}

/** The `support-triage` job: triages the thread of one stored inbound message. */
export class SupportTriage {
  constructor(private readonly deps: DeliveryDeps) {}

  async run(messageId: string): Promise<void> {
    const { knex } = this.deps;
    const message = await SupportMessage.query(knex).findById(messageId);
    if (!message) return; // the thread was deleted since
    const thread = await SupportThread.query(knex).findById(message.thread_id);
    if (!thread) return;
    // The thread's 50 latest messages, oldest first: the recent end is what the customer asks now.
    const latest = await SupportMessage.query(knex)
      .where({ thread_id: thread.id })
      .orderBy([
        { column: "created_at", order: "desc" },
        { column: "seq", order: "desc" },
      ])
      .limit(50)
      .select("direction", "text");
    const messages = latest.reverse();
    const triage = await triageThread(
      llmFromConfig(this.deps.config, this.deps.http),
      {
        subject: thread.subject,
        sender_name: thread.sender_name,
        sender_email: thread.sender_email,
        messages: messages.map((m) => ({ direction: m.direction, text: m.text })),
      },
      this.deps.log,
    );
    // Applied only while this message is the thread's latest inbound one: a slower triage of an older message must not
    // overwrite a newer one's. An escalated thread keeps needs_human (docs/product-rules.md#support-inbox).
    await knex("support_threads")
      .where({ id: thread.id })
      .whereNotExists((q) =>
        q
          .from("support_messages as m")
          .where("m.thread_id", thread.id)
          .where("m.direction", "inbound")
          .whereRaw("(m.created_at, m.seq) > (?::timestamptz, ?::bigint)", [message.created_at, message.seq]),
      )
      .update({
        category: triage.category,
        severity: triage.severity,
        needs_human: knex.raw("(status = 'escalated' OR ?::boolean)", [triage.needs_human]),
        triage_summary: triage.summary,
        latest_draft: triage.draft,
        triage_model: triage.model,
        updated_at: knex.fn.now(),
      });
  }
}
