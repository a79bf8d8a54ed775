/**
 * Tenancy in one place (docs/architecture.md#tenancy-in-the-query). A tenant table is one with a `workspace_id`
 * column; every query of one goes through either
 *
 * - a `WorkspaceScope`: constructed with a workspace id, it cannot build a query without that workspace's filter
 *   (request handlers get the caller's scope; a worker builds one from the row it works on), or
 * - `acrossWorkspaces(db)`: reads and writes that are meant to cross workspaces (the scheduler, the platform admin's
 *   views, workers looking a job's row up by id). The name says so at every call site.
 *
 * `npm run lint` (scripts/lint-tenancy.ts) fails when `src/` names a tenant table or queries a tenant model any other
 * way. Tables without `workspace_id` (evidence, alert_deliveries, webhook_deliveries, crm_syncs, …) belong to a tenant
 * row through a foreign key and are reached by joining it; a join from a scoped query stays in the workspace because
 * rows only ever reference rows of their own workspace.
 */
import type { Knex } from "knex";
import type { ModelClass, QueryBuilderType } from "objection";

/** The tables with a `workspace_id` column (test/db/tenancy.test.ts checks this list against the migrated schema). */
export const TENANT_TABLES = [
  "memberships",
  "competitors",
  "sources",
  "snapshots",
  "diffs",
  "events",
  "alert_rules",
  "suppressed_emails",
  "webhook_subscriptions",
  "digests",
  "digest_deliveries",
  "crm_connections",
  "partner_monitors",
  "chat_messages",
  "beta_claims",
  "payments_events",
  "target_accounts",
  "account_signals",
  "account_teardowns",
  "switcher_stories",
  "firehose_monitors",
  "firehose_mentions",
  "source_notices",
  "learned_rules",
] as const;

export type TenantTable = (typeof TENANT_TABLES)[number];
/** A tenant table, optionally aliased as knex writes it: `"events as e"`. */
export type TenantTableRef = TenantTable | `${TenantTable} as ${string}`;

type Db = Knex | Knex.Transaction;
type AnyModelClass = ModelClass<any>;
type RawBindings = Record<string, Knex.Value>;

/** The alias a table reference is known by in the query: `"events as e"` → `e`. */
function aliasOf(table: TenantTableRef): string {
  const [name, alias] = table.split(/\s+as\s+/i);
  return alias ?? name!;
}

/** One workspace's data: every query built here is restricted to `workspaceId`. */
export class WorkspaceScope {
  constructor(
    readonly db: Db,
    readonly workspaceId: string,
  ) {}

  /** A knex query of `table`, restricted to this workspace. */
  from(table: TenantTableRef): Knex.QueryBuilder {
    return this.db(table).where(`${aliasOf(table)}.workspace_id`, this.workspaceId);
  }

  /** An Objection query of a tenant model, restricted to this workspace. */
  query<C extends AnyModelClass>(model: C): QueryBuilderType<InstanceType<C>> {
    return model.query(this.db).where(`${model.tableName}.workspace_id`, this.workspaceId) as never;
  }

  /** Inserts rows into `table`, each stamped with this workspace (a row cannot name another one). */
  insert<Row extends object>(table: TenantTable, rows: Row | Row[]): Knex.QueryBuilder {
    const list = Array.isArray(rows) ? rows : [rows];
    return this.db(table).insert(list.map((row) => ({ ...row, workspace_id: this.workspaceId })));
  }

  /**
   * Raw SQL for what the query builder cannot say (Postgres building the JSON of a response). The SQL restricts its
   * tenant tables with the named binding `:workspace_id`, which this scope fills in; SQL without it is refused.
   */
  raw<Row = Record<string, unknown>>(sql: string, bindings: RawBindings = {}): Promise<{ rows: Row[] }> {
    if (!/:workspace_id\b/.test(sql)) throw new Error("workspace-scoped SQL must filter by :workspace_id");
    return this.db.raw(sql, { ...bindings, workspace_id: this.workspaceId }) as unknown as Promise<{ rows: Row[] }>;
  }

  /** This scope inside a transaction (or inside the given one). */
  transaction<T>(work: (scope: WorkspaceScope) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(new WorkspaceScope(trx, this.workspaceId)));
  }

  /** The same workspace on another connection or transaction. */
  on(db: Db): WorkspaceScope {
    return new WorkspaceScope(db, this.workspaceId);
  }
}

/** Data access that crosses workspaces on purpose; see the module comment for who may use it. */
export interface CrossWorkspaceAccess {
  db: Db;
  from(table: TenantTableRef): Knex.QueryBuilder;
  query<C extends AnyModelClass>(model: C): QueryBuilderType<InstanceType<C>>;
  raw<Row = Record<string, unknown>>(sql: string, bindings?: RawBindings | Knex.RawBinding[]): Promise<{ rows: Row[] }>;
}

export function acrossWorkspaces(db: Db): CrossWorkspaceAccess {
  return {
    db,
    from: (table) => db(table),
    query: <C extends AnyModelClass>(model: C) => model.query(db) as never,
    raw: <Row>(sql: string, bindings: RawBindings | Knex.RawBinding[] = []) =>
      db.raw(sql, bindings as Knex.RawBinding[]) as unknown as Promise<{ rows: Row[] }>,
  };
}
