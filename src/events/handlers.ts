import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { EventService } from "./service.js";

export const eventHandlers: AreaHandlers = {
  listEvents: async (ctx) => ctx.reply.okJson(await new EventService(workspaceOf(ctx)).listJson(ctx.query)),

  getEvent: async (ctx) => ctx.reply.okJson(await new EventService(workspaceOf(ctx)).detailJson(ctx.path.event_id)),

  getEventScreenshot: async (ctx) =>
    ctx.reply.okBytes(
      await new EventService(workspaceOf(ctx)).screenshot(ctx.path.event_id, ctx.services.detection.assets),
      "image/png",
    ),

  updateEventStatus: async (ctx) =>
    ctx.reply.ok(
      await new EventService(workspaceOf(ctx)).setStatus(ctx.path.event_id, ctx.query.status, ctx.query.reason),
    ),

  getEventActivity: async (ctx) =>
    ctx.reply.ok(await new EventService(workspaceOf(ctx)).activity(ctx.query.days ?? 30)),
};
