/**
 * Sign-up, login and password reset (docs/product-rules.md#errors-and-auth). Rules live here; handlers only translate
 * HTTP. Each public operation passes its rate limits (src/auth/limits.ts) before any password hash, and hashes only
 * for a request that can succeed (docs/product-rules.md#tokens-and-passwords).
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { createDefaultAlertRule } from "../alert-rules/service.js";
import { acrossWorkspaces, WorkspaceScope } from "../db/tenancy.js";
import { conflict, invalid, notFound, unauthorized } from "../http/errors.js";
import type { AppServices, AuthContext } from "../http/handler.js";
import type { Schemas, Wire } from "../http/schemas.js";
import { enqueueEmail } from "../email/outbox.js";
import { escapeHtml } from "../lib/html.js";
import { isKnownTimezone } from "../lib/timezones.js";
import { AuthLimits } from "./limits.js";
import { User } from "./models.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import { createSetPasswordLink, hashSetPasswordToken } from "./reset-email.js";

const RESET_TOKEN_TTL_SECONDS = 3600;
const INVITATION_TTL_SECONDS = 7 * 86400;

type TokenResponse = Schemas["TokenResponse"];

const normalizeEmail = (email: string) => email.trim().toLowerCase();
const invalidResetToken = () => invalid(["body", "token"], "Invalid or expired reset token");

// Compared against when the email is unknown, so both failures take as long (no account enumeration by timing).
let decoyHash: Promise<string> | undefined;

function decoy(): Promise<string> {
  // Forgotten when it fails (a full hashing queue), so a later login computes it again.
  decoyHash ??= hashPassword(randomBytes(16).toString("hex")).catch((error: unknown) => {
    decoyHash = undefined;
    throw error;
  });
  return decoyHash;
}

export class AuthService {
  private readonly limits: AuthLimits;

  constructor(private readonly services: AppServices) {
    this.limits = new AuthLimits(services.knex);
  }

  async signUp(input: Schemas["SignupRequest"], ip: string): Promise<TokenResponse> {
    const email = normalizeEmail(input.email);
    await this.limits.signUp(email, ip);
    const timezone = input.digest_timezone ?? "UTC";
    if (!(await isKnownTimezone(this.services.knex, timezone)))
      throw invalid(["body", "digest_timezone"], `Unknown IANA time zone '${timezone}'`);
    const taken = (trx: Knex | Knex.Transaction) => trx("users").whereRaw("lower(email) = ?", [email]).first("id");
    // Checked before hashing too, so a taken address costs no hash; checked again in the transaction for races.
    if (await taken(this.services.knex)) throw conflict("An account with this email already exists");
    const passwordHash = await hashPassword(input.password);
    const { userId, workspaceId } = await this.services.knex.transaction(async (trx) => {
      if (await taken(trx)) throw conflict("An account with this email already exists");
      const [user] = await trx("users")
        .insert({ email, name: input.name.trim(), password_hash: passwordHash, digest_timezone: timezone })
        .returning("id");
      return { userId: user.id as string, workspaceId: await createWorkspaceFor(trx, user.id, input.name) };
    });
    return this.tokenFor(userId, workspaceId, 0);
  }

  async logIn(input: Schemas["LoginRequest"], ip: string): Promise<TokenResponse> {
    const email = normalizeEmail(input.email);
    await this.limits.logIn(email, ip);
    const user = await this.services
      .knex("users")
      .whereRaw("lower(email) = ?", [email])
      .first("id", "password_hash", "token_generation");
    // An invited user without a password yet (hash `!`) is checked against the decoy too: same time as any failure.
    const usable: string | null = user?.password_hash?.startsWith("scrypt$") ? user.password_hash : null;
    const valid = await verifyPassword(input.password, usable ?? (await decoy()));
    if (!user || !usable || !valid) {
      await this.limits.loginFailed(email, ip);
      throw unauthorized("Incorrect email or password");
    }
    await this.limits.loginSucceeded(email, ip);
    return this.tokenFor(user.id, await defaultWorkspaceOf(this.services.knex, user.id), user.token_generation);
  }

  /** The caller's user and the workspace their token is scoped to. */
  async me(caller: AuthContext): Promise<Wire<Schemas["Me"]>> {
    const user = await User.query(this.services.knex).findById(caller.userId);
    if (!user) throw notFound("User");
    return { user: user.toUserResponse(), workspace_id: caller.workspaceId };
  }

  async requestPasswordReset(rawEmail: string, ip: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    await this.limits.forgotPassword(email, ip);
    await this.services.knex.transaction(async (trx) => {
      const user = await trx("users").whereRaw("lower(email) = ?", [email]).first("id", "email", "name");
      if (!user) return;
      // A placeholder, rendered into the link when the mail is sent (src/auth/reset-email.ts).
      const link = await createSetPasswordLink(trx, this.services.config, user.id, RESET_TOKEN_TTL_SECONDS);
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
            `<p><a href="${link}">Choose a new password</a> (the link works once, for one hour).</p>` +
            `<p>If you did not ask for this, ignore this email: your password stays as it is.</p>`,
        },
        trx,
      );
    });
  }

  /**
   * The token is looked up, and refused, before the new password is hashed; the reset then consumes it, sets the
   * password and increments the user's token generation in one transaction, which revokes every access token issued
   * before (src/auth/tokens.ts).
   */
  async resetPassword(token: string, password: string, ip: string): Promise<void> {
    await this.limits.resetPassword(ip);
    const { knex } = this.services;
    const pending = await knex("password_reset_tokens as t")
      .join("users as u", "u.id", "t.user_id")
      .where({ "t.token_hash": hashSetPasswordToken(token) })
      .whereNull("t.used_at")
      .where("t.expires_at", ">", knex.fn.now())
      .first("t.id", "t.user_id", "u.email");
    if (!pending) throw invalidResetToken();
    await this.limits.resetPasswordOf(normalizeEmail(pending.email));
    const passwordHash = await hashPassword(password);
    const generation = await knex.transaction(async (trx) => {
      // Consuming the token and checking it are one statement, so two concurrent resets cannot both use it.
      const [consumed] = await trx("password_reset_tokens")
        .where({ id: pending.id })
        .whereNull("used_at")
        .where("expires_at", ">", trx.fn.now())
        .update({ used_at: trx.fn.now() })
        .returning("user_id");
      if (!consumed) throw invalidResetToken();
      const [user] = await trx("users")
        .where({ id: consumed.user_id })
        .update({
          password_hash: passwordHash,
          token_generation: trx.raw("token_generation + 1"),
          updated_at: trx.fn.now(),
        })
        .returning("token_generation");
      return user.token_generation as number;
    });
    this.services.tokens.revokeBelow(pending.user_id, generation);
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
    const link = await createSetPasswordLink(trx, this.services.config, user.id, INVITATION_TTL_SECONDS);
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
          `<p><a href="${link}">Choose a password</a> within 7 days to sign in.</p>`,
      },
      trx,
    );
  }

  private async tokenFor(userId: string, workspaceId: string, generation: number): Promise<TokenResponse> {
    return { access_token: await this.services.tokens.issue(userId, workspaceId, generation), token_type: "bearer" };
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
