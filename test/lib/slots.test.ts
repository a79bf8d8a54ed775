/** The one slot semaphore (src/lib/slots.ts) behind the per-host fetch limit and the browser's pages. */
import { describe, expect, it } from "vitest";
import { Slots } from "../../src/lib/slots.js";

describe("slots", () => {
  it("holds at most `limit` at once and hands a freed place to the first waiter", async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) =>
      slots.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(name);
        running -= 1;
      });
    await Promise.all(["a", "b", "c", "d", "e"].map(task));
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual(["c", "d", "e"]);
    expect(slots.idle).toBe(true);
  });

  it("gives up a wait after waitMs, holding nothing, and leaves the queue to the others", async () => {
    const slots = new Slots(1);
    expect(await slots.acquire()).toBe(true);
    expect(await slots.acquire(20)).toBe(false);
    const later = slots.acquire(1_000);
    slots.release();
    expect(await later).toBe(true);
    slots.release();
    expect(slots.idle).toBe(true);
  });
});
