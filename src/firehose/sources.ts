/**
 * The firehose's six sources (docs/product-rules.md#firehose), each a search API spoken in its provider's own wire
 * format: how to ask it for recent posts mentioning some terms, and how to read its answer into mentions. The runner
 * (src/firehose/run.ts) sends the requests through the project's guarded HTTP client and keeps only the posts that
 * really name a term: search engines stem, fuzz and match on fields nobody sees, and a mention that is not one would
 * be a false event.
 */
import { createHash } from "node:crypto";
import type { FirehoseSourceName } from "../config.js";
import { storable } from "../detection/fetch/page-text.js";
import { webUrl } from "../lib/web-url.js";

export interface Mention {
  /** The provider's id of the post, unique within the source. */
  externalId: string;
  /** Where a reader sees the post. */
  url: string;
  title: string;
  /** The post's text, plain. */
  text: string;
  author: string | null;
  postedAt: Date;
  /** Points, likes, comments and the like added up: what the event's severity is judged by. */
  engagement: number;
  /** The same, as a reader would say it: "120 points, 45 comments". */
  engagementText: string;
}

export interface SearchRequest {
  url: string;
  headers: Record<string, string>;
}

export interface SearchQuery {
  /** The competitor's name, aliases and domain. */
  terms: string[];
  /** Only posts from this instant on. */
  since: Date;
  /** The request's clock (the Podcast Index signs it). */
  now: Date;
}

export interface FirehoseSource {
  name: FirehoseSourceName;
  /** The provider's name, for titles and messages. */
  label: string;
  /** Whether the source can be searched without a token (Hacker News and GitHub can). */
  tokenOptional: boolean;
  /** The partner monitor type its mentions are seen under (docs/product-rules.md#partner-api). */
  monitorType: "social" | "news";
  /** The requests for one competitor: one per term where the API has no OR, one in all where it has. */
  requests(base: string, token: string | null, query: SearchQuery): SearchRequest[];
  /** The mentions in a 2xx answer's JSON body; throws on a body of the wrong shape. */
  parse(body: unknown): Mention[];
}

/** Posts asked for per request: one page of the provider's newest, enough for an hourly run. */
const PAGE_SIZE = 50;
const USER_AGENT = "RivalscopeFirehose/0.1 (+https://rivalscope.example/bot)";
const JSON_ACCEPT = { accept: "application/json", "user-agent": USER_AGENT };

export class SourceShapeError extends Error {}

const quoted = (term: string) => `"${term.replace(/"/g, "")}"`;
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);
const text = (value: unknown) => (typeof value === "string" ? value : "");

function list(value: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new SourceShapeError(`expected ${what} to be a list`);
  return value.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null);
}

/**
 * The mentions of each item of a list, read one item at a time: an item that cannot be read (a value no link can
 * hold, say) is dropped alone. A body of the wrong shape still fails the source (`list`, `field`): that is the
 * provider's answer, not one post (docs/product-rules.md#firehose).
 */
function eachItem(items: Record<string, unknown>[], read: (item: Record<string, unknown>) => Mention[]): Mention[] {
  return items.flatMap((item) => {
    try {
      return read(item);
    } catch {
      return [];
    }
  });
}

function field(body: unknown, key: string): unknown {
  if (typeof body !== "object" || body === null) throw new SourceShapeError("expected a JSON object");
  return (body as Record<string, unknown>)[key];
}

