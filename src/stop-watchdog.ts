import { Worker } from 'node:worker_threads';

/**
 * What the graceful stop may take beyond SHUTDOWN_TIMEOUT_MS (in-flight requests) to save the search index and close
 * the database, before the main thread exits 1: with the default 5 s, the stop's deadline is 8 s.
 */
export const SAVE_AND_CLOSE_MS = 3_000;
/** How long after the stop's deadline the watchdog kills the process: 9.5 s after the signal by default. */
export const HARD_STOP_MARGIN_MS = 1_500;

/** The stop's deadline for SHUTDOWN_TIMEOUT_MS `shutdownTimeoutMs`: in-flight requests, then saving and closing. */
export function stopDeadlineMs(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs + SAVE_AND_CLOSE_MS;
}

/**
 * The watchdog's thread. Node runs a signal's JavaScript handler on the main thread's event loop, so a main thread held
 * by a synchronous loop neither stops gracefully nor dies of the signal (the handler replaced its default action).
 * This thread watches SIGTERM and SIGINT itself (libuv delivers a signal to every loop watching it) and, `hardStopMs`
 * after the first, logs at ERROR and sends the process SIGKILL. Acknowledged writes are already durable (the journal
 * is fsynced before a reply), so what is lost is at most the search index's save, rebuilt at the next start. Where the
 * signal binding is missing, the main thread's handler arms the timer by a message: a busy loop then holds it as before.
 */
const WATCHDOG_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { constants } = require('node:os');
let armed = false;
function arm(signal) {
  if (armed) return;
  armed = true;
  setTimeout(() => {
    const message = 'stop did not finish within ' + workerData.hardStopMs + ' ms of ' + signal + ': killing the process';
    writeSync(2, JSON.stringify({ time: new Date().toISOString(), level: 'error', message }) + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }, workerData.hardStopMs);
}
parentPort.on('message', arm);
try {
  process.noDeprecation = true;
  const { Signal } = process.binding('signal_wrap');
  for (const name of ['SIGTERM', 'SIGINT']) {
    const handle = new Signal();
    handle.onsignal = () => arm(name);
    if (handle.start(constants.signals[name]) !== 0) handle.close();
  }
} catch {}
parentPort.postMessage('watching');
`;

export interface StopWatchdog {
  /** Arms the hard stop from the main thread (when its signal handler runs); the watchdog usually armed it already. */
  arm(signal: string): void;
}

/**
 * Starts the watchdog thread that ends the process `hardStopMs` after SIGTERM or SIGINT whatever the main thread is
 * doing. The thread does not keep the process alive. Resolves once it watches the signals.
 */
export async function startStopWatchdog(hardStopMs: number): Promise<StopWatchdog> {
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { hardStopMs },
    // Its own small heap: it only holds a timer.
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    stdout: false,
    stderr: false,
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  // A watchdog that failed later leaves the graceful stop and its deadline in place: no reason to end the server.
  worker.on('error', () => undefined);
  worker.unref();
  return { arm: (signal) => worker.postMessage(signal) };
}
