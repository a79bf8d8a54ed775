/**
 * The `slack` delivery channel (docs/product-rules.md#slack-channel): a workspace connects one Slack incoming webhook
 * (`npm run admin -- slack-connect`, docs/operations.md#admin-cli), and each event an immediate rule sends to Slack
 * becomes one `alert-slack` job that POSTs Slack's incoming-webhook JSON (`{text, blocks}`) to it through the one
 * outbound client (SSRF guard, timeouts).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { Knex } from "knex";
import { loadEventToDeliver } from "../delivery/event.js";
import { loadNoticeToDeliver } from "../delivery/notice.js";
import type { DeliveryDeps } from "../delivery/types.js";
import { QUEUES } from "../jobs/queues.js";
import { sealedPlace, secretBoxOf } from "../lib/secret-box.js";
import { FetchError } from "../lib/http-client.js";
import { assertLiteralAllowed, resolveChecked, type GuardPolicy, type Resolver } from "../lib/ssrf-guard.js";
import { PLANS, PLAN_NAMES, limitsOf, type PlanName } from "../workspaces/plans.js";
import { slackMessage, type SlackMessage } from "./messages.js";
import { noticeSlackMessage } from "./notice-messages.js";

/** Slack answers within a few seconds or not at all; a short timeout keeps a stuck call from holding a worker. */
const SLACK_TIMEOUT_MS = 10_000;
/** Longer than any URL Slack issues; bounds what an operator can store. */
const MAX_URL_LENGTH = 2048;

/**
 * A bad `slack-connect` input; its message is the one-line error the CLI prints, `reason` the part after the field's
 * name (what the partner API's 422 says).
 */
export class SlackConnectError extends Error {
  constructor(
    message: string,
    readonly reason: string = message,
  ) {
    super(message);
  }
}

const defaultResolver: Resolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * The normalised webhook URL, or SlackConnectError. https only, and the SSRF guard's address checks on the host
 * (literal or resolved), both lifted by ALLOW_PRIVATE_TARGETS=1 so tests can point at a fake on 127.0.0.1 over http.
 * The same guard runs again at every send (the DNS answer may change after it was stored).
 */
