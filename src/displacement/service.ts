/**
 * Displacement tracking (docs/product-rules.md#displacement, spec/displacement.tsp): target accounts with their
 * signals and teardowns, and switcher stories. Available on every plan. Every query goes through the caller's
 * WorkspaceScope, so another workspace's account, story or competitor is a 404.
 *
 * `signal_count`, `teardown_count` and `latest_teardown_at` are computed from the rows whenever an account is read,
 * never stored beside them, so they cannot drift from what the detail lists.
 */
import type { WorkspaceScope } from "../db/tenancy.js";
import { notFound } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import type { Schemas, Wire } from "../http/schemas.js";
import type { LlmClient } from "../lib/llm.js";
import { limitsOf } from "../workspaces/plans.js";
import { RivalFacts } from "./rival.js";
import {
  TEARDOWN_EVENTS,
  TEARDOWN_SIGNALS,
  TeardownWriter,
  type TeardownAccount,
  type TeardownSignal,
} from "./teardown.js";

type AccountStage = Schemas["AccountStage"];
type AccountCreate = Schemas["TargetAccountCreate"];
type AccountUpdate = Schemas["TargetAccountUpdate"];
type StoryCreate = Schemas["SwitcherStoryCreate"];
type StoryUpdate = Schemas["SwitcherStoryUpdate"];

/** The canonical stage order (docs/product-rules.md#enumerations); the cadence lists every one, in this order. */
export const ACCOUNT_STAGES = [
  "identified",
  "researching",
  "engaged",
  "evaluating",
  "negotiating",
  "won",
  "lost",
] as const satisfies readonly AccountStage[];
// Fails to compile when the contract gains a stage this list lacks.
const everyStageListed: Exclude<AccountStage, (typeof ACCOUNT_STAGES)[number]> extends never ? true : never = true;
void everyStageListed;

/** docs/product-rules.md#bounded-lists: accounts, signals and stories 500; teardowns 100, 20 inside the detail. */
export const MAX_ACCOUNTS_LISTED = 500;
export const MAX_SIGNALS_LISTED = 500;
export const MAX_TEARDOWNS_LISTED = 100;
export const MAX_TEARDOWNS_IN_DETAIL = 20;
export const MAX_STORIES_LISTED = 500;

/** The account fields a client sets: the create body's, `company_name` and `competitor_id` aside. */
const ACCOUNT_FIELDS = [
  "domain",
  "industry",
  "employee_band",
  "champion_name",
  "champion_title",
  "champion_linkedin",
  "economic_buyer",
  "contract_end_estimate",
  "rival_evidence",
  "rival_source",
  "tier",
  "owner",
  "notes",
  "next_action",
  "next_action_due",
] as const satisfies readonly (keyof AccountCreate)[];

/** The nullable fields of `TargetAccountUpdate`: `null` clears them (docs/product-rules.md#patch-semantics). */
const ACCOUNT_PATCH_FIELDS = [
  "champion_linkedin",
  "champion_name",
  "champion_title",
  "contract_end_estimate",
  "economic_buyer",
  "rival_evidence",
  "next_action",
  "next_action_due",
  "notes",
  "owner",
  "tier",
] as const satisfies readonly (keyof AccountUpdate)[];

type AccountRow = TeardownAccount & {
  id: string;
  competitor_id: string | null;
  created_at: Date;
  updated_at: Date;
  signal_count: number;
  teardown_count: number;
  latest_teardown_at: Date | null;
};

const SIGNAL_COLUMNS = ["id", "kind", "headline", "detail", "occurred_at", "source_url"] as const;
const TEARDOWN_COLUMNS = ["id", "account_id", "content_md", "generated_at", "model", "token_usage", "version"] as const;
const STORY_COLUMNS = [
  "id",
  "account_id",
  "company_name",
  "champion_name",
  "champion_title",
  "closed_at",
  "public_url",
  "quantified_outcome",
  "status",
  "why_left_rival",
  "created_at",
] as const;

/** A stored signal (the contract's Signal, timestamps as Dates). */
type SignalRow = TeardownSignal & { id: string };

type AccountResponse = Wire<Schemas["TargetAccount"]>;
type SignalResponse = Wire<Schemas["Signal"]>;
type TeardownResponse = Wire<Schemas["Teardown"]>;
type StoryResponse = Wire<Schemas["SwitcherStory"]>;

