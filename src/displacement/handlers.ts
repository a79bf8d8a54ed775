import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { llmFromConfig } from "../lib/llm.js";
import { SwitcherStoryService, TargetAccountService } from "./service.js";

export const displacementHandlers: AreaHandlers = {
  listTargetAccounts: async (ctx) => ctx.reply.ok(await new TargetAccountService(workspaceOf(ctx)).list()),

  createTargetAccount: async (ctx) =>
    ctx.reply.created(await new TargetAccountService(workspaceOf(ctx)).create(ctx.body)),

  getTargetAccountCadence: async (ctx) => ctx.reply.ok(await new TargetAccountService(workspaceOf(ctx)).cadence()),

  getTargetAccount: async (ctx) =>
    ctx.reply.ok(await new TargetAccountService(workspaceOf(ctx)).detail(ctx.path.account_id)),

  updateTargetAccount: async (ctx) =>
    ctx.reply.ok(await new TargetAccountService(workspaceOf(ctx)).update(ctx.path.account_id, ctx.body)),

  deleteTargetAccount: async (ctx) => {
    await new TargetAccountService(workspaceOf(ctx)).delete(ctx.path.account_id);
    return ctx.reply.noContent();
  },

  createAccountSignal: async (ctx) =>
    ctx.reply.created(await new TargetAccountService(workspaceOf(ctx)).createSignal(ctx.path.account_id, ctx.body)),

  generateAccountTeardown: async (ctx) =>
    ctx.reply.created(
      await new TargetAccountService(workspaceOf(ctx)).generateTeardown(
        ctx.path.account_id,
        llmFromConfig(ctx.services.config, ctx.services.http),
      ),
    ),

  listAccountTeardowns: async (ctx) =>
    ctx.reply.ok(await new TargetAccountService(workspaceOf(ctx)).listTeardowns(ctx.path.account_id)),

  listSwitcherStories: async (ctx) => ctx.reply.ok(await new SwitcherStoryService(workspaceOf(ctx)).list()),

  createSwitcherStory: async (ctx) =>
    ctx.reply.created(await new SwitcherStoryService(workspaceOf(ctx)).create(ctx.body)),

  updateSwitcherStory: async (ctx) =>
    ctx.reply.ok(await new SwitcherStoryService(workspaceOf(ctx)).update(ctx.path.story_id, ctx.body)),

  deleteSwitcherStory: async (ctx) => {
    await new SwitcherStoryService(workspaceOf(ctx)).delete(ctx.path.story_id);
    return ctx.reply.noContent();
  },
};
