/**
 * Bench data made directly in the database: tenants (workspace, owner, token) and a large events table, inserted by
 * Postgres itself with `INSERT … SELECT generate_series` (1M rows in well under a minute:
 * docs/architecture.md#performance-targets).
 */
import type { Knex } from "knex";
import { hashPassword } from "../src/auth/passwords.js";
import type { TokenService } from "../src/auth/tokens.js";
import type { PlanName } from "../src/workspaces/plans.js";

export interface Tenant {
  workspaceId: string;
  userId: string;
  email: string;
  /** `Authorization` header value. */
  bearer: string;
}

// One cheap hash for every bench user: nobody logs in with a password, but the column is required.
const passwordHash = hashPassword("bench password, never used", { N: 1024, r: 8, p: 1 });

/** A workspace on `plan` with one owner, and a bearer token issued by the service's TokenService. */
export async function createTenant(knex: Knex, tokens: TokenService, name: string, plan: PlanName): Promise<Tenant> {
  const [workspace] = await knex("workspaces").insert({ name, plan }).returning("id");
  const email = `owner@${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.bench.test`;
  const [user] = await knex("users")
    .insert({ email, name: `${name} owner`, password_hash: await passwordHash })
    .returning("id");
  await knex("memberships").insert({ workspace_id: workspace.id, user_id: user.id, role: "owner" });
  const token = await tokens.issue(user.id, workspace.id);
  return { workspaceId: workspace.id, userId: user.id, email, bearer: `Bearer ${token}` };
}

const COMPETITOR_NAMES = [
  "Acme",
  "Globex",
  "Initech",
  "Umbrella Analytics",
  "Hooli",
  "Pied Piper",
  "Stark Cloud",
  "Wayne Data",
  "Tyrell Systems",
  "Soylent CRM",
];

export interface EventLoad {
  /** Workspaces in the order events are assigned: the first gets `firstCount` events, each other `otherCount`. */
  workspaceIds: string[];
  firstCount: number;
  otherCount: number;
  /** Events are spread evenly over the last `days` days. */
  days: number;
}

/**
 * Inserts the events of `load` (10 competitors per workspace, made here). Titles, summaries and the other texts follow
 * the wording of src/detection/classify/classify.ts, with lengths like real events, so the feed's JSON has a realistic size.
 * Two INSERTs run side by side, one per half of the series: the load is CPU-bound in Postgres and the machine has
 * two cores.
 */
export async function loadEvents(knex: Knex, load: EventLoad): Promise<number> {
  const competitors: { workspace_index: number; competitor_index: number; id: string; workspace_id: string }[] = [];
  for (const [workspaceIndex, workspaceId] of load.workspaceIds.entries()) {
    const rows = await knex("competitors")
      .insert(
        COMPETITOR_NAMES.map((name) => ({
          workspace_id: workspaceId,
          name,
          domain: `${name.toLowerCase().replace(/[^a-z]+/g, "")}.example`,
        })),
      )
      .returning(["id", "name"]);
    for (const row of rows) {
      competitors.push({
        workspace_index: workspaceIndex,
        competitor_index: COMPETITOR_NAMES.indexOf(row.name),
        id: row.id,
        workspace_id: workspaceId,
      });
    }
  }
  const total = load.firstCount + load.otherCount * (load.workspaceIds.length - 1);
  const half = Math.floor(total / 2);
  const ranges: [number, number][] = [
    [0, half],
    [half, total],
  ];
  const inserted = await Promise.all(
    ranges.map(async ([from, to]) => {
      const result = await knex.raw(INSERT_EVENTS, [
        COMPETITOR_NAMES,
        competitors.map((c) => c.workspace_index),
        competitors.map((c) => c.competitor_index),
        competitors.map((c) => c.id),
        competitors.map((c) => c.workspace_id),
        load.firstCount,
        load.firstCount,
        load.otherCount,
        COMPETITOR_NAMES.length,
        load.days * 86_400_000,
        from,
        to - 1,
      ]);
      return result.rowCount as number;
    }),
  );
  // Fresh statistics, so the planner sees the real table (docs/architecture.md#performance-targets: ANALYZE after
  // loading).
  await knex.raw("ANALYZE events");
  return inserted.reduce((a, b) => a + b, 0);
}

/**
 * Row `n` of the series is one event. Its workspace follows from `n` (the first workspace takes the first
 * `firstCount` rows), its competitor from `n`, and its time from a multiplicative hash of `n`, so times are spread
 * over the window without a volatile function. Each competitor has three sources. Diff ids ascend with `n` so that
 * the unique (diff_id, subject) index grows at its right edge: random ids there made the load a third slower, and
 * the feed query never reads them. Event ids stay random (the column default), as in production.
 */
