/**
 * The firehose's six search APIs as one real HTTP server on 127.0.0.1, each under its own base path
 * (`<baseUrl>/hn`, `/reddit`, …), speaking its provider's wire format: Algolia's HN `search_by_date`, Reddit's OAuth
 * `search` listing, X's v2 recent search, YouTube Data v3 search, GitHub's issue search and the Podcast Index's
 * `search/byperson`, each with its own credential check (Bearer, `key=` or the Podcast Index's signed headers).
 * Tests add posts; a search answers the posts whose text contains one of the query's terms, newest first, like the
 * real engines (which also match loosely: the runner must check the mention itself). Every request is recorded.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeSourceName = "hn" | "reddit" | "x" | "youtube" | "github" | "podcast";

export interface FakePost {
  id: string;
  title: string;
  text: string;
  postedAt: Date;
  /** Points / upvotes / likes / reactions. */
  score?: number;
  comments?: number;
  author?: string;
  /** The post's link as the provider sends it (GitHub's `html_url`, a podcast episode's `link`), when not the usual one. */
  link?: string;
  /** Reddit's `permalink`, when not the usual one. */
  permalink?: string;
}

export interface FirehoseRequest {
  source: FakeSourceName;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export const FAKE_TOKENS = {
  reddit: "reddit-token",
  x: "x-bearer",
  youtube: "youtube-key",
  github: "github-token",
  podcast: "podkey:podsecret",
} as const;

export class FakeFirehose {
  readonly requests: FirehoseRequest[] = [];
  private readonly posts = new Map<FakeSourceName, FakePost[]>();
  private readonly failures = new Map<FakeSourceName, number>();
  private server: Server | null = null;
  baseUrl = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://fake");
      const [, source, ...rest] = url.pathname.split("/");
      const path = `/${rest.join("/")}`;
      const name = source as FakeSourceName;
      this.requests.push({ source: name, path, query: url.searchParams, headers: req.headers });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const failure = this.failures.get(name);
      if (failure) return reply(failure, { message: "scripted failure" });
      const refusal = this.authRefusal(name, url.searchParams, req.headers);
      if (refusal) return reply(401, { message: refusal });
      const route = ROUTES[name];
      if (!route || route.path !== path) return reply(404, { message: `no route ${url.pathname}` });
      const terms = route.terms(url.searchParams);
      const since = route.since(url.searchParams);
      const matches = (this.posts.get(name) ?? [])
        .filter((post) => terms.some((term) => `${post.title} ${post.text}`.toLowerCase().includes(term.toLowerCase())))
        .filter((post) => !since || post.postedAt > since)
        .sort((a, b) => b.postedAt.getTime() - a.postedAt.getTime());
      reply(200, route.body(matches));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The FIREHOSE_* settings pointing every source at this server, with the credentials it accepts. */
  env(options: { withoutTokens?: FakeSourceName[] } = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of ["hn", "reddit", "x", "youtube", "github", "podcast"] as const) {
      env[`FIREHOSE_${name.toUpperCase()}_API_BASE`] = `${this.baseUrl}/${name}`;
      const token = name === "hn" ? null : FAKE_TOKENS[name];
      if (token && !options.withoutTokens?.includes(name)) env[`FIREHOSE_${name.toUpperCase()}_TOKEN`] = token;
    }
    return env;
  }

  add(source: FakeSourceName, post: FakePost): void {
    this.posts.set(source, [...(this.posts.get(source) ?? []), post]);
  }

  /** Every request to `source` answers `status` until `clearFailure`. */
  fail(source: FakeSourceName, status: number): void {
    this.failures.set(source, status);
  }

