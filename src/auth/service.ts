/**
 * Sign-up, login and password reset (docs/product-rules.md#errors-and-auth). Rules live here; handlers only translate
 * HTTP.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { createDefaultAlertRule } from "../alert-rules/service.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { conflict, invalid, notFound, tooManyRequests, unauthorized } from "../http/errors.js";
import type { AppServices, AuthContext } from "../http/handler.js";
import type { Schemas, Wire } from "../http/schemas.js";
import { enqueueEmail } from "../email/outbox.js";
import { escapeHtml } from "../lib/html.js";
import { RateLimiter } from "../lib/rate-limit.js";
import { isIanaTimezone } from "../lib/timezones.js";
import { User } from "./models.js";
import { hashPassword, verifyPassword } from "./passwords.js";

const LOGIN_WINDOW_SECONDS = 15 * 60;
const LOGIN_FAILURES_PER_EMAIL = 10;
const LOGIN_ATTEMPTS_PER_IP = 100;
const RESET_REQUESTS_PER_EMAIL = 5;
const RESET_WINDOW_SECONDS = 3600;
const RESET_TOKEN_TTL_SECONDS = 3600;
const INVITATION_TTL_SECONDS = 7 * 86400;

type TokenResponse = Schemas["TokenResponse"];

const normalizeEmail = (email: string) => email.trim().toLowerCase();
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

// Compared against when the email is unknown, so both failures take as long (no account enumeration by timing).
let decoyHash: Promise<string> | undefined;

export class AuthService {
  private readonly limiter: RateLimiter;

  constructor(private readonly services: AppServices) {
    this.limiter = new RateLimiter(services.knex);
  }

  async signUp(input: Schemas["SignupRequest"]): Promise<TokenResponse> {
    const email = normalizeEmail(input.email);
    const timezone = input.digest_timezone ?? "UTC";
    if (!isIanaTimezone(timezone)) throw invalid(["body", "digest_timezone"], `Unknown IANA time zone '${timezone}'`);
    const passwordHash = await hashPassword(input.password);
    const { userId, workspaceId } = await this.services.knex.transaction(async (trx) => {
      const existing = await trx("users").whereRaw("lower(email) = ?", [email]).first("id");
      if (existing) throw conflict("An account with this email already exists");
      const [user] = await trx("users")
        .insert({ email, name: input.name.trim(), password_hash: passwordHash, digest_timezone: timezone })
        .returning("id");
      return { userId: user.id as string, workspaceId: await createWorkspaceFor(trx, user.id, input.name) };
    });
    return this.tokenFor(userId, workspaceId);
  }

  async logIn(input: Schemas["LoginRequest"], ip: string): Promise<TokenResponse> {
    const email = normalizeEmail(input.email);
    const emailRule = {
      key: `login:email:${email}`,
      limit: LOGIN_FAILURES_PER_EMAIL,
      windowSeconds: LOGIN_WINDOW_SECONDS,
    };
    const ipRule = { key: `login:ip:${ip}`, limit: LOGIN_ATTEMPTS_PER_IP, windowSeconds: LOGIN_WINDOW_SECONDS };
    const waitIp = await this.limiter.hit(ipRule);
    if (waitIp !== null) throw tooManyRequests(waitIp);
    const waitEmail = await this.limiter.peek(emailRule);
    if (waitEmail !== null) throw tooManyRequests(waitEmail);

    const user = await this.services.knex("users").whereRaw("lower(email) = ?", [email]).first("id", "password_hash");
    decoyHash ??= hashPassword(randomBytes(16).toString("hex"));
    const valid = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash));
    if (!user || !valid) {
      await this.limiter.hit(emailRule);
      throw unauthorized("Incorrect email or password");
    }
    await this.limiter.reset(emailRule.key);
    return this.tokenFor(user.id, await defaultWorkspaceOf(this.services.knex, user.id));
  }

  /** The caller's user and the workspace their token is scoped to. */
  async me(caller: AuthContext): Promise<Wire<Schemas["Me"]>> {
    const user = await User.query(this.services.knex).findById(caller.userId);
    if (!user) throw notFound("User");
    return { user: user.toUserResponse(), workspace_id: caller.workspaceId };
  }

  async requestPasswordReset(rawEmail: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    const wait = await this.limiter.hit({
      key: `reset:email:${email}`,
      limit: RESET_REQUESTS_PER_EMAIL,
      windowSeconds: RESET_WINDOW_SECONDS,
    });
    if (wait !== null) throw tooManyRequests(wait);
    await this.services.knex.transaction(async (trx) => {
      const user = await trx("users").whereRaw("lower(email) = ?", [email]).first("id", "email", "name");
      if (!user) return;
      const link = await this.createResetLink(trx, user.id, RESET_TOKEN_TTL_SECONDS);
      await enqueueEmail(
        this.services.jobs,
        {
          to: user.email,
          subject: "Reset your Rivalscope password",
          text:
            `Hi ${user.name},\n\nSomeone (hopefully you) asked to reset the password of your Rivalscope account.\n` +
            `Open this link within one hour to choose a new password:\n\n${link}\n\n` +
            `If you did not ask for this, ignore this email: your password stays as it is.\n`,
          html:
            `<p>Hi ${escapeHtml(user.name)},</p><p>Someone (hopefully you) asked to reset the password of your Rivalscope account.</p>` +
            `<p><a href="${escapeHtml(link)}">Choose a new password</a> (the link works once, for one hour).</p>` +
            `<p>If you did not ask for this, ignore this email: your password stays as it is.</p>`,
        },
        trx,
      );
    });
  }

  async resetPassword(token: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await this.services.knex.transaction(async (trx) => {
      // Consuming the token and checking it are one statement, so two concurrent resets cannot both use it.
      const [consumed] = await trx("password_reset_tokens")
        .where({ token_hash: sha256(token) })
        .whereNull("used_at")
        .where("expires_at", ">", trx.fn.now())
        .update({ used_at: trx.fn.now() })
        .returning("user_id");
      if (!consumed) throw invalid(["body", "token"], "Invalid or expired reset token");
      await trx("users")
        .where({ id: consumed.user_id })
        .update({ password_hash: passwordHash, updated_at: trx.fn.now() });
    });
  }

  /**
   * Invites a user added to a workspace by an operator (`npm run admin -- add-member`): a set-password link that
   * works once, for a week, sent inside the transaction that created the membership.
   */
  async sendInvitation(
    trx: Knex.Transaction,
    user: { id: string; email: string; name: string },
    workspaceName: string,
  ) {
    const link = await this.createResetLink(trx, user.id, INVITATION_TTL_SECONDS);
    await enqueueEmail(
      this.services.jobs,
      {
        to: user.email,
        subject: `You have been added to ${workspaceName} on Rivalscope`,
        text:
          `Hi ${user.name},\n\nYou now have access to the Rivalscope workspace "${workspaceName}".\n` +
          `Choose a password within 7 days to sign in:\n\n${link}\n`,
        html:
          `<p>Hi ${escapeHtml(user.name)},</p><p>You now have access to the Rivalscope workspace "${escapeHtml(workspaceName)}".</p>` +
          `<p><a href="${escapeHtml(link)}">Choose a password</a> within 7 days to sign in.</p>`,
      },
      trx,
    );
  }

  /** A single-use set-password link; only its hash is stored, and issuing one invalidates the user's earlier ones. */
  private async createResetLink(trx: Knex.Transaction, userId: string, ttlSeconds: number): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    await trx("password_reset_tokens")
      .where({ user_id: userId })
      .whereNull("used_at")
      .update({ used_at: trx.fn.now() });
    await trx("password_reset_tokens").insert({
      user_id: userId,
      token_hash: sha256(token),
      expires_at: new Date(Date.now() + ttlSeconds * 1000),
    });
    return `${this.services.config.publicBaseUrl}/reset-password?token=${token}`;
  }

  private async tokenFor(userId: string, workspaceId: string): Promise<TokenResponse> {
    return { access_token: await this.services.tokens.issue(userId, workspaceId), token_type: "bearer" };
  }
}

/**
 * Creates a workspace on the `free` plan owned by the user (sign-up, and the admin CLI for new users), with the
 * default alert rule every workspace starts with (docs/product-rules.md#alert-rules).
 */
export async function createWorkspaceFor(trx: Knex.Transaction, userId: string, ownerName: string): Promise<string> {
  const [workspace] = await trx("workspaces")
    .insert({ name: `${ownerName.trim()}'s workspace`, plan: "free" })
    .returning("id");
  const scope = new WorkspaceScope(trx, workspace.id);
  await scope.insert("memberships", { user_id: userId, role: "owner" });
  await createDefaultAlertRule(trx, workspace.id);
  return workspace.id as string;
}

/**
 * The workspace a login token is scoped to: the user's oldest membership (their own workspace for signed-up users).
 * Looked up by user, before any workspace is known, so across workspaces.
 */
async function defaultWorkspaceOf(knex: Knex, userId: string): Promise<string> {
  const membership = await acrossWorkspaces(knex)
    .from("memberships")
    .where({ user_id: userId })
    .orderBy("created_at")
    .first("workspace_id");
  if (!membership) throw unauthorized("This account belongs to no workspace");
  return membership.workspace_id as string;
}
