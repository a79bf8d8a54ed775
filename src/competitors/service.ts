/**
 * Competitor set management. Tenancy lives in every query (`forWorkspace`); another workspace's competitor is a 404.
 */
import type { Knex } from "knex";
import type { components } from "../../generated/api-types.js";
import { forbidden, invalid, notFound } from "../http/errors.js";
import type { AuthContext } from "../http/handler.js";
import { normalizeDomain } from "../sources/normalize-url.js";
import { limitsOf } from "../workspaces/plans.js";
import { Competitor } from "./models.js";

type CompetitorCreate = components["schemas"]["CompetitorCreate"];
type CompetitorUpdate = components["schemas"]["CompetitorUpdate"];

export class CompetitorService {
  constructor(
    private readonly knex: Knex,
    private readonly caller: AuthContext,
  ) {}

  async list(): Promise<Competitor[]> {
    return Competitor.query(this.knex)
      .modify("forWorkspace", this.caller.workspaceId)
      .orderBy([
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ]);
  }

  /** The caller's competitor, or 404 (also when it belongs to another workspace). */
  async get(id: string, trx: Knex | Knex.Transaction = this.knex): Promise<Competitor> {
    const competitor = await Competitor.query(trx).modify("forWorkspace", this.caller.workspaceId).findById(id);
    if (!competitor) throw notFound("Competitor");
    return competitor;
  }

  async create(input: CompetitorCreate): Promise<Competitor> {
    const domain = domainOrFail(input.domain);
    return this.knex.transaction(async (trx) => {
      // Lock the workspace row so two concurrent creates cannot both pass the plan's limit.
      const workspace = await trx("workspaces").where({ id: this.caller.workspaceId }).forUpdate().first("plan");
      const limit = limitsOf(workspace.plan).competitors;
      const counted = await trx("competitors")
        .where({ workspace_id: this.caller.workspaceId })
        .count({ count: "*" })
        .first();
      if (Number(counted?.count ?? 0) >= limit) {
        throw forbidden(`The ${workspace.plan} plan allows ${limit} competitors; remove one or upgrade to add more`);
      }
      return Competitor.query(trx).insertAndFetch({
        workspace_id: this.caller.workspaceId,
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
    return competitor.$query(this.knex).patchAndFetch(patch);
  }

  /** Deletes the competitor; its sources (and later snapshots and events) go with it through foreign-key cascades. */
  async delete(id: string): Promise<void> {
    const deleted = await Competitor.query(this.knex).modify("forWorkspace", this.caller.workspaceId).deleteById(id);
    if (deleted === 0) throw notFound("Competitor");
  }
}

function domainOrFail(value: string, field = "domain"): string {
  const domain = normalizeDomain(value);
  if (!domain) throw invalid(["body", field], "Input should be a domain name such as acme.com");
  return domain;
}
