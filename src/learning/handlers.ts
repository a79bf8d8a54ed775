import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { LearnedRuleService } from "./service.js";

export const learningHandlers: AreaHandlers = {
  listLearnedRules: async (ctx) =>
    ctx.reply.okJson(await new LearnedRuleService(workspaceOf(ctx)).listJson(ctx.path.source_id)),

  deleteLearnedRule: async (ctx) => {
    await new LearnedRuleService(workspaceOf(ctx)).delete(ctx.path.source_id, ctx.path.rule_id);
    return ctx.reply.noContent();
  },
};
