import { callerOf, type AreaHandlers } from "../http/handler.js";
import { AuthService } from "./service.js";
import { clearedSessionCookie, sessionCookie } from "./session-cookie.js";

export const authHandlers: AreaHandlers = {
  signUp: async (ctx) => ctx.reply.created(await new AuthService(ctx.services).signUp(ctx.body, ctx.ip)),

  logIn: async (ctx) => ctx.reply.ok(await new AuthService(ctx.services).logIn(ctx.body, ctx.ip)),

  openSession: async (ctx) => {
    const { access_token } = await new AuthService(ctx.services).logIn(ctx.body, ctx.ip);
    return { ...ctx.reply.noContent(), headers: { "Set-Cookie": sessionCookie(access_token, ctx.services.config) } };
  },

  closeSession: async (ctx) => ({
    ...ctx.reply.noContent(),
    headers: { "Set-Cookie": clearedSessionCookie(ctx.services.config) },
  }),

  getCurrentUser: async (ctx) => ctx.reply.ok(await new AuthService(ctx.services).me(callerOf(ctx))),

  requestPasswordReset: async (ctx) => {
    await new AuthService(ctx.services).requestPasswordReset(ctx.body.email, ctx.ip);
    return ctx.reply.ok({ detail: "If that address has an account, a reset link has been sent." });
  },

  resetPassword: async (ctx) => {
    await new AuthService(ctx.services).resetPassword(ctx.body.token, ctx.body.password, ctx.ip);
    return ctx.reply.ok({ detail: "Password has been reset." });
  },
};
