import { callerOf, type AreaHandlers } from "../http/handler.js";
import { EventService } from "./service.js";

export const eventHandlers: AreaHandlers = {
  listEvents: async (ctx) =>
    ctx.reply.okJson(await new EventService(ctx.services.knex, callerOf(ctx)).listJson(ctx.query)),

  getEvent: async (ctx) =>
    ctx.reply.okJson(await new EventService(ctx.services.knex, callerOf(ctx)).detailJson(ctx.path.event_id)),

  updateEventStatus: async (ctx) =>
    ctx.reply.ok(
      await new EventService(ctx.services.knex, callerOf(ctx)).setStatus(ctx.path.event_id, ctx.query.status),
    ),

  getEventActivity: async (ctx) =>
    ctx.reply.ok(await new EventService(ctx.services.knex, callerOf(ctx)).activity(ctx.query.days ?? 30)),
};
