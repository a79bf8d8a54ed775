/**
 * Competitor set management. Every query goes through the caller's WorkspaceScope: another workspace's competitor is
 * a 404.
 */
import type { components } from "../../generated/api-types.js";
import type { WorkspaceScope } from "../db/tenancy.js";
import { forbidden, invalid, notFound } from "../http/errors.js";
import type { Workspace } from "../http/handler.js";
import { normalizeDomain } from "../sources/normalize-url.js";
import { limitsOf, upgradeFor } from "../workspaces/plans.js";
import { Competitor } from "./models.js";

type CompetitorCreate = components["schemas"]["CompetitorCreate"];
type CompetitorUpdate = components["schemas"]["CompetitorUpdate"];

export class CompetitorService {
  constructor(private readonly workspace: Workspace) {}

  async list(): Promise<Competitor[]> {
    return this.workspace.scope.query(Competitor).orderBy([
      { column: "created_at", order: "asc" },
      { column: "id", order: "asc" },
    ]);
  }

  /** The caller's competitor, or 404 (also when it belongs to another workspace). */
  async get(id: string, scope: WorkspaceScope = this.workspace.scope): Promise<Competitor> {
    const competitor = await scope.query(Competitor).findById(id);
    if (!competitor) throw notFound("Competitor");
    return competitor;
  }

  async create(input: CompetitorCreate): Promise<Competitor> {
    const domain = domainOrFail(input.domain);
    const { plan, workspaceId } = this.workspace.caller;
    return this.workspace.scope.transaction(async (scope) => {
      // Lock the workspace row so two concurrent creates cannot both pass the plan's limit.
      await scope.db("workspaces").where({ id: workspaceId }).forUpdate().first("id");
      const limit = limitsOf(plan).competitors;
      const counted = await scope.from("competitors").count({ count: "*" }).first();
      if (Number(counted?.count ?? 0) >= limit) {
        // docs/product-rules.md#plans-and-limits: the 403 names the limit and the plan that lifts it.
        throw forbidden(
          `The ${plan} plan allows ${limit} competitors; remove one, or ${upgradeFor(plan, "competitors", "competitors")} to add more`,
        );
      }
      return scope.query(Competitor).insertAndFetch({
        workspace_id: workspaceId,
        name: input.name.trim(),
        domain,
        aliases: input.aliases ?? null,
        description: input.description ?? null,
      });
    });
  }

  /**
   * PATCH semantics (docs/product-rules.md#patch-semantics): absent = unchanged; `null` clears aliases/description,
   * leaves name/domain.
   */
  async update(id: string, input: CompetitorUpdate): Promise<Competitor> {
    const competitor = await this.get(id);
    const patch: Partial<Competitor> = {};
    if (input.name != null) patch.name = input.name.trim();
    if (input.domain != null) patch.domain = domainOrFail(input.domain, "domain");
    if (input.aliases !== undefined) patch.aliases = input.aliases;
    if (input.description !== undefined) patch.description = input.description;
    if (Object.keys(patch).length === 0) return competitor;
    return competitor.$query(this.workspace.scope.db).patchAndFetch(patch);
  }

  /** Deletes the competitor; its sources (and later snapshots and events) go with it through foreign-key cascades. */
  async delete(id: string): Promise<void> {
    const deleted = await this.workspace.scope.query(Competitor).deleteById(id);
    if (deleted === 0) throw notFound("Competitor");
  }
}

function domainOrFail(value: string, field = "domain"): string {
  const domain = normalizeDomain(value);
  if (!domain) throw invalid(["body", field], "Input should be a domain name such as acme.com");
  return domain;
}
