import { setTimeout as sleep } from 'node:timers/promises';

/** How often and how patiently a failed request is repeated. */
export interface RetryPolicy {
  /** Retries after the first attempt (0: no retry). */
  maxRetries: number;
  /** Delay before the first retry; doubles with each further retry. */
  baseDelayMs: number;
  /** Ceiling of any one delay, including one asked for by the server (Retry-After). */
  maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1-based): `baseDelayMs · 2^(retry-1)` capped at `maxDelayMs`, minus up to
 * 25% jitter so that many clients failing together do not retry in lockstep.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return ceiling * (1 - 0.25 * random());
}

/**
 * Runs `attempt` until it succeeds or `retryDelay` declines (returns null) or `policy.maxRetries` retries are
 * spent; the last error is rethrown. `retryDelay(error, retry)` says how long to wait before retry number
 * `retry`, or null when the error is not worth retrying. Once `signal` is aborted nothing is retried and its reason is
 * thrown, also from a wait between attempts.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  retryDelay: (error: unknown, retry: number) => number | null,
  signal?: AbortSignal,
): Promise<T> {
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      signal?.throwIfAborted();
      const delay = retry <= policy.maxRetries ? retryDelay(error, retry) : null;
      if (delay === null) throw error;
      await sleep(Math.min(delay, policy.maxDelayMs), undefined, { signal }).catch(() => signal!.throwIfAborted());
    }
  }
}
