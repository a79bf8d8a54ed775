import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { SourceNoticeService } from "./notices.js";
import { SourceService } from "./service.js";

export const sourceHandlers: AreaHandlers = {
  updateSource: async (ctx) =>
    ctx.reply.ok((await new SourceService(workspaceOf(ctx)).update(ctx.path.source_id, ctx.body)).toResponse()),

  runSourceNow: async (ctx) =>
    ctx.reply.accepted(await new SourceService(workspaceOf(ctx)).runNow(ctx.path.source_id, ctx.services.jobs)),

  updateSourceHealth: async (ctx) =>
    ctx.reply.ok(
      (
        await new SourceService(workspaceOf(ctx)).setNoticesMuted(ctx.path.source_id, ctx.body.notices_muted)
      ).toResponse(),
    ),

  listSourceNotices: async (ctx) =>
    ctx.reply.okJson(await new SourceNoticeService(workspaceOf(ctx)).listJson(ctx.query)),

  deleteSource: async (ctx) => {
    await new SourceService(workspaceOf(ctx)).delete(ctx.path.source_id);
    return ctx.reply.noContent();
  },
};
