import type { Knex } from "knex";

/**
 * Firehose links stored before only http(s) links were accepted (src/lib/web-url.ts, docs/product-rules.md#firehose):
 * a mention's evidence whose URL has another scheme (`javascript:`, `data:`…) is deleted, so the event shows no
 * link rather than that one (its `source_url` falls back as for any event without a page), and the mention keeps its
 * row (it still deduplicates the post) without the link.
 */
const NOT_WEB = "!~* '^https?://'";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM evidence WHERE evidence_type = 'mention' AND source_url ${NOT_WEB}`);
  await knex.raw(`UPDATE firehose_mentions SET url = '' WHERE url ${NOT_WEB}`);
}

export async function down(): Promise<void> {
  // The links were hostile; nothing to restore.
}
