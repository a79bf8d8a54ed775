import type { AreaHandlers } from "../http/handler.js";
import { FirehoseMonitors } from "./monitors.js";

export const firehoseHandlers: AreaHandlers = {
  // Platform admins only: enforced for every /admin/* operation in src/http/access.ts.
  listFirehoseMonitors: async (ctx) =>
    ctx.reply.ok(await new FirehoseMonitors(ctx.services.knex, ctx.services.config).list()),
};
