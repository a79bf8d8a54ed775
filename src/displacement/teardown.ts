/**
 * The teardown writer (docs/product-rules.md#displacement): markdown built from the account, its signals, and its
 * rival's recent events and pricing. The sections are fixed (spec/displacement.tsp, `generateAccountTeardown`):
 *
 *   # Displacement teardown: <company>
 *   ## Account snapshot · ## Why they use <rival> · ## Signals · ## What <rival> has been doing · ## <rival> pricing
 *   ## Angles to win · ## Next steps
 *
 * The first five are facts, always written here from the data, so they are the same whoever writes the rest and
 * never hold a number the data does not. The last two are the analysis: the configured LLM writes them from those
 * facts (`model` = LLM_MODEL, `token_usage` its total tokens), or, without one, the rule-based writer below derives them
 * from the same facts (`model` and `token_usage` null).
 */
import { formatPlanPrice, truncate } from "../detection/classify/format.js";
import type { Schemas } from "../http/schemas.js";
import type { LlmClient } from "../lib/llm.js";
import { day, inline, type RivalEvent, type RivalPricing, type RivalProfile } from "./rival.js";

/** The account fields a teardown reads. */
export interface TeardownAccount {
  company_name: string;
  domain: string | null;
  industry: string | null;
  employee_band: string | null;
  champion_name: string | null;
  champion_title: string | null;
  champion_linkedin: string | null;
  economic_buyer: string | null;
  contract_end_estimate: Date | null;
  rival_evidence: string | null;
  rival_source: string | null;
  stage: Schemas["AccountStage"];
  tier: Schemas["TargetAccount"]["tier"];
  owner: string | null;
  notes: string | null;
  next_action: string | null;
  next_action_due: Date | null;
}

export interface TeardownSignal {
  kind: string;
  headline: string;
  detail: string | null;
  occurred_at: Date;
  source_url: string | null;
}

export interface TeardownFacts {
  account: TeardownAccount;
  /** The account's most recent signals, newest first. */
  signals: TeardownSignal[];
  /** `null` when the account names no rival. */
  rival: RivalProfile | null;
  /** The rival's recent events, newest first. */
  events: RivalEvent[];
  pricing: RivalPricing | null;
  /** The plan's `history_days`, which bounds `events`. */
  historyDays: number;
  now: Date;
}

export interface WrittenTeardown {
  content_md: string;
  model: string | null;
  token_usage: number | null;
}

/** Signals and events a teardown shows (the facts the service reads are bounded by these too). */
export const TEARDOWN_SIGNALS = 20;
export const TEARDOWN_EVENTS = 10;

const LLM_MAX_TOKENS = 900;

export class TeardownWriter {
  constructor(private readonly llm: LlmClient | null) {}

  async write(facts: TeardownFacts): Promise<WrittenTeardown> {
    const factSections = factsMarkdown(facts);
    if (this.llm === null) {
      return {
        content_md: `${factSections}\n\n${ruleBasedAnalysis(facts)}\n`,
        model: null,
        token_usage: null,
      };
    }
    const answer = await this.llm.complete({
      system: ANALYST_INSTRUCTIONS,
      messages: [{ role: "user", content: factSections }],
      maxTokens: LLM_MAX_TOKENS,
    });
    return {
      content_md: `${factSections}\n\n${analysisSections(answer.content, facts)}\n`,
      model: answer.model,
      token_usage: answer.usage?.total_tokens ?? null,
    };
  }
}

const ANALYST_INSTRUCTIONS = `You write the analysis part of a displacement teardown: a brief for a B2B sales team on how to win an account away from the competitor (the rival) it uses today.
You receive the facts part of the teardown as markdown. Use only those facts; never invent prices, dates, names or numbers.
Answer with exactly two markdown sections and nothing else:
## Angles to win
(3 to 6 bullet points: the strongest reasons for this account to switch now, each tied to a fact above)
## Next steps
(2 to 5 numbered, concrete actions for the account owner, in order)`;

function rivalName(facts: TeardownFacts): string {
  return facts.rival ? inline(facts.rival.name) : "the rival";
}

const orUnknown = (value: string | null) => (value === null || value.trim() === "" ? "not recorded" : inline(value));

