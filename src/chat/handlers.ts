import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { llmFromConfig } from "../lib/llm.js";
import { ChatService } from "./service.js";

export const chatHandlers: AreaHandlers = {
  sendChatMessage: async (ctx) =>
    ctx.reply.ok(
      await new ChatService(workspaceOf(ctx), llmFromConfig(ctx.services.config, ctx.services.http)).send(ctx.body),
    ),
};
