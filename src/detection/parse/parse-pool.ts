/**
 * Parsing off the event loop (docs/product-rules.md#detection). Every parse of a fetched body (a tracked page or
 * feed, a competitor's homepage, sitemap or candidate pages) runs in a small pool of worker threads, one task per
 * thread at a time, within a time budget: a thread still busy with one page when its budget runs out is terminated
 * and replaced, and that page fails with "page too complex to parse within 5 s". A hostile page can therefore cost
 * one thread at most the budget, and never delays the requests and jobs the event loop serves.
 *
 * Threads start when the first task arrives (a process that parses nothing starts none), an idle thread does not
 * keep the process alive, and close() ends them. The budget counts from the moment a thread takes the task: time
 * spent waiting for a free thread is not the page's.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { PageError } from "../fetch/page-text.js";
import type { ParseKind, ParseTasks } from "./parse-tasks.js";
import type { ReplyMessage, TaskMessage } from "./parse-worker.js";

export interface ParsePoolOptions {
  /** Time one task may take in its thread (PARSE_BUDGET_MS, docs/operations.md#environment-variables). */
  budgetMs: number;
  /** Threads at most; default 2, fewer on a machine with fewer cores to spare. */
  threads?: number;
  /** Heap one thread may use; past it the thread dies and the page fails, not the process. Default 1024. */
  maxHeapMb?: number;
}

/** A page whose parsing did not finish within the budget. */
export class ParseBudgetError extends PageError {}

/** How long a new thread may take to load the parsers (tsx compiles them on a first run). */
const START_TIMEOUT_MS = 120_000;

/** Two threads at most: the machines this runs on have two cores, and the event loop needs one of them too. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

/** "5 s", "0.5 s", "1.25 s": the budget as the failure message states it. */
export function formatBudget(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

interface Task {
  id: number;
  kind: ParseKind;
  input: unknown;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

export class ParsePool {
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  private readonly maxThreads: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ParsePoolOptions) {
    this.maxThreads = Math.max(1, options.threads ?? defaultThreads());
  }

  /** The page's message when a task overruns: "page too complex to parse within 5 s". */
  get budgetMessage(): string {
    return `page too complex to parse within ${formatBudget(this.options.budgetMs)}`;
  }

  /** Runs one task in a thread. Rejects with ParseBudgetError past the budget, with PageError if the thread dies. */
  run<K extends ParseKind>(kind: K, input: ParseTasks[K]["input"]): Promise<ParseTasks[K]["output"]> {
    if (this.closed) return Promise.reject(new Error("the parse pool is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, kind, input, resolve: resolve as (output: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Ends every thread; tasks still queued or running reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error("the parse pool is closed"));
    await Promise.all(
      this.threads.splice(0).map((thread) => {
        if (thread.timer) clearTimeout(thread.timer);
        thread.task?.reject(new Error("the parse pool is closed"));
        return thread.worker.terminate();
      }),
    );
  }

  /** Hands queued tasks to idle threads, starting a thread when all are busy and there is room for one. */
  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (thread.ready && !thread.task) this.assign(thread, this.queue.shift()!);
    }
    const starting = this.threads.filter((thread) => !thread.ready).length;
    if (this.queue.length > starting && this.threads.length < this.maxThreads) this.start();
  }

  private assign(thread: Thread, task: Task): void {
    thread.task = task;
    thread.worker.ref();
    thread.timer = setTimeout(() => this.overrun(thread), this.options.budgetMs);
    thread.worker.postMessage({ id: task.id, kind: task.kind, input: task.input } satisfies TaskMessage);
  }

  private start(): void {
    const worker = new Worker(new URL("./parse-worker-boot.mjs", import.meta.url), {
      // Parsing allocates short-lived nodes and strings by the million: a 64 MB young generation (a worker's default
      // is smaller) cut the worst hostile page from 4.6 s to 4.0 s in `npm run bench -- extraction`.
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb ?? 1024, maxYoungGenerationSizeMb: 64 },
    });
    const thread: Thread = { worker, ready: false, task: null, timer: null };
    this.threads.push(thread);
    thread.timer = setTimeout(() => this.fail(thread, new Error("the page parser did not start")), START_TIMEOUT_MS);
    worker.on("message", (reply: ReplyMessage) => this.reply(thread, reply));
    worker.on("error", (error) => this.fail(thread, error));
    worker.on("exit", () => this.fail(thread, new Error("the page parser stopped")));
  }

  private reply(thread: Thread, reply: ReplyMessage): void {
    if (thread.timer) clearTimeout(thread.timer);
    thread.timer = null;
    if ("ready" in reply) {
      thread.ready = true;
    } else if (thread.task && thread.task.id === reply.id) {
      const task = thread.task;
      thread.task = null;
      if (reply.ok) task.resolve(reply.output);
      else task.reject(new PageError(`could not parse the page: ${reply.error}`));
    }
    // An idle thread must not keep the process alive (the admin CLI, a test process at its end).
    if (!thread.task) thread.worker.unref();
    this.dispatch();
  }

  /** The budget ran out: the page fails, and its thread is replaced (it may be stuck in a loop it cannot leave). */
  private overrun(thread: Thread): void {
    const task = thread.task;
    this.remove(thread);
    task?.reject(new ParseBudgetError(this.budgetMessage));
    void thread.worker.terminate();
    this.dispatch();
  }

  /** A thread died or never started: its task fails (a thread that never started fails what waits for it). */
  private fail(thread: Thread, error: Error): void {
    if (!this.remove(thread)) return;
    void thread.worker.terminate();
    const outOfMemory = (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY";
    const message = outOfMemory
      ? "page too large to parse (out of memory)"
      : `could not parse the page: ${error.message}`;
    if (thread.task) thread.task.reject(new PageError(message));
    else if (!thread.ready && !this.closed) {
      // Nothing can run until a thread starts; the tasks waiting would wait for ever.
      for (const task of this.queue.splice(0))
        task.reject(new Error(`the page parser could not start: ${error.message}`));
    }
    this.dispatch();
  }

  /** Takes a thread out of the pool; false when it was already out. */
  private remove(thread: Thread): boolean {
    const index = this.threads.indexOf(thread);
    if (index === -1) return false;
    this.threads.splice(index, 1);
    if (thread.timer) clearTimeout(thread.timer);
    thread.timer = null;
    return true;
  }
}
