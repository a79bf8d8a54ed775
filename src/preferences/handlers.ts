import { callerOf, type AreaHandlers } from "../http/handler.js";
import { PreferenceService } from "./service.js";

export const preferenceHandlers: AreaHandlers = {
  getMyPreferences: async (ctx) => ctx.reply.ok(await new PreferenceService(ctx.services.knex, callerOf(ctx)).get()),

  updateMyPreferences: async (ctx) =>
    ctx.reply.ok(await new PreferenceService(ctx.services.knex, callerOf(ctx)).update(ctx.body)),
};
