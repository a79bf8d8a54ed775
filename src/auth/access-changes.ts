/**
 * The feed of access changes (docs/architecture.md#consistency): one dedicated Postgres session per API process
 * LISTENs on `access_changed`, which triggers on users, memberships and workspaces notify whenever a cached caller's
 * membership, role, admin flag, plan or token generation changes (migrations/20261124120000_access_change_notices.ts).
 * The authenticator drops the callers a notice names, so a change takes effect on the next request in every process.
 *
 * Notices sent while the session is down are lost, so the feed reports `listening` only while it holds a live,
 * listening session; the authenticator caches nothing otherwise, and forgets everything when the session drops or
 * comes back. The session reconnects on its own, waiting 0.5 s, then twice as long each time, at most 30 s.
 */
import pg from "pg";
import type { Logger } from "pino";

export const ACCESS_CHANNEL = "access_changed";

/** One notice: the user or the workspace whose callers are stale. */
export type AccessChange = { userId: string; workspaceId?: never } | { workspaceId: string; userId?: never };

export interface AccessChangeSubscriber {
  /** A change to the callers of a user or a workspace. */
  changed(change: AccessChange): void;
  /** Notices may have been missed (the session dropped or reconnected): every cached caller is suspect. */
  reset(): void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class AccessChangeFeed {
  private client: pg.Client | null = null;
  private subscribers: AccessChangeSubscriber[] = [];
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private live = false;
  /** Notices received so far (tests wait on it). */
  received = 0;

  constructor(
    private readonly connectionString: string,
    private readonly log: Logger,
  ) {}

  /** True while notices are being received: only then may callers be cached. */
  get listening(): boolean {
    return this.live;
  }

  subscribe(subscriber: AccessChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** Connects and listens; resolves once listening, or after a failed first try (the feed keeps retrying). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.live = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 5000,
      application_name: "rivalscope access-change feed",
    });
    // A session that fails after it started: 'error' then 'end', or 'end' alone when the server closes it.
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, null));
    client.on("notification", (message) => {
      if (message.channel === ACCESS_CHANNEL) this.announce(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${ACCESS_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    // Changes made before LISTEN took effect were never sent to this session.
    for (const subscriber of this.subscribers) subscriber.reset();
    this.live = true;
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (this.client !== null && this.client !== client) return;
    const wasLive = this.live;
    this.live = false;
    this.client = null;
    // This session is done with: its later events (an 'end' after the 'error') must not count as a second loss.
    client.removeAllListeners();
    client.on("error", () => undefined);
    client.end().catch(() => undefined);
    if (this.closed || this.retryTimer) return;
    if (wasLive) for (const subscriber of this.subscribers) subscriber.reset();
    this.log.warn({ err: error ?? undefined, retryInMs: this.retryMs }, "access-change feed lost its session");
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private announce(payload: string | undefined): void {
    this.received += 1;
    let change: AccessChange | null = null;
    try {
      const parsed = JSON.parse(payload ?? "") as { user_id?: unknown; workspace_id?: unknown };
      if (typeof parsed.user_id === "string") change = { userId: parsed.user_id };
      else if (typeof parsed.workspace_id === "string") change = { workspaceId: parsed.workspace_id };
    } catch {
      change = null;
    }
    // A notice this code cannot read still means something changed: forget everything rather than guess.
    for (const subscriber of this.subscribers) {
      if (change) subscriber.changed(change);
      else subscriber.reset();
    }
  }
}
