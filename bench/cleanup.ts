/**
 * Everything the bench starts (Postgres, child processes, fixture servers, temp folders) registers how to undo it
 * here, right after it exists, so a failure at any step still leaves nothing behind.
 */
export class Cleanup {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  private running: Promise<string[]> | null = null;
  private finished = false;

  add(name: string, run: () => Promise<void> | void): void {
    const step = { name, run: async () => run() };
    // Registered after the cleanup ended (the bench kept going for a moment after a signal): undo it at once.
    if (this.finished) void step.run().catch(() => {});
    else this.steps.push(step);
  }

  /**
   * Undoes everything, newest first; one failing step does not stop the others. Returns the failures. A second call
   * (a signal arriving while the bench cleans up after a failure) waits for the first instead of racing it.
   */
  runAll(timeoutMs = 30_000): Promise<string[]> {
    return (this.running ??= this.undo(timeoutMs));
  }

  private async undo(timeoutMs: number): Promise<string[]> {
    const failures: string[] = [];
    // Steps added while this runs are picked up too: the loop ends only when none is left.
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          step.run(),
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (error) {
        failures.push(`${step.name}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
    this.finished = true;
    return failures;
  }
}
