import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { PreferenceService } from "./service.js";

export const preferenceHandlers: AreaHandlers = {
  getMyPreferences: async (ctx) => ctx.reply.ok(await new PreferenceService(workspaceOf(ctx)).get()),

  updateMyPreferences: async (ctx) => ctx.reply.ok(await new PreferenceService(workspaceOf(ctx)).update(ctx.body)),
};