/** The five fact sections, with the title. */
export function factsMarkdown(facts: TeardownFacts): string {
  const { account } = facts;
  const rival = rivalName(facts);
  const lines: string[] = [];
  lines.push(`# Displacement teardown: ${inline(account.company_name)}`, "");
  lines.push(`_Generated ${day(facts.now)}. Rival: ${facts.rival ? `${rival} (${facts.rival.domain})` : "not set"}._`);

  lines.push("", "## Account snapshot", "");
  const champion =
    account.champion_name === null
      ? "not identified"
      : [
          inline(account.champion_name),
          account.champion_title ? `, ${inline(account.champion_title)}` : "",
          account.champion_linkedin ? ` (${inline(account.champion_linkedin)})` : "",
        ].join("");
  lines.push(
    `- Company: ${inline(account.company_name)}${account.domain ? ` (${inline(account.domain)})` : ""}`,
    `- Industry: ${orUnknown(account.industry)}; size: ${orUnknown(account.employee_band)}`,
    `- Stage: ${account.stage}; tier: ${account.tier ?? "not tiered"}; owner: ${orUnknown(account.owner)}`,
    `- Champion: ${champion}`,
    `- Economic buyer: ${orUnknown(account.economic_buyer)}`,
    `- Contract with ${rival} ends: ${account.contract_end_estimate ? `${day(account.contract_end_estimate)} (estimate, ${contractWhen(account.contract_end_estimate, facts.now)})` : "not known"}`,
  );
  if (account.notes) lines.push(`- Notes: ${truncate(inline(account.notes), 500)}`);

  lines.push("", `## Why they use ${rival}`, "");
  if (account.rival_evidence) lines.push(`- Evidence: ${truncate(inline(account.rival_evidence), 1000)}`);
  if (account.rival_source) lines.push(`- Source: ${inline(account.rival_source)}`);
  if (!account.rival_evidence && !account.rival_source) lines.push("- No evidence recorded yet.");
  if (facts.rival?.description)
    lines.push(`- ${rival} describes itself as: ${truncate(inline(facts.rival.description), 300)}`);

  lines.push("", "## Signals", "");
  if (facts.signals.length === 0) lines.push("- No signals recorded yet.");
  for (const signal of facts.signals) {
    const detail = signal.detail ? ` — ${truncate(inline(signal.detail), 300)}` : "";
    const source = signal.source_url ? ` ([source](${signal.source_url}))` : "";
    lines.push(`- ${day(signal.occurred_at)} · ${inline(signal.kind)}: ${inline(signal.headline)}${detail}${source}`);
  }

  lines.push("", `## What ${rival} has been doing`, "");
  if (facts.rival === null) lines.push("- No rival is set for this account, so no competitor events are shown.");
  else if (facts.events.length === 0) lines.push(`- No changes detected in the last ${facts.historyDays} days.`);
  for (const event of facts.events) {
    const source = event.source_url ? ` ([source](${event.source_url}))` : "";
    lines.push(
      `- ${day(event.detected_at)} · ${event.severity} ${event.event_type.replace("_", " ")}: ${inline(event.title)} — ${truncate(inline(event.summary), 300)}${source}`,
    );
  }

  lines.push("", `## ${facts.rival ? rival : "The rival"} pricing`, "");
  if (facts.pricing === null) {
    lines.push(
      facts.rival === null
        ? "- No rival is set for this account."
        : `- No pricing plans read yet: track ${rival}'s pricing page to see them here.`,
    );
  } else {
    lines.push("| Plan | Price |", "| --- | --- |");
    for (const plan of facts.pricing.plans) lines.push(`| ${cell(plan.name)} | ${formatPlanPrice(plan)} |`);
    lines.push("", `Read from ${facts.pricing.source_url} on ${day(facts.pricing.observed_at)}.`);
  }
  return lines.join("\n");
}

/** `in 45 days`, `today`, `passed 12 days ago`. */
function contractWhen(end: Date, now: Date): string {
  const days = Math.round((end.getTime() - now.getTime()) / 86_400_000);
  if (days === 0) return "today";
  return days > 0 ? `in ${days} days` : `passed ${-days} days ago`;
}

/** A markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return inline(text).replace(/\|/g, "\\|");
}

/**
 * The LLM's two sections, kept under the fixed headings whatever it answered: its text before a `Next steps` heading is
 * the angles, after it the next steps; any heading of its own is demoted below the fixed ones, so the document's
 * outline stays the documented one. An answer without a `Next steps` heading keeps the rule-based next steps.
 */
