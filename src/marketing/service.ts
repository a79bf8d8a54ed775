/**
 * The marketing site's beacon (docs/product-rules.md#public-stats): each event becomes one structured line of the
 * application log and nothing is stored. A public endpoint that writes to the log is rate limited per client address,
 * so no client can flood the log (or the disk behind it).
 */
import type { Knex } from "knex";
import type { Logger } from "pino";
import { clientKey } from "../auth/limits.js";
import { tooManyRequests } from "../http/errors.js";
import type { Schemas } from "../http/schemas.js";
import { RateLimiter, type RateLimitRule } from "../lib/rate-limit.js";

/** Beacons per client address per minute (documented on `POST /marketing/events`). */
export const MARKETING_EVENTS_PER_MINUTE: Omit<RateLimitRule, "key"> = { limit: 120, windowSeconds: 60 };

export class MarketingBeacon {
  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
  ) {}

  /**
   * Counts the beacon against its client's limit (429 beyond it, nothing logged) and logs it. Only the contract's four
   * fields are logged, each as a JSON string, so a beacon cannot add fields or lines of its own to the log.
   */
  async track(event: Schemas["MarketingEvent"], ip: string): Promise<void> {
    const wait = await new RateLimiter(this.knex).hit({
      key: `marketing:client:${clientKey(ip)}`,
      ...MARKETING_EVENTS_PER_MINUTE,
    });
    if (wait !== null) throw tooManyRequests(wait, "Too many marketing events from this address; try again later");
    this.log.info(
      {
        marketing_event: {
          event: event.event,
          location: event.location,
          event_id: event.event_id ?? null,
          source_hostname: event.source_hostname ?? null,
        },
      },
      "marketing event",
    );
  }
}
