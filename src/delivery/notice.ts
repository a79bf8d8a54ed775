/** The one query that loads a source health notice to deliver (see NoticeToDeliver). */
import type { Knex } from "knex";
import { acrossWorkspaces } from "../db/tenancy.js";
import { noticeTitle, pageLabel } from "../sources/health.js";
import type { NoticeToDeliver } from "./types.js";

type NoticeRow = Omit<NoticeToDeliver, "kind" | "title">;

/**
 * The notices found, by id, in whichever workspace they are: the delivery workers hold only the id their job (or its
 * row) names. A notice deleted since (its source, competitor or workspace went) is absent.
 */
export async function loadNoticesToDeliver(
  knex: Knex | Knex.Transaction,
  noticeIds: string[],
): Promise<Map<string, NoticeToDeliver>> {
  if (noticeIds.length === 0) return new Map();
  const { rows } = await acrossWorkspaces(knex).raw<NoticeRow>(
    `SELECT n.id, n.workspace_id, n.notice_type, n.reason, n.detail, n.action, n.created_at,
            s.id AS source_id, s.url AS source_url, s.source_type, s.health_state,
            c.id AS competitor_id, c.name AS competitor_name, c.domain AS competitor_domain,
            w.name AS workspace_name, w.plan, w.slack_webhook_url
       FROM source_notices n
       JOIN sources s ON s.id = n.source_id
       JOIN competitors c ON c.id = n.competitor_id
       JOIN workspaces w ON w.id = n.workspace_id
      WHERE n.id = ANY(?::uuid[])`,
    [noticeIds],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        ...row,
        kind: "notice" as const,
        title: noticeTitle(row.notice_type, pageLabel(row.competitor_name, row.source_type, row.source_url)),
      },
    ]),
  );
}

export async function loadNoticeToDeliver(
  knex: Knex | Knex.Transaction,
  noticeId: string,
): Promise<NoticeToDeliver | null> {
  return (await loadNoticesToDeliver(knex, [noticeId])).get(noticeId) ?? null;
}