const INSERT_EVENTS = `
WITH competitor AS (
  SELECT t.workspace_index, t.competitor_index, t.id, t.workspace_id, (?::text[])[t.competitor_index + 1] AS name
  FROM unnest(?::int[], ?::int[], ?::uuid[], ?::uuid[]) AS t(workspace_index, competitor_index, id, workspace_id)
),
series AS (
  SELECT n,
         n % 4 AS kind,
         CASE WHEN n < ? THEN 0 ELSE 1 + (n - ?) / ? END AS workspace_index,
         (n / 7) % ? AS competitor_index,
         now() - ((n::bigint * 2654435761) % ?) * interval '1 millisecond' AS detected_at,
         19 + (n % 9) * 10 AS old_price,
         (1 + n % 3) * 10 AS rise,
         (ARRAY['Starter', 'Pro', 'Team', 'Business', 'Scale', 'Growth'])[1 + n % 6] AS plan,
         (ARRAY['SSO with SAML for every plan', 'Audit log export to S3', 'Two-way Salesforce sync',
                'Usage-based billing for API calls', 'AI summaries of sales calls', 'Role-based access control',
                'A public reporting API', 'HubSpot deal enrichment', 'SOC 2 Type II report in the trust center',
                'Custom dashboards with scheduled exports'])[1 + (n / 4) % 10] AS feature,
         (ARRAY['engineering', 'sales', 'marketing', 'customer success', 'product'])[1 + (n / 4) % 5] AS department,
         (ARRAY['The revenue platform for modern go-to-market teams', 'Competitive intelligence on autopilot',
                'Win more deals with real-time market insights', 'The all-in-one workspace for B2B growth',
                'Know every move your market makes, as it happens'])[1 + (n / 4) % 5] AS headline
  FROM generate_series(?::int, ?::int) AS n
)
INSERT INTO events (workspace_id, competitor_id, source_id, diff_id, event_type, severity, status, title, summary,
                    impact_summary, confidence_score, confidence_reasoning, is_inferred, tags_json, subject,
                    observed_at, detected_at, created_at)
SELECT c.workspace_id,
       c.id,
       md5(c.id::text || (s.n % 3))::uuid,
       ('00000000-0000-4000-8000-' || lpad(to_hex(s.n), 12, '0'))::uuid,
       (ARRAY['pricing_change', 'product_change', 'hiring_change', 'narrative_change'])[1 + s.kind],
       (ARRAY['low', 'medium', 'medium', 'high', 'critical'])[1 + (s.n / 4) % 5],
       (ARRAY['new', 'new', 'new', 'acknowledged', 'dismissed'])[1 + (s.n / 3) % 5],
       CASE s.kind
         WHEN 0 THEN format('%s raised %s from $%s to $%s/month', c.name, s.plan, s.old_price, s.old_price + s.rise)
         WHEN 1 THEN format('%s shipped: %s', c.name, s.feature)
         WHEN 2 THEN format('%s opened %s %s roles', c.name, 2 + s.n % 7, s.department)
         ELSE format('%s changed its homepage headline to "%s"', c.name, s.headline)
       END,
       CASE s.kind
         WHEN 0 THEN format('%s''s %s plan now costs $%s/month, up from $%s/month (+%s%%). Annual billing still '
                            'shows a two-month discount, and the plan''s feature list is unchanged.',
                            c.name, s.plan, s.old_price + s.rise, s.old_price, round(100.0 * s.rise / s.old_price))
         WHEN 1 THEN format('New changelog entry "%s" on %s''s changelog. The release notes say it is generally '
                            'available on all paid plans from today, with a migration guide for existing customers.',
                            s.feature, c.name)
         WHEN 2 THEN format('%s posted %s new %s roles on its careers page, including two senior positions; '
                            'most are remote within Europe and North America.', c.name, 2 + s.n % 7, s.department)
         ELSE format('The headline of %s''s homepage now reads "%s". The subheading and the main call to action '
                     'changed with it, from a free trial to booking a demo.', c.name, s.headline)
       END,
       CASE s.kind
         WHEN 0 THEN 'Prospects comparing on price now see a wider gap: lead with total cost of ownership in open deals.'
         WHEN 1 THEN 'A feature you may have been winning on is now on their side: update the battlecard before '
                     'your next competitive call.'
         WHEN 2 THEN 'Hiring in this team usually precedes a push in the area within two quarters.'
         ELSE 'New positioning often comes with a new ideal customer profile: check which of your segments it targets.'
       END,
       round((0.55 + (s.n % 41) / 100.0)::numeric, 2)::float8,
       CASE s.kind
         WHEN 0 THEN 'The plan was read from a pricing card (name, price and features in one block).'
         WHEN 1 THEN 'The entry was read from the changelog''s list of releases, with its title and date.'
         WHEN 2 THEN 'The postings were read from the JSON-LD JobPosting data of the careers page.'
         ELSE 'The headline is the page''s first-level heading, compared word by word with the previous fetch.'
       END,
       (0.55 + (s.n % 41) / 100.0) < 0.7,
       jsonb_build_array((ARRAY['pricing', 'product', 'hiring', 'narrative'])[1 + s.kind]),
       'bench:' || s.n,
       s.detected_at - interval '3 minutes',
       s.detected_at,
       s.detected_at
FROM series s
JOIN competitor c USING (workspace_index, competitor_index)`;
