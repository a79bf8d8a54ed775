/**
 * Summaries written by the LLM, when one is configured (docs/product-rules.md#event-summaries): the model rewrites an
 * already detected event's `summary` and `impact_summary` from the event, its diff and its evidence. It never creates
 * an event and never changes its type, severity, title or numbers; the deterministic text stays whenever the model
 * fails, answers something unusable, or writes a number the event's own data does not contain.
 *
 * Run as the `event-summary` job, queued by the delivery fan-out for each new event (src/delivery/consumers.ts). The
 * rewrite applies once: `summary_model` records the model that wrote it, and a retried job finds it set.
 */
import type { Knex } from "knex";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import type { DeliveryDeps } from "../delivery/types.js";
import { llmFromConfig, LlmError, type LlmClient } from "../lib/llm.js";

const MAX_SUMMARY = 300;
const MAX_IMPACT = 400;
/** The diff and each evidence excerpt are cut to these lengths in the prompt: enough to ground, bounded in cost. */
const MAX_DIFF_CHARS = 4000;
const MAX_EXCERPT_CHARS = 800;

/** What the model is told: the rules above, and the answer's shape. */
export const SUMMARY_INSTRUCTIONS = `You rewrite the summary of an event detected on a competitor's public pages, for a B2B sales and product team.
Use only the facts in the event, its diff and its evidence. Do not add facts, numbers, prices, dates, names or plans that are not there, and do not change any number.
Keep the event's meaning, type and severity. Write plain sentences, no markdown.
Answer with JSON only: {"summary": "<what changed, at most ${MAX_SUMMARY} characters>", "impact_summary": "<what it means for the reader's deals, at most ${MAX_IMPACT} characters>"}`;

interface EventFacts {
  id: string;
  workspace_id: string;
  event_type: string;
  severity: string;
  title: string;
  summary: string;
  impact_summary: string;
  summary_model: string | null;
  competitor_name: string;
  diff_json: unknown;
}

/** Why a rewrite was not applied (logged), or null when it was. */
export type RewriteOutcome =
  | { applied: true; model: string }
  | { applied: false; reason: "no llm" | "missing" | "already rewritten" | "llm failed" | "unusable answer" };

export class EventSummaryRewrite {
  private readonly llm: LlmClient | null;

  constructor(private readonly deps: Pick<DeliveryDeps, "config" | "knex" | "http" | "log">) {
    this.llm = llmFromConfig(deps.config, deps.http);
  }

  /** Whether events get the job at all: only with an LLM configured. */
  static wanted(config: DeliveryDeps["config"]): boolean {
    return config.llm.baseUrl !== null && config.llm.model !== null;
  }

  async run(eventId: string): Promise<RewriteOutcome> {
    if (!this.llm) return { applied: false, reason: "no llm" };
    const event = await loadFacts(this.deps.knex, eventId);
    if (!event) return { applied: false, reason: "missing" };
    if (event.summary_model !== null) return { applied: false, reason: "already rewritten" };
    const scope = new WorkspaceScope(this.deps.knex, event.workspace_id);
    const evidence: { title: string; excerpt: string | null }[] = await this.deps
      .knex("evidence")
      .where({ event_id: event.id })
      .orderBy("created_at")
      .limit(5)
      .select("title", "excerpt");
    const facts = promptFacts(event, evidence);

    let content: string;
    try {
      content = (
        await this.llm.complete({
          system: SUMMARY_INSTRUCTIONS,
          messages: [{ role: "user", content: facts }],
          maxTokens: 400,
          temperature: 0.2,
        })
      ).content;
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      this.deps.log.warn({ event: event.id, err: error.message }, "event summary kept: the LLM failed");
      return { applied: false, reason: "llm failed" };
    }
    const rewrite = usableRewrite(content, facts);
    if (!rewrite) {
      this.deps.log.warn({ event: event.id }, "event summary kept: the LLM's answer was unusable");
      return { applied: false, reason: "unusable answer" };
    }
    // Only over the deterministic text: a rewrite already applied by a racing job stays.
    const updated = await scope
      .from("events")
      .where({ id: event.id, summary_model: null })
      .update({ ...rewrite, summary_model: this.llm.model });
    if (updated === 0) return { applied: false, reason: "already rewritten" };
    return { applied: true, model: this.llm.model };
  }
}

/** The event with its competitor and diff, in whichever workspace it is (the job carries its id only). */
async function loadFacts(knex: Knex, eventId: string): Promise<EventFacts | undefined> {
  return acrossWorkspaces(knex)
    .from("events as e")
    .join("competitors as c", "c.id", "e.competitor_id")
    .leftJoin("diffs as d", "d.id", "e.diff_id")
    .where("e.id", eventId)
    .first(
      "e.id",
      "e.workspace_id",
      "e.event_type",
      "e.severity",
      "e.title",
      "e.summary",
      "e.impact_summary",
      "e.summary_model",
      "c.name as competitor_name",
      "d.diff_json",
    );
}

/** The user message: the event's own data, and nothing from any other event or workspace. */
function promptFacts(event: EventFacts, evidence: { title: string; excerpt: string | null }[]): string {
  const diff = event.diff_json === null || event.diff_json === undefined ? "" : JSON.stringify(event.diff_json);
  return JSON.stringify(
    {
      competitor: event.competitor_name,
      event_type: event.event_type,
      severity: event.severity,
      title: event.title,
      summary: event.summary,
      impact_summary: event.impact_summary,
      evidence: evidence.map((item) => ({
        title: item.title,
        excerpt: item.excerpt === null ? null : item.excerpt.slice(0, MAX_EXCERPT_CHARS),
      })),
      diff: diff.slice(0, MAX_DIFF_CHARS),
    },
    null,
    1,
  );
}

/** Numbers as written ("59", "1,299.00", "20"), for the check that the model changed none. */
const NUMBER_RE = /\d+(?:[.,]\d+)*/g;
const digitsOf = (text: string): Set<string> =>
  new Set([...text.matchAll(NUMBER_RE)].map((m) => m[0].replace(/[.,](?=\d{3}\b)/g, "")));

/**
 * The model's answer as the two texts, or null: JSON with both strings (a code fence around it is tolerated), within
 * the lengths, and every number in them present in the facts it was given.
 */
export function usableRewrite(content: string, facts: string): { summary: string; impact_summary: string } | null {
  const json = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { summary, impact_summary: impact } = parsed as Record<string, unknown>;
  if (typeof summary !== "string" || typeof impact !== "string") return null;
  const texts = { summary: summary.trim(), impact_summary: impact.trim() };
  if (!texts.summary || !texts.impact_summary) return null;
  if (texts.summary.length > MAX_SUMMARY || texts.impact_summary.length > MAX_IMPACT) return null;
  const known = digitsOf(facts);
  for (const number of digitsOf(`${texts.summary} ${texts.impact_summary}`)) if (!known.has(number)) return null;
  return texts;
}
