import { callerOf, ok, type AreaHandlers } from "../http/handler.js";
import { EventService } from "./service.js";

export const eventHandlers: AreaHandlers = {
  listEvents: async (ctx) => ({
    status: 200,
    json: await new EventService(ctx.services.knex, callerOf(ctx)).listJson(ctx.query),
  }),

  getEvent: async (ctx) => ({
    status: 200,
    json: await new EventService(ctx.services.knex, callerOf(ctx)).detailJson(ctx.path.event_id),
  }),

  updateEventStatus: async (ctx) =>
    ok(await new EventService(ctx.services.knex, callerOf(ctx)).setStatus(ctx.path.event_id, ctx.query.status)),

  getEventActivity: async (ctx) =>
    ok(await new EventService(ctx.services.knex, callerOf(ctx)).activity(ctx.query.days ?? 30)),
};
