import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { LearnedRuleService, SourceService } from "./service.js";

export const sourceHandlers: AreaHandlers = {
  updateSource: async (ctx) =>
    ctx.reply.ok((await new SourceService(workspaceOf(ctx)).update(ctx.path.source_id, ctx.body)).toResponse()),

  runSourceNow: async (ctx) =>
    ctx.reply.accepted(await new SourceService(workspaceOf(ctx)).runNow(ctx.path.source_id, ctx.services.jobs)),

  listLearnedRules: async (ctx) =>
    ctx.reply.ok(await new LearnedRuleService(workspaceOf(ctx)).list(ctx.path.source_id)),

  deleteLearnedRule: async (ctx) => {
    await new LearnedRuleService(workspaceOf(ctx)).delete(ctx.path.source_id, ctx.path.learned_rule_id);
    return ctx.reply.noContent();
  },

  deleteSource: async (ctx) => {
    await new SourceService(workspaceOf(ctx)).delete(ctx.path.source_id);
    return ctx.reply.noContent();
  },
};