  clearFailure(source: FakeSourceName): void {
    this.failures.delete(source);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private authRefusal(source: FakeSourceName, query: URLSearchParams, headers: IncomingHttpHeaders): string | null {
    switch (source) {
      case "hn":
        return null;
      case "github":
        // Anonymous search is allowed; a token, when sent, must be the right one.
        return headers.authorization && headers.authorization !== `Bearer ${FAKE_TOKENS.github}`
          ? "Bad credentials"
          : null;
      case "youtube":
        return query.get("key") === FAKE_TOKENS.youtube ? null : "API key not valid";
      case "podcast": {
        const [key, secret] = FAKE_TOKENS.podcast.split(":");
        const date = String(headers["x-auth-date"] ?? "");
        const expected = createHash("sha1").update(`${key}${secret}${date}`).digest("hex");
        const fresh = Math.abs(Date.now() / 1000 - Number(date)) < 300;
        return headers["x-auth-key"] === key && headers.authorization === expected && fresh ? null : "unauthorized";
      }
      default:
        return headers.authorization === `Bearer ${FAKE_TOKENS[source]}` ? null : "Unauthorized";
    }
  }
}

interface Route {
  path: string;
  terms(query: URLSearchParams): string[];
  since(query: URLSearchParams): Date | null;
  body(posts: FakePost[]): unknown;
}

/** `"a" OR "b"`, `"a"|"b"` and plain terms, as the real engines read them. */
function orTerms(raw: string): string[] {
  const quoted = [...raw.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  return quoted.length > 0 ? quoted : [raw.trim()];
}

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

const ROUTES: Record<FakeSourceName, Route> = {
  hn: {
    path: "/search_by_date",
    terms: (q) => [q.get("query") ?? ""],
    since: (q) => {
      const match = /created_at_i>(\d+)/.exec(q.get("numericFilters") ?? "");
      return match ? new Date(Number(match[1]) * 1000) : null;
    },
    body: (posts) => ({
      hits: posts.map((p) => ({
        objectID: p.id,
        title: p.title,
        story_text: p.text,
        author: p.author ?? "pg",
        points: p.score ?? 0,
        num_comments: p.comments ?? 0,
        created_at: p.postedAt.toISOString(),
        created_at_i: unix(p.postedAt),
        _tags: ["story"],
      })),
      nbHits: posts.length,
      page: 0,
      hitsPerPage: 50,
    }),
  },
  reddit: {
    path: "/search",
    terms: (q) => orTerms(q.get("q") ?? ""),
    since: () => null,
    body: (posts) => ({
      kind: "Listing",
      data: {
        after: null,
        children: posts.map((p) => ({
          kind: "t3",
          data: {
            id: p.id,
            name: `t3_${p.id}`,
            title: p.title,
            selftext: p.text,
            permalink: p.permalink ?? `/r/saas/comments/${p.id}/post/`,
            url: `https://www.reddit.com/r/saas/comments/${p.id}/post/`,
            subreddit: "saas",
            author: p.author ?? "someone",
            score: p.score ?? 0,
            num_comments: p.comments ?? 0,
            created_utc: unix(p.postedAt),
          },
        })),
      },
    }),
  },
  x: {
    path: "/2/tweets/search/recent",
    terms: (q) => orTerms(q.get("query") ?? ""),
    since: (q) => (q.get("start_time") ? new Date(q.get("start_time")!) : null),
    body: (posts) =>
      posts.length === 0
        ? { meta: { result_count: 0 } }
        : {
            data: posts.map((p) => ({
              id: p.id,
              text: `${p.title} ${p.text}`.trim(),
              created_at: p.postedAt.toISOString(),
              author_id: "2244994945",
              edit_history_tweet_ids: [p.id],
              public_metrics: {
                retweet_count: 0,
                reply_count: p.comments ?? 0,
                like_count: p.score ?? 0,
                quote_count: 0,
              },
            })),
            meta: { result_count: posts.length, newest_id: posts[0]!.id, oldest_id: posts.at(-1)!.id },
          },
  },
  youtube: {
    path: "/youtube/v3/search",
    terms: (q) => (q.get("q") ?? "").split("|").flatMap(orTerms),
    since: (q) => (q.get("publishedAfter") ? new Date(q.get("publishedAfter")!) : null),
    body: (posts) => ({
      kind: "youtube#searchListResponse",
      pageInfo: { totalResults: posts.length, resultsPerPage: 50 },
      items: posts.map((p) => ({
        kind: "youtube#searchResult",
        id: { kind: "youtube#video", videoId: p.id },
        snippet: {
          publishedAt: p.postedAt.toISOString(),
          title: p.title,
          description: p.text,
          channelTitle: p.author ?? "A channel",
        },
      })),
    }),
  },
  github: {
    path: "/search/issues",
    terms: (q) => orTerms((q.get("q") ?? "").replace(/created:\S+/, "")),
    since: (q) => {
      const match = /created:>=(\S+)/.exec(q.get("q") ?? "");
      return match ? new Date(match[1]!) : null;
    },
    body: (posts) => ({
      total_count: posts.length,
      incomplete_results: false,
      items: posts.map((p) => ({
        id: Number(p.id),
        number: 7,
        html_url: p.link ?? `https://github.com/acme/sdk/issues/${p.id}`,
        title: p.title,
        body: p.text,
        user: { login: p.author ?? "octocat" },
        created_at: p.postedAt.toISOString(),
        comments: p.comments ?? 0,
        reactions: { total_count: p.score ?? 0 },
      })),
    }),
  },
  podcast: {
    path: "/search/byperson",
    terms: (q) => [q.get("q") ?? ""],
    since: () => null,
    body: (posts) => ({
      status: "true",
      items: posts.map((p) => ({
        id: Number(p.id),
        title: p.title,
        link: p.link ?? `https://podcasts.example/episodes/${p.id}`,
        description: p.text,
        datePublished: unix(p.postedAt),
        feedTitle: p.author ?? "SaaS Weekly",
        feedId: 920666,
      })),
      count: posts.length,
      query: "",
      description: "Found matching items.",
    }),
  },
};
