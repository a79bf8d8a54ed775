/**
 * Handlers' replies are typed by the contract (src/http/handler.ts, ReplyBuilder). Each `@ts-expect-error` below is a
 * compile-time test: `npm run typecheck` fails if the line ever compiles, i.e. if a reply with a field the contract
 * lacks, a body for an undocumented status, or a missing body stops being a type error.
 */
import { expect, it } from "vitest";
import { REPLY_BUILDER, type AreaHandlers } from "../../src/http/handler.js";

const offContract: AreaHandlers = {
  // @ts-expect-error -- `extra` is not a property of HealthResponse.
  getHealth: async (ctx) => ctx.reply.ok({ service: "rivalscope", status: "ok", extra: 1 }),
  // @ts-expect-error -- getCurrentUser documents no 201.
  getCurrentUser: async (ctx) => ctx.reply.created({ user: null, workspace_id: "w" }),
  // @ts-expect-error -- listCompetitors documents no 204: it must answer a list.
  listCompetitors: async (ctx) => ctx.reply.noContent(),
  getEventActivity: async (ctx) =>
    // @ts-expect-error -- `severity` must be one of the contract's enum values.
    ctx.reply.ok({ competitors: { c: [{ detected_at: "", severity: "huge" }] }, days: 1 }),
};

it("builds plain replies at run time (the checking is done by tsc)", () => {
  expect(Object.keys(offContract)).toHaveLength(4);
  expect(REPLY_BUILDER.created({ id: "x" } as never)).toEqual({ status: 201, body: { id: "x" } });
  expect((REPLY_BUILDER.noContent as unknown as () => unknown)()).toEqual({ status: 204 });
});
