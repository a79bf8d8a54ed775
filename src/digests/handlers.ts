import type { Knex } from "knex";
import { workspaceOf, type AreaHandlers } from "../http/handler.js";
import { suppress } from "../suppressions/service.js";
import { receiveEmailEvent } from "./email-events.js";
import { DigestService } from "./service.js";
import { invalidUnsubscribeLink, unsubscribeLinks, unsubscribePage } from "./unsubscribe.js";

/** The workspace's name for the confirmation page; a workspace deleted since the mail makes the link invalid. */
async function workspaceName(knex: Knex, workspaceId: string): Promise<string> {
  const workspace = await knex("workspaces").where({ id: workspaceId }).first("name");
  if (!workspace) throw invalidUnsubscribeLink();
  return workspace.name;
}

export const digestHandlers: AreaHandlers = {
  listDigests: async (ctx) => ctx.reply.ok(await new DigestService(workspaceOf(ctx), ctx.services).list()),

  createDigest: async (ctx) =>
    ctx.reply.created(await new DigestService(workspaceOf(ctx), ctx.services).create(ctx.query.period_type)),

  getDigest: async (ctx) =>
    ctx.reply.ok(await new DigestService(workspaceOf(ctx), ctx.services).get(ctx.path.digest_id)),

  sendDigest: async (ctx) =>
    ctx.reply.ok(await new DigestService(workspaceOf(ctx), ctx.services).send(ctx.path.digest_id)),

  listDigestDeliveries: async (ctx) =>
    ctx.reply.ok(await new DigestService(workspaceOf(ctx), ctx.services).deliveries(ctx.path.digest_id)),

  receiveEmailDeliveryWebhook: async (ctx) =>
    ctx.reply.accepted(await receiveEmailEvent(ctx.services.knex, ctx.services.config.email.webhookSecret, ctx)),

  getUnsubscribePage: async (ctx) => {
    const claims = await unsubscribeLinks(ctx.services.config).verify(ctx.query.token);
    const page = unsubscribePage(claims.email, await workspaceName(ctx.services.knex, claims.workspaceId));
    return ctx.reply.okText(page, "text/html");
  },

  unsubscribeFromDigests: async (ctx) => {
    const claims = await unsubscribeLinks(ctx.services.config).verify(ctx.query.token);
    await workspaceName(ctx.services.knex, claims.workspaceId);
    const row = await suppress(ctx.services.knex, claims.workspaceId, claims.email, "unsubscribe");
    return ctx.reply.ok({ email: row.email, suppressed: true });
  },
};