export async function validateSlackWebhookUrl(
  raw: string,
  options: { allowPrivateTargets: boolean; resolve?: Resolver; what?: string },
): Promise<string> {
  const invalid = (reason: string) =>
    new SlackConnectError(`invalid ${options.what ?? "--webhook-url"}: ${reason}`, reason);
  if (raw.length > MAX_URL_LENGTH) throw invalid(`longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(`not a URL: ${raw}`);
  }
  const httpAllowed = options.allowPrivateTargets && url.protocol === "http:";
  if (url.protocol !== "https:" && !httpAllowed) throw invalid("it must be an https:// URL");
  if (url.username || url.password) throw invalid("it must not contain a user name or password");
  if (!options.allowPrivateTargets) {
    const policy: GuardPolicy = { checkAddresses: true, exemptHosts: new Set() };
    try {
      assertLiteralAllowed(url.hostname, policy);
      await resolveChecked(url.hostname, options.resolve ?? defaultResolver, policy);
    } catch (error) {
      // BlockedTargetError / UnresolvableHostError: their messages already read "blocked: … is a private address".
      throw invalid(error instanceof Error ? error.message : String(error));
    }
  }
  return url.href;
}

/**
 * `slack-connect`: stores the workspace's incoming-webhook URL. Refused when the plan has no `slack` flag
 * (docs/product-rules.md#plans-and-limits: the `slack` channel needs it), so a connection never exists that could not
 * be used.
 */
export async function connectSlack(
  knex: Knex,
  options: { allowPrivateTargets: boolean; secretsKey: Buffer; resolve?: Resolver },
  workspaceId: string,
  rawUrl: string,
): Promise<{ workspace_id: string; slack_webhook_url: string }> {
  const workspace: { plan: PlanName } | undefined = await knex("workspaces").where({ id: workspaceId }).first("plan");
  if (!workspace) throw new SlackConnectError(`no workspace ${workspaceId}`);
  if (!limitsOf(workspace.plan).slack) {
    const plans = PLAN_NAMES.filter((plan) => PLANS[plan].limits.slack).map((plan) => PLANS[plan].label);
    throw new SlackConnectError(
      `the ${PLANS[workspace.plan].label} plan does not include Slack alerts (${plans.join(", ")} do)`,
    );
  }
  const url = await validateSlackWebhookUrl(rawUrl, options);
  // The URL is the credential (anyone holding it can post to the channel): stored sealed (src/lib/secret-box.ts).
  // Marked as the vendor's, which the partner API never replaces (docs/product-rules.md#partner-api).
  await knex("workspaces")
    .where({ id: workspaceId })
    .update({
      slack_webhook_url: secretBoxOf(options).seal(url, sealedPlace.slackWebhookUrl(workspaceId)),
      slack_connected_by: "vendor",
      updated_at: knex.fn.now(),
    });
  return { workspace_id: workspaceId, slack_webhook_url: url };
}

/** Slack's answer worth another try: rate limited or a server-side failure (timeouts and network errors too). */
function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The `alert-slack` job's rules, built from the worker's deps. 2xx marks the row `sent`; 429, 5xx and network failures
 * throw, so pg-boss retries with backoff (the row keeps `queued` and the last error), until the last attempt marks it
 * `failed`; any other answer (Slack's 400 invalid_payload, 403 action_prohibited, 404 no_service, 410
 * channel_is_archived) will not change on retry and marks it `failed` at once.
 */
export class SlackAlertDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  /** Posts the alert of delivery `deliveryId` (job `jobId` of the `alert-slack` queue). */
  async send(deliveryId: string, jobId: string): Promise<void> {
    const delivery: { id: string; event_id: string | null; notice_id: string | null; status: string } | undefined =
      await this.deps
        .knex("alert_deliveries")
        .where({ id: deliveryId, channel: "slack" })
        .first("id", "event_id", "notice_id", "status");
    // Already settled by an earlier run of this job (pg-boss delivers at least once).
    if (!delivery || delivery.status !== "queued") return;
    // An event's alert, or a source health notice's (docs/product-rules.md#source-health).
    const event = delivery.event_id
      ? await loadEventToDeliver(this.deps.knex, delivery.event_id)
      : await loadNoticeToDeliver(this.deps.knex, delivery.notice_id!);
    if (!event) return;
    const message =
      "kind" in event
        ? noticeSlackMessage(event, this.deps.config.publicBaseUrl)
        : slackMessage(event, this.deps.config.publicBaseUrl);
    if (!event.slack_webhook_url) {
      await this.settle(delivery.id, "failed", "no Slack webhook is connected to the workspace");
      return;
    }

    let webhookUrl: string;
    try {
      webhookUrl = secretBoxOf(this.deps.config).open(
        event.slack_webhook_url,
        sealedPlace.slackWebhookUrl(event.workspace_id),
      );
    } catch {
      // Sealed for another row (copied in) or under another SECRETS_KEY: never posted anywhere.
      await this.settle(delivery.id, "failed", "the stored Slack webhook cannot be opened; connect it again");
      return;
    }
    const failure = await this.post(message, webhookUrl);
    if (!failure) {
      await this.settle(delivery.id, "sent", null);
      this.deps.log.info({ event: event.id, delivery: delivery.id }, "slack alert sent");
      return;
    }
    if (failure.retryable && !(await this.isLastAttempt(jobId))) {
      await this.deps
        .knex("alert_deliveries")
        .where({ id: delivery.id, status: "queued" })
        .update({ error: failure.error });
      throw new Error(`Slack alert not delivered yet (${failure.error}); will retry`);
    }
    await this.settle(delivery.id, "failed", failure.error);
    this.deps.log.warn({ event: event.id, delivery: delivery.id, error: failure.error }, "slack alert failed");
    // Retries exhausted: failing the job too puts it on the dead-letter queue, where operators look.
    if (failure.retryable) throw new Error(`Slack alert failed after its retries: ${failure.error}`);
  }

  /** One POST of the message; null when Slack took it, otherwise why not and whether asking again may help. */
  private async post(message: SlackMessage, webhookUrl: string): Promise<{ error: string; retryable: boolean } | null> {
    try {
      const response = await this.deps.http.send(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
        timeoutMs: SLACK_TIMEOUT_MS,
      });
      if (response.status >= 200 && response.status < 300) return null;
      // Slack explains a refusal in a short plain-text body ("no_service", "invalid_payload"); the URL is a secret, so
      // only its host is named.
      const reason = response.body.trim().slice(0, 200);
      const host = new URL(webhookUrl).hostname;
      return {
        error: `HTTP ${response.status} from ${host}${reason ? `: ${reason}` : ""}`,
        retryable: retryableStatus(response.status),
      };
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      return { error: error.message, retryable: error.retryable };
    }
  }

  private async settle(id: string, status: "sent" | "failed", error: string | null): Promise<void> {
    const { knex } = this.deps;
    await knex("alert_deliveries")
      .where({ id, status: "queued" })
      .update({ status, error, sent_at: status === "sent" ? knex.fn.now() : null });
  }

  /** Whether pg-boss will not retry this job again (an unknown job, e.g. a direct call, counts as the last try). */
  private async isLastAttempt(jobId: string): Promise<boolean> {
    const job = await this.deps.jobs.boss.getJobById(QUEUES.alertSlack.name, jobId);
    return !job || job.retryCount >= job.retryLimit;
  }
}