function date(value: unknown): Date | null {
  const parsed = typeof value === "number" ? new Date(value * 1000) : new Date(text(value));
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

/**
 * The character a numeric reference names, or U+FFFD for one no character has: NUL, a surrogate or anything beyond
 * U+10FFFF (as HTML's parser reads them). `String.fromCodePoint` throws on the last, and one post holding
 * `&#x110000;` would otherwise stop its source for every workspace.
 */
function fromReference(codePoint: number): string {
  const valid =
    Number.isSafeInteger(codePoint) &&
    codePoint > 0 &&
    codePoint <= 0x10ffff &&
    !(codePoint >= 0xd800 && codePoint <= 0xdfff);
  return valid ? String.fromCodePoint(codePoint) : "\ufffd";
}

/** Entities decoded and tags dropped: Hacker News and GitHub send HTML or markdown with HTML in it. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => fromReference(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => fromReference(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/**
 * Mentions with no id or no date are dropped: neither could be deduplicated nor placed in time. So are those without
 * an http(s) link (`url: null`, see src/lib/web-url.ts): the link becomes the event's evidence and `source_url`.
 * Strings are made storable (a lone surrogate becomes U+FFFD), so no post can fail the run's transaction.
 */
function mention(fields: Omit<Mention, "postedAt" | "url"> & { postedAt: Date | null; url: string | null }): Mention[] {
  if (!fields.externalId || !fields.postedAt || fields.url === null) return [];
  return [
    {
      ...fields,
      externalId: storable(fields.externalId),
      url: fields.url,
      title: storable(fields.title),
      text: storable(fields.text),
      author: fields.author === null ? null : storable(fields.author),
      postedAt: fields.postedAt,
    },
  ];
}

/** Hacker News through Algolia's `search_by_date`: stories and comments, newest first; one term per request. */
const hn: FirehoseSource = {
  name: "hn",
  label: "Hacker News",
  tokenOptional: true,
  monitorType: "social",
  requests: (base, _token, { terms, since }) =>
    terms.map((term) => {
      const query = new URLSearchParams({
        query: term,
        tags: "(story,comment)",
        numericFilters: `created_at_i>${seconds(since)}`,
        hitsPerPage: String(PAGE_SIZE),
      });
      return { url: `${base}/search_by_date?${query}`, headers: JSON_ACCEPT };
    }),
  parse: (body) =>
    eachItem(list(field(body, "hits"), "hits"), (hit) => {
      const points = count(hit.points);
      const comments = count(hit.num_comments);
      return mention({
        externalId: text(hit.objectID),
        url: `https://news.ycombinator.com/item?id=${encodeURIComponent(text(hit.objectID))}`,
        title: plainText(text(hit.title) || text(hit.story_title)),
        text: plainText([text(hit.story_text), text(hit.comment_text), text(hit.url)].filter(Boolean).join(" ")),
        author: text(hit.author) || null,
        postedAt: date(hit.created_at) ?? date(hit.created_at_i),
        engagement: points + comments,
        engagementText: `${plural(points, "point")}, ${plural(comments, "comment")}`,
      });
    }),
};

/** Reddit's search (OAuth API, bearer token): links, newest first; it has no "since", so the runner filters dates. */
const reddit: FirehoseSource = {
  name: "reddit",
  label: "Reddit",
  tokenOptional: false,
  monitorType: "social",
  requests: (base, token, { terms, since, now }) => {
    const hours = (now.getTime() - since.getTime()) / 3_600_000;
    const window = hours <= 1 ? "hour" : hours <= 24 ? "day" : hours <= 24 * 7 ? "week" : "month";
    const query = new URLSearchParams({
      q: terms.map(quoted).join(" OR "),
      sort: "new",
      t: window,
      type: "link",
      limit: String(PAGE_SIZE),
      raw_json: "1",
    });
    return [{ url: `${base}/search?${query}`, headers: { ...JSON_ACCEPT, authorization: `Bearer ${token}` } }];
  },
  parse: (body) =>
    eachItem(list(field(field(body, "data"), "children"), "data.children"), (child) => {
      const post = (child.data ?? {}) as Record<string, unknown>;
      const score = count(post.score);
      const comments = count(post.num_comments);
      const subreddit = text(post.subreddit);
      return mention({
        externalId: text(post.name) || text(post.id),
        // A permalink is a path on Reddit; anything else (`@evil.example/…` makes Reddit the user name) is no link.
        url: webUrl(`https://www.reddit.com${text(post.permalink)}`, { host: "www.reddit.com" }),
        title: text(post.title),
        text: [text(post.selftext), text(post.url)].filter(Boolean).join(" "),
        author: text(post.author) ? `u/${text(post.author)}${subreddit ? ` in r/${subreddit}` : ""}` : null,
        postedAt: date(post.created_utc),
        engagement: score + comments,
        engagementText: `${plural(score, "upvote")}, ${plural(comments, "comment")}`,
      });
    }),
};

/** X's recent search (v2, bearer token): the last 7 days at most, retweets left out. */
const x: FirehoseSource = {
  name: "x",
  label: "X",
  tokenOptional: false,
  monitorType: "social",
  requests: (base, token, { terms, since, now }) => {
    // The endpoint refuses a start_time older than 7 days; a few seconds of margin for the clocks.
    const earliest = new Date(now.getTime() - 7 * 86_400_000 + 60_000);
    const query = new URLSearchParams({
      query: `(${terms.map(quoted).join(" OR ")}) -is:retweet`,
      start_time: new Date(Math.max(since.getTime(), earliest.getTime())).toISOString(),
      max_results: String(PAGE_SIZE * 2),
      "tweet.fields": "created_at,public_metrics,author_id",
    });
    return [
      { url: `${base}/2/tweets/search/recent?${query}`, headers: { ...JSON_ACCEPT, authorization: `Bearer ${token}` } },
    ];
  },
  parse: (body) => {
    // No `data` at all when nothing matched (only `meta.result_count: 0`).
    const data = field(body, "data");
    if (data === undefined) return [];
    return eachItem(list(data, "data"), (post) => {
      const metrics = (post.public_metrics ?? {}) as Record<string, unknown>;
      const likes = count(metrics.like_count);
      const reposts = count(metrics.retweet_count) + count(metrics.quote_count);
      const replies = count(metrics.reply_count);
      const id = text(post.id);
      const body = text(post.text);
      return mention({
        externalId: id,
        url: `https://x.com/i/web/status/${encodeURIComponent(id)}`,
        title: body.length > 100 ? `${body.slice(0, 99)}…` : body,
        text: body,
        author: null,
        postedAt: date(post.created_at),
        engagement: likes + reposts + replies,
        engagementText: `${plural(likes, "like")}, ${plural(reposts, "repost")}, ${plural(replies, "reply", "replies")}`,
      });
    });
  },
};

/** YouTube Data API v3 search (API key): videos, newest first. Its search results carry no view counts. */
const youtube: FirehoseSource = {
  name: "youtube",
  label: "YouTube",
  tokenOptional: false,
  monitorType: "social",
  requests: (base, token, { terms, since }) => {
    const query = new URLSearchParams({
      part: "snippet",
      type: "video",
      order: "date",
      maxResults: String(PAGE_SIZE),
      q: terms.map(quoted).join("|"),
      publishedAfter: since.toISOString(),
      key: token ?? "",
    });
    return [{ url: `${base}/youtube/v3/search?${query}`, headers: JSON_ACCEPT }];
  },
  parse: (body) =>
    eachItem(list(field(body, "items"), "items"), (item) => {
      const id = (item.id ?? {}) as Record<string, unknown>;
      const snippet = (item.snippet ?? {}) as Record<string, unknown>;
      const videoId = text(id.videoId);
      return mention({
        externalId: videoId,
        url: `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`,
        title: plainText(text(snippet.title)),
        text: plainText(text(snippet.description)),
        author: text(snippet.channelTitle) || null,
        postedAt: date(snippet.publishedAt),
        engagement: 0,
        engagementText: "a new video",
      });
    }),
};

/** GitHub's issue and pull-request search (a token raises the rate limit but is not needed). */
const github: FirehoseSource = {
  name: "github",
  label: "GitHub",
  tokenOptional: true,
  monitorType: "social",
  requests: (base, token, { terms, since }) => {
    const query = new URLSearchParams({
      q: `${terms.map(quoted).join(" OR ")} created:>=${since.toISOString().slice(0, 19)}Z`,
      sort: "created",
      order: "desc",
      per_page: String(PAGE_SIZE),
    });
    const headers: Record<string, string> = {
      ...JSON_ACCEPT,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
    };
    if (token) headers.authorization = `Bearer ${token}`;
    return [{ url: `${base}/search/issues?${query}`, headers }];
  },
  parse: (body) =>
    eachItem(list(field(body, "items"), "items"), (item) => {
      const comments = count(item.comments);
      const reactions = count(((item.reactions ?? {}) as Record<string, unknown>).total_count);
      const user = (item.user ?? {}) as Record<string, unknown>;
      return mention({
        externalId: String(item.id ?? ""),
        url: webUrl(item.html_url),
        title: text(item.title),
        text: plainText(text(item.body)),
        author: text(user.login) || null,
        postedAt: date(item.created_at),
        engagement: comments + reactions,
        engagementText: `${plural(comments, "comment")}, ${plural(reactions, "reaction")}`,
      });
    }),
};

/**
 * The Podcast Index (`search/byperson`: episodes whose person tags, title or description name the term). Its token
 * is `key:secret`; each request is signed with sha1(key + secret + unix time), as its documentation asks.
 */
const podcast: FirehoseSource = {
  name: "podcast",
  label: "Podcast Index",
  tokenOptional: false,
  monitorType: "news",
  requests: (base, token, { terms, now }) => {
    const [key = "", secret = ""] = (token ?? "").split(":");
    const authDate = String(seconds(now));
    const headers = {
      ...JSON_ACCEPT,
      "x-auth-key": key,
      "x-auth-date": authDate,
      authorization: createHash("sha1").update(`${key}${secret}${authDate}`).digest("hex"),
    };
    return terms.map((term) => ({
      url: `${base}/search/byperson?${new URLSearchParams({ q: term, max: String(PAGE_SIZE), fulltext: "" })}`,
      headers,
    }));
  },
  parse: (body) =>
    eachItem(list(field(body, "items"), "items"), (item) =>
      mention({
        externalId: String(item.id ?? ""),
        url: webUrl(item.link) ?? webUrl(item.enclosureUrl),
        title: [text(item.feedTitle), text(item.title)].filter(Boolean).join(": "),
        text: plainText(text(item.description)),
        author: text(item.feedTitle) || null,
        postedAt: date(item.datePublished),
        engagement: 0,
        engagementText: "a new episode",
      }),
    ),
};

/** Every source, in the order `source_counts` lists them. */
export const FIREHOSE_SOURCES: readonly FirehoseSource[] = [hn, reddit, x, youtube, github, podcast];
