import { callerOf, type AreaHandlers } from "../http/handler.js";
import { AlertRuleService } from "./service.js";

export const alertRuleHandlers: AreaHandlers = {
  listAlertRules: async (ctx) => {
    const rules = await new AlertRuleService(ctx.services.knex, callerOf(ctx)).list();
    return ctx.reply.ok(rules.map((rule) => rule.toResponse()));
  },

  createAlertRule: async (ctx) => {
    const rule = await new AlertRuleService(ctx.services.knex, callerOf(ctx)).create(ctx.body);
    return ctx.reply.created(rule.toResponse());
  },

  updateAlertRule: async (ctx) => {
    const rule = await new AlertRuleService(ctx.services.knex, callerOf(ctx)).update(ctx.path.rule_id, ctx.body);
    return ctx.reply.ok(rule.toResponse());
  },

  deleteAlertRule: async (ctx) => {
    await new AlertRuleService(ctx.services.knex, callerOf(ctx)).delete(ctx.path.rule_id);
    return ctx.reply.noContent();
  },
};
