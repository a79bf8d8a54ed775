import { type AreaHandlers } from "../http/handler.js";

export const healthHandlers: AreaHandlers = {
  /** Liveness: answers while the process serves HTTP (no database round trip, so a load balancer check stays cheap). */
  getHealth: async (ctx) => ctx.reply.ok({ service: "rivalscope", status: "ok" }),
};
