/**
 * `maxTimeMS`: the command running now stops with 50 MaxTimeMSExpired once its time is up. Commands run
 * synchronously one at a time, so one deadline at a time suffices; scans (each document a filter tests) and pipeline
 * inputs call `checkDeadline`, which reads the clock once every few documents.
 */
import { CommandError, ErrorCode } from './errors';

/** Documents between two looks at the clock: a look costs about as much as testing one simple filter. */
const CHECK_EVERY = 16;

let deadline = Infinity;
let ticks = 0;

/** Runs `work` (synchronous) with `maxTimeMS` as its limit; undefined or 0 means none, as in mongod. */
export function runWithin<T>(maxTimeMS: number | undefined, work: () => T): T {
  const outer = deadline;
  deadline = maxTimeMS ? Math.min(outer, performance.now() + maxTimeMS) : outer;
  try {
    return work();
  } finally {
    deadline = outer;
  }
}

/** Throws MaxTimeMSExpired when the running command's time is up. */
export function checkDeadline(): void {
  if (deadline === Infinity || ++ticks % CHECK_EVERY) return;
  if (performance.now() > deadline) throw new CommandError(ErrorCode.MaxTimeMSExpired, 'operation exceeded time limit');
}