export function analysisSections(answer: string, facts: TeardownFacts): string {
  const text = answer.replace(/\r\n?/g, "\n").trim();
  const split = /^#{1,6}\s*next steps\s*$/im.exec(text);
  const angles = (split ? text.slice(0, split.index) : text).replace(/^#{1,6}\s*angles to win\s*$/im, "").trim();
  const steps = split ? text.slice(split.index + split[0].length).trim() : "";
  const demote = (body: string) => body.replace(/^#{1,2}(?=\s)/gm, "###");
  return [
    "## Angles to win",
    "",
    demote(angles) || ruleBasedAngles(facts).join("\n"),
    "",
    "## Next steps",
    "",
    demote(steps) || ruleBasedSteps(facts).join("\n"),
  ].join("\n");
}

/** The rule-based writer's two sections. */
export function ruleBasedAnalysis(facts: TeardownFacts): string {
  return ["## Angles to win", "", ...ruleBasedAngles(facts), "", "## Next steps", "", ...ruleBasedSteps(facts)].join(
    "\n",
  );
}

const RENEWAL_WINDOW_DAYS = 180;

function ruleBasedAngles(facts: TeardownFacts): string[] {
  const { account } = facts;
  const rival = rivalName(facts);
  const angles: string[] = [];
  if (account.contract_end_estimate) {
    const days = Math.round((account.contract_end_estimate.getTime() - facts.now.getTime()) / 86_400_000);
    if (days >= 0 && days <= RENEWAL_WINDOW_DAYS) {
      angles.push(
        `- **Renewal window.** The contract with ${rival} is estimated to end on ${day(account.contract_end_estimate)}, in ${days} days: start the evaluation before they renew.`,
      );
    } else if (days < 0) {
      angles.push(
        `- **Renewal passed.** The estimated contract end (${day(account.contract_end_estimate)}) has passed: confirm whether they renewed and for how long.`,
      );
    }
  }
  const pricingMoves = facts.events.filter((e) => e.event_type === "pricing_change");
  for (const move of pricingMoves.slice(0, 2)) {
    angles.push(
      `- **Pricing.** ${inline(move.title)} (${day(move.detected_at)}, ${move.severity}): make the cost comparison part of the conversation.`,
    );
  }
  const launches = facts.events.filter((e) => e.event_type === "product_change");
  if (launches[0]) {
    angles.push(
      `- **Product.** ${rival} recently shipped: ${inline(launches[0].title)} (${day(launches[0].detected_at)}): prepare a feature comparison that answers it.`,
    );
  }
  const hiring = facts.events.find((e) => e.event_type === "hiring_change");
  if (hiring) angles.push(`- **Direction.** ${inline(hiring.title)}: a hint of where ${rival} is investing.`);
  for (const signal of facts.signals.slice(0, 3)) {
    angles.push(`- **Signal (${inline(signal.kind)}).** ${inline(signal.headline)} (${day(signal.occurred_at)}).`);
  }
  if (facts.pricing && facts.pricing.plans.length > 0) {
    angles.push(
      `- **Price points.** ${rival} lists ${facts.pricing.plans.map((p) => `${inline(p.name)} at ${formatPlanPrice(p)}`).join(", ")}.`,
    );
  }
  if (angles.length === 0) {
    angles.push(
      `- No specific angle in the data yet: record signals on the account and track ${rival}'s pricing and changelog pages.`,
    );
  }
  return angles;
}

const STAGE_STEPS: Record<Schemas["AccountStage"], string> = {
  identified: "Research the account: confirm how deeply it uses the rival and who owns that relationship.",
  researching: "Find a champion and a first meeting: lead with the strongest angle above.",
  engaged: "Book a discovery call and qualify the pain the rival leaves unsolved.",
  evaluating: "Run a side-by-side evaluation on the pricing and product facts above.",
  negotiating: "Prepare a switching offer (migration help, timing against the renewal) and align the economic buyer.",
  won: "Plan the migration, then ask the champion for a switcher story.",
  lost: "Record why, and set a reminder ahead of the next renewal.",
};

function ruleBasedSteps(facts: TeardownFacts): string[] {
  const { account } = facts;
  const steps: string[] = [];
  if (account.next_action) {
    const due = account.next_action_due ? ` (due ${day(account.next_action_due)})` : "";
    steps.push(`${inline(account.next_action)}${due}`);
  }
  steps.push(STAGE_STEPS[account.stage]);
  if (account.champion_name === null && account.stage !== "won" && account.stage !== "lost") {
    steps.push("Identify a champion inside the account.");
  }
  if (account.economic_buyer === null && account.stage !== "won" && account.stage !== "lost") {
    steps.push("Identify the economic buyer.");
  }
  return steps.map((step, i) => `${i + 1}. ${step}`);
}
