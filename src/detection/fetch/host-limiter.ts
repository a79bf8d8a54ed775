import { Slots } from "../../lib/slots.js";

/**
 * At most `limit` concurrent fetches per host in this process, so a competitor's site sees a polite crawler even
 * when many of its sources are due at once (the scheduler also spaces them out in time).
 */
export class HostLimiter {
  private readonly hosts = new Map<string, Slots>();

  constructor(private readonly limit = 2) {}

  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    let slots = this.hosts.get(host);
    if (!slots) {
      slots = new Slots(this.limit);
      this.hosts.set(host, slots);
    }
    try {
      return await slots.run(task);
    } finally {
      // A host nobody fetches any more is forgotten: the map holds only hosts in use.
      if (slots.idle) this.hosts.delete(host);
    }
  }
}

/** The host a source's fetches are spaced and limited by (its URL's host, lowercased; the URL itself if unparsable). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
