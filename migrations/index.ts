/**
 * The ordered list of migrations. Imported statically (rather than discovered on disk) so the same code migrates
 * under tsx, vitest and compiled JavaScript alike. Add each new migration file here.
 */
import type { Knex } from "knex";
import * as foundation from "./20261122000100_foundation.js";
import * as detection from "./20261122000200_detection.js";
import * as alertRules from "./20261122000300_alert_rules.js";
import * as suppressions from "./20261122000400_suppressions.js";
import * as webhooks from "./20261122000500_webhooks.js";
import * as alertDeliveries from "./20261122000600_alert_deliveries.js";
import * as digests from "./20261122000700_digests.js";
import * as crm from "./20261122000800_crm.js";
import * as outgoingEmails from "./20261124000100_outgoing_emails.js";
import * as digestDeliveryClaims from "./20261124100000_digest_delivery_claims.js";
import * as authHardening from "./20261124110000_auth_hardening.js";
import * as accessChangeNotices from "./20261124120000_access_change_notices.js";
import * as fetchClaims from "./20261124130000_fetch_claims.js";
import * as chatMessages from "./20261124135000_chat_messages.js";
import * as billing from "./20261124140000_billing.js";
import * as demoWorkspace from "./20261124150000_demo_workspace.js";
import * as partnerApi from "./20261124160000_partner_api.js";
import * as displacement from "./20261124170000_displacement.js";
import * as firehose from "./20261124180000_firehose.js";
import * as supportInbox from "./20261124190000_support_inbox.js";
import * as eventSummaryModel from "./20261125000100_event_summary_model.js";
import * as supportWebhookSecret from "./20261128000100_support_webhook_secret.js";
import * as slackConnectedBy from "./20261128000200_slack_connected_by.js";
import * as paymentsEndedSubscriptions from "./20261128000300_payments_ended_subscriptions.js";
import * as childPlanFollowsPartner from "./20261128000400_child_plan_follows_partner.js";
import * as firehoseWebLinks from "./20261128000500_firehose_web_links.js";
import * as betaClaimsPerWorkspace from "./20261128000600_beta_claims_per_workspace.js";
import * as paymentsCheckoutSession from "./20261128000700_payments_checkout_session.js";
import * as sourceHealthAndLearnedRules from "./20261129000100_source_health_and_learned_rules.js";

export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Knex.Migration]> = [
  ["20261122000100_foundation", foundation],
  ["20261122000200_detection", detection],
  ["20261122000300_alert_rules", alertRules],
  ["20261122000400_suppressions", suppressions],
  ["20261122000500_webhooks", webhooks],
  ["20261122000600_alert_deliveries", alertDeliveries],
  ["20261122000700_digests", digests],
  ["20261122000800_crm", crm],
  ["20261124000100_outgoing_emails", outgoingEmails],
  ["20261124100000_digest_delivery_claims", digestDeliveryClaims],
  ["20261124110000_auth_hardening", authHardening],
  ["20261124120000_access_change_notices", accessChangeNotices],
  ["20261124130000_fetch_claims", fetchClaims],
  ["20261124135000_chat_messages", chatMessages],
  ["20261124140000_billing", billing],
  ["20261124150000_demo_workspace", demoWorkspace],
  ["20261124160000_partner_api", partnerApi],
  ["20261124170000_displacement", displacement],
  ["20261124180000_firehose", firehose],
  ["20261124190000_support_inbox", supportInbox],
  ["20261125000100_event_summary_model", eventSummaryModel],
  ["20261128000100_support_webhook_secret", supportWebhookSecret],
  ["20261128000200_slack_connected_by", slackConnectedBy],
  ["20261128000300_payments_ended_subscriptions", paymentsEndedSubscriptions],
  ["20261128000400_child_plan_follows_partner", childPlanFollowsPartner],
  ["20261128000500_firehose_web_links", firehoseWebLinks],
  ["20261128000600_beta_claims_per_workspace", betaClaimsPerWorkspace],
  ["20261128000700_payments_checkout_session", paymentsCheckoutSession],
  ["20261129000100_source_health_and_learned_rules", sourceHealthAndLearnedRules],
];
