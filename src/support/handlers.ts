import type { AreaHandlers } from "../http/handler.js";
import { SupportService } from "./service.js";

export const supportHandlers: AreaHandlers = {
  setupSupportInbox: async (ctx) => ctx.reply.ok(await new SupportService(ctx.services).setup()),

  syncSupportInbox: async (ctx) => ctx.reply.ok(await new SupportService(ctx.services).sync()),

  listSupportThreads: async (ctx) =>
    ctx.reply.ok((await new SupportService(ctx.services).list()).map((thread) => thread.toResponse())),

  getSupportThread: async (ctx) => {
    const { thread, messages } = await new SupportService(ctx.services).get(ctx.path.thread_id);
    return ctx.reply.ok({ ...thread.toResponse(), messages: messages.map((message) => message.toResponse()) });
  },

  closeSupportThread: async (ctx) =>
    ctx.reply.ok((await new SupportService(ctx.services).close(ctx.path.thread_id)).toResponse()),

  escalateSupportThread: async (ctx) =>
    ctx.reply.ok((await new SupportService(ctx.services).escalate(ctx.path.thread_id)).toResponse()),

  replyToSupportThread: async (ctx) =>
    ctx.reply.ok((await new SupportService(ctx.services).reply(ctx.path.thread_id, ctx.body)).toResponse()),

  receiveSupportInboundMail: async (ctx) => ctx.reply.accepted(await new SupportService(ctx.services).receive(ctx)),
};
