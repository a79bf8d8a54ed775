/**
 * What happens to each source health notice (the `source-notice-created` job, queued in the transaction that moved the
 * source's state): immediate alerts and webhooks, each idempotent per recipient or subscription, so a retried job
 * re-runs them safely. Never the CRM: a source that stops being read is the workspace's own business, not a
 * competitor's move (docs/product-rules.md#source-health).
 */
import { NoticeAlerts } from "../alerts/notices.js";
import { NoticeWebhooks } from "../webhooks/notices.js";
import { loadNoticeToDeliver } from "./notice.js";
import type { DeliveryDeps } from "./types.js";

export class NoticeFanOut {
  constructor(private readonly deps: DeliveryDeps) {}

  async deliver(noticeId: string): Promise<void> {
    const notice = await loadNoticeToDeliver(this.deps.knex, noticeId);
    // Deleted since with its source, competitor or workspace: nothing to tell.
    if (!notice) return;
    await new NoticeAlerts(this.deps).consume(notice);
    await new NoticeWebhooks(this.deps).consume(notice);
  }
}
