/** Small helpers shared by the bench scenarios: progress lines, bounded polling, statistics. */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const started = performance.now();

/** A progress line with the seconds since the bench started. */
export function progress(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${seconds}s] ${message}`);
}

export { sleep };

/**
 * Calls `check` every `intervalMs` until it returns a value other than `undefined`; throws after `timeoutMs`
 * (the number of attempts is bounded by the same deadline).
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  options: { intervalMs: number; timeoutMs: number; what: string },
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  const maxAttempts = Math.ceil(options.timeoutMs / options.intervalMs) + 1;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() >= deadline) break;
    await sleep(options.intervalMs);
  }
  throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`);
}

/** Runs `task` over `items` with at most `concurrency` in flight; rejects with the first failure. */
export async function forEachConcurrent<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  });
  await Promise.all(lanes);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** CPU time (user + system, seconds) a process has used so far, from /proc; `null` where /proc is unavailable. */
export function cpuSeconds(pid: number): number | null {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Measures how busy process `pid` was while `task` ran, as a share of one core (`null` without /proc). */
export async function withCpuShare<T>(
  pid: number,
  task: () => Promise<T>,
): Promise<{ value: T; cpuShare: number | null }> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const value = await task();
  const cpuAfter = cpuSeconds(pid);
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuShare = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / wallSeconds;
  return { value, cpuShare };
}
