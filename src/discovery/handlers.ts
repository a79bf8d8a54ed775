/**
 * Website discovery and profiling (docs/product-rules.md#discovery-and-profile). The competitor's homepage is the URL
 * of its oldest source of type `homepage` when it has one, otherwise `https://<domain>/`: a tracked homepage says where
 * the site really lives (another scheme, host or port than the bare domain; the test fixture sites on 127.0.0.1 rely on
 * it), and nothing new is stored for it. A homepage that cannot be fetched answers 422 at `["path", "competitor_id"]`
 * with `Could not fetch <url>: <reason>`.
 */
import { workspaceOf, type AreaHandlers, type RequestContext } from "../http/handler.js";
import { DiscoveryService } from "./service.js";

/** The service for a request: pages parsed in the detection pipeline's pool, fetched with the request's own client. */
const serviceFor = (ctx: RequestContext<any>) =>
  new DiscoveryService(workspaceOf(ctx), {
    parser: ctx.services.detection.parser,
    allowPrivateTargets: ctx.services.config.allowPrivateTargets,
  });

export const discoveryHandlers: AreaHandlers = {
  discoverCompetitorSources: async (ctx) => {
    const created = await serviceFor(ctx).discover(ctx.path.competitor_id);
    return ctx.reply.ok(created.map((source) => source.toResponse()));
  },

  profileCompetitor: async (ctx) => ctx.reply.ok(await serviceFor(ctx).profile(ctx.path.competitor_id)),

  addEnrichedSources: async (ctx) =>
    ctx.reply.ok(await serviceFor(ctx).addEnriched(ctx.path.competitor_id, ctx.body.sources)),
};