function accountResponse(row: AccountRow): AccountResponse {
  return {
    id: row.id,
    competitor_id: row.competitor_id,
    company_name: row.company_name,
    domain: row.domain,
    industry: row.industry,
    employee_band: row.employee_band,
    champion_name: row.champion_name,
    champion_title: row.champion_title,
    champion_linkedin: row.champion_linkedin,
    economic_buyer: row.economic_buyer,
    contract_end_estimate: row.contract_end_estimate,
    rival_evidence: row.rival_evidence,
    rival_source: row.rival_source,
    stage: row.stage,
    tier: row.tier,
    owner: row.owner,
    notes: row.notes,
    next_action: row.next_action,
    next_action_due: row.next_action_due,
    signal_count: row.signal_count,
    teardown_count: row.teardown_count,
    latest_teardown_at: row.latest_teardown_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class TargetAccountService {
  constructor(private readonly workspace: Workspace) {}

  private get scope(): WorkspaceScope {
    return this.workspace.scope;
  }

  /** Most recently updated first, at most MAX_ACCOUNTS_LISTED. */
  async list(): Promise<AccountResponse[]> {
    const rows = await this.accountRows("ORDER BY a.updated_at DESC, a.id DESC LIMIT :limit", {
      limit: MAX_ACCOUNTS_LISTED,
    });
    return rows.map(accountResponse);
  }

  /**
   * `competitor_id` must name one of the caller's competitors: another workspace's answers 404 like a missing one
   * (docs/product-rules.md#access-and-roles), as for alert rules.
   */
  async create(input: AccountCreate): Promise<AccountResponse> {
    const competitorId = input.competitor_id ?? null;
    if (competitorId !== null) {
      const competitor = await this.scope.from("competitors").where({ id: competitorId }).first("id");
      if (!competitor) throw notFound("Competitor");
    }
    const row: Record<string, unknown> = {
      company_name: input.company_name,
      competitor_id: competitorId,
      stage: input.stage ?? "identified",
    };
    for (const field of ACCOUNT_FIELDS) row[field] = input[field] ?? null;
    // A competitor deleted between the check and the insert fails the foreign key: fromDatabaseError makes it a 404.
    const [created] = await this.scope.insert("target_accounts", row).returning("id");
    return this.get(created.id as string);
  }

  /** One account with its counts, or 404. */
  async get(id: string): Promise<AccountResponse> {
    return accountResponse(await this.row(id));
  }

  /** The account with its newest signals and teardowns (bounded: MAX_SIGNALS_LISTED, MAX_TEARDOWNS_IN_DETAIL). */
  async detail(id: string): Promise<Wire<Schemas["TargetAccountDetail"]>> {
    const account = await this.get(id);
    const [signals, teardowns] = await Promise.all([
      this.signals(id, MAX_SIGNALS_LISTED),
      this.teardownRows(id, MAX_TEARDOWNS_IN_DETAIL),
    ]);
    return { ...account, signals, teardowns };
  }

  /**
   * PATCH semantics (docs/product-rules.md#patch-semantics): absent = unchanged, `null` clears, except `stage`, which
   * cannot be empty (`null` leaves it). `updated_at` moves when the body sets any field.
   */
  async update(id: string, input: AccountUpdate): Promise<AccountResponse> {
    const changes: Record<string, unknown> = {};
    for (const field of ACCOUNT_PATCH_FIELDS) {
      if (input[field] !== undefined) changes[field] = input[field];
    }
    if (input.stage !== undefined && input.stage !== null) changes.stage = input.stage;
    if (Object.keys(changes).length > 0) {
      const updated = await this.scope
        .from("target_accounts")
        .where({ id })
        .update({ ...changes, updated_at: this.scope.db.fn.now() });
      if (updated === 0) throw notFound("Target account");
    }
    return this.get(id);
  }

  /** Deletes the account; its signals and teardowns go with it, its stories stay unlinked (the migration's keys). */
  async delete(id: string): Promise<void> {
    const deleted = await this.scope.from("target_accounts").where({ id }).delete();
    if (deleted === 0) throw notFound("Target account");
  }

  /** Every stage, in canonical order, with its count (zeros included). */
  async cadence(): Promise<Schemas["AccountCadenceItem"][]> {
    const rows: { stage: AccountStage; count: number }[] = await this.scope
      .from("target_accounts")
      .groupBy("stage")
      .select("stage", this.scope.db.raw("count(*)::int AS count"));
    const counts = new Map(rows.map((row) => [row.stage, row.count]));
    return ACCOUNT_STAGES.map((stage) => ({ stage, count: counts.get(stage) ?? 0 }));
  }

  async createSignal(accountId: string, input: Schemas["SignalCreate"]): Promise<SignalResponse> {
    await this.assertExists(accountId);
    // The composite foreign key ties the signal to its account's workspace; an account deleted meanwhile fails it
    // (404 through fromDatabaseError).
    const [signal] = await this.scope
      .insert("account_signals", {
        account_id: accountId,
        kind: input.kind,
        headline: input.headline,
        detail: input.detail ?? null,
        occurred_at: input.occurred_at ?? this.scope.db.fn.now(),
        source_url: input.source_url ?? null,
      })
      .returning([...SIGNAL_COLUMNS]);
    return signal as SignalRow;
  }

  /** Most recently generated first, at most MAX_TEARDOWNS_LISTED; 404 for an account not in the workspace. */
  async listTeardowns(accountId: string): Promise<TeardownResponse[]> {
    await this.assertExists(accountId);
    return this.teardownRows(accountId, MAX_TEARDOWNS_LISTED);
  }

  /**
   * Writes a new teardown (docs/product-rules.md#displacement). The facts are read and the writer (maybe an LLM over
   * the network) runs outside any transaction (docs/architecture.md#no-transaction-across-the-network); the row is
   * then inserted in one short transaction that locks the account, so concurrent generations take versions 1, 2, …
   * in turn, and an account deleted meanwhile answers 404 with nothing stored.
   */
  async generateTeardown(accountId: string, llm: LlmClient | null): Promise<TeardownResponse> {
    const account = await this.row(accountId);
    const historyDays = limitsOf(this.workspace.caller.plan).history_days;
    const rivals = new RivalFacts(this.scope, historyDays);
    const competitorId = account.competitor_id;
    const [signals, rival, events, pricing] = await Promise.all([
      this.signals(accountId, TEARDOWN_SIGNALS),
      competitorId ? rivals.profile(competitorId) : null,
      competitorId ? rivals.recentEvents(competitorId, TEARDOWN_EVENTS) : [],
      competitorId ? rivals.currentPricing(competitorId) : null,
    ]);
    const written = await new TeardownWriter(llm).write({
      account,
      signals,
      rival,
      events,
      pricing,
      historyDays,
      now: new Date(),
    });
    return this.scope.transaction(async (scope) => {
      const locked = await scope.from("target_accounts").where({ id: accountId }).forNoKeyUpdate().first("id");
      if (!locked) throw notFound("Target account");
      const [last] = await scope
        .from("account_teardowns")
        .where({ account_id: accountId })
        .max<{ version: number | null }[]>({ version: "version" });
      const [teardown] = await scope
        .insert("account_teardowns", {
          account_id: accountId,
          version: (last?.version ?? 0) + 1,
          content_md: written.content_md,
          model: written.model,
          token_usage: written.token_usage,
        })
        .returning([...TEARDOWN_COLUMNS]);
      return teardown as TeardownResponse;
    });
  }

  private async row(id: string): Promise<AccountRow> {
    const [row] = await this.accountRows("AND a.id = :id", { id });
    if (!row) throw notFound("Target account");
    return row;
  }

  /** The workspace's accounts with their computed counts; `rest` continues the WHERE clause (or orders, limits). */
  private async accountRows(rest: string, bindings: Record<string, string | number>): Promise<AccountRow[]> {
    const { rows } = await this.scope.raw<AccountRow>(
      `SELECT a.id, a.competitor_id, a.company_name, a.domain, a.industry, a.employee_band,
              a.champion_name, a.champion_title, a.champion_linkedin, a.economic_buyer, a.contract_end_estimate,
              a.rival_evidence, a.rival_source, a.stage, a.tier, a.owner, a.notes, a.next_action, a.next_action_due,
              a.created_at, a.updated_at,
              coalesce(sig.n, 0) AS signal_count, coalesce(td.n, 0) AS teardown_count,
              td.latest AS latest_teardown_at
         FROM target_accounts a
         LEFT JOIN LATERAL (SELECT count(*)::int AS n FROM account_signals s
                             WHERE s.account_id = a.id AND s.workspace_id = :workspace_id) sig ON true
         LEFT JOIN LATERAL (SELECT count(*)::int AS n, max(t.generated_at) AS latest FROM account_teardowns t
                             WHERE t.account_id = a.id AND t.workspace_id = :workspace_id) td ON true
        WHERE a.workspace_id = :workspace_id ${rest}`,
      bindings,
    );
    return rows;
  }

  private async assertExists(id: string): Promise<void> {
    const found = await this.scope.from("target_accounts").where({ id }).first("id");
    if (!found) throw notFound("Target account");
  }

  private async signals(accountId: string, limit: number): Promise<SignalRow[]> {
    return this.scope
      .from("account_signals")
      .where({ account_id: accountId })
      .orderBy([
        { column: "occurred_at", order: "desc" },
        { column: "created_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(limit)
      .select([...SIGNAL_COLUMNS]);
  }

  private async teardownRows(accountId: string, limit: number): Promise<TeardownResponse[]> {
    return this.scope
      .from("account_teardowns")
      .where({ account_id: accountId })
      .orderBy([{ column: "version", order: "desc" }])
      .limit(limit)
      .select([...TEARDOWN_COLUMNS]);
  }
}

/** The nullable fields of a story body: absent = unchanged on PATCH, `null` clears. */
const STORY_FIELDS = [
  "champion_name",
  "champion_title",
  "closed_at",
  "public_url",
  "quantified_outcome",
  "why_left_rival",
] as const satisfies readonly (keyof StoryCreate & keyof StoryUpdate)[];

export class SwitcherStoryService {
  constructor(private readonly workspace: Workspace) {}

  private get scope(): WorkspaceScope {
    return this.workspace.scope;
  }

  /** Most recently created first, at most MAX_STORIES_LISTED. */
  async list(): Promise<StoryResponse[]> {
    return this.scope
      .from("switcher_stories")
      .orderBy([
        { column: "created_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(MAX_STORIES_LISTED)
      .select([...STORY_COLUMNS]);
  }

  async create(input: StoryCreate): Promise<StoryResponse> {
    const accountId = input.account_id ?? null;
    await this.assertAccount(accountId);
    const row: Record<string, unknown> = {
      company_name: input.company_name,
      account_id: accountId,
      status: input.status ?? "draft",
    };
    for (const field of STORY_FIELDS) row[field] = input[field] ?? null;
    const [story] = await this.scope.insert("switcher_stories", row).returning([...STORY_COLUMNS]);
    return story as StoryResponse;
  }

  /**
   * The body has the create shape with `company_name` required (docs/product-rules.md#patch-semantics); other absent
   * fields are unchanged, `null` clears a nullable one (`account_id: null` unlinks the story).
   */
  async update(id: string, input: StoryUpdate): Promise<StoryResponse> {
    const changes: Record<string, unknown> = { company_name: input.company_name, updated_at: this.scope.db.fn.now() };
    if (input.account_id !== undefined) {
      await this.assertAccount(input.account_id);
      changes.account_id = input.account_id;
    }
    for (const field of STORY_FIELDS) {
      if (input[field] !== undefined) changes[field] = input[field];
    }
    if (input.status !== undefined) changes.status = input.status;
    const [story] = await this.scope
      .from("switcher_stories")
      .where({ id })
      .update(changes)
      .returning([...STORY_COLUMNS]);
    if (!story) throw notFound("Switcher story");
    return story as StoryResponse;
  }

  async delete(id: string): Promise<void> {
    const deleted = await this.scope.from("switcher_stories").where({ id }).delete();
    if (deleted === 0) throw notFound("Switcher story");
  }

  /** 404 when `account_id` names no target account of the workspace (spec: "404 when it names none"). */
  private async assertAccount(accountId: string | null): Promise<void> {
    if (accountId === null) return;
    const found = await this.scope.from("target_accounts").where({ id: accountId }).first("id");
    if (!found) throw notFound("Target account");
  }
}
