/**
 * Watches every `crypto.scrypt` call the process makes (the password hashes of src/auth/passwords.ts), without
 * touching the project's code: Node's built-in module exports are patched and synced to their ESM bindings. Tests
 * read how many hashes started and how many ran at once.
 */
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

export interface ScryptProbe {
  /** scrypt computations started since the probe was installed. */
  readonly started: number;
  /** Computations running now (started, callback not yet called). */
  readonly active: number;
  /** The most computations that ran at once. */
  readonly peak: number;
  /** Computations finished. */
  readonly finished: number;
  restore(): void;
}

type ScryptCallback = (error: Error | null, key: Buffer) => void;

export function watchScrypt(): ScryptProbe {
  const original = crypto.scrypt;
  const state = { started: 0, active: 0, peak: 0, finished: 0 };
  const watched = (...args: unknown[]) => {
    const callback = args.pop() as ScryptCallback;
    state.started += 1;
    state.active += 1;
    state.peak = Math.max(state.peak, state.active);
    (original as (...a: unknown[]) => void)(...args, (error: Error | null, key: Buffer) => {
      state.active -= 1;
      state.finished += 1;
      callback(error, key);
    });
  };
  (crypto as { scrypt: unknown }).scrypt = watched;
  syncBuiltinESMExports();
  return {
    get started() {
      return state.started;
    },
    get active() {
      return state.active;
    },
    get peak() {
      return state.peak;
    },
    get finished() {
      return state.finished;
    },
    restore() {
      (crypto as { scrypt: unknown }).scrypt = original;
      syncBuiltinESMExports();
    },
  };
}
