import { callerOf, ok, type AreaHandlers } from "../http/handler.js";
import { PreferenceService } from "./service.js";

export const preferenceHandlers: AreaHandlers = {
  getMyPreferences: async (ctx) => ok(await new PreferenceService(ctx.services.knex, callerOf(ctx)).get()),

  updateMyPreferences: async (ctx) =>
    ok(await new PreferenceService(ctx.services.knex, callerOf(ctx)).update(ctx.body)),
};
