import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { AlertRuleService } from "./service.js";

export const alertRuleHandlers: AreaHandlers = {
  listAlertRules: async (ctx) => {
    const rules = await new AlertRuleService(workspaceOf(ctx)).list();
    return ctx.reply.ok(rules.map((rule) => rule.toResponse()));
  },

  createAlertRule: async (ctx) =>
    ctx.reply.created((await new AlertRuleService(workspaceOf(ctx)).create(ctx.body)).toResponse()),

  updateAlertRule: async (ctx) =>
    ctx.reply.ok((await new AlertRuleService(workspaceOf(ctx)).update(ctx.path.rule_id, ctx.body)).toResponse()),

  deleteAlertRule: async (ctx) => {
    await new AlertRuleService(workspaceOf(ctx)).delete(ctx.path.rule_id);
    return ctx.reply.noContent();
  },
};
