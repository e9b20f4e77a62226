import { print } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { ExecutionResult, Operation } from './app';

/**
 * A graphql-ws client of the server at `httpUrl` (its /graphql), with `key` as connectionParams.authorization (or
 * the `connectionParams` given).
 */
export function wsClient(
  httpUrl: string,
  key?: string,
  connectionParams: Record<string, unknown> = key ? { authorization: `Bearer ${key}` } : {},
): Client & { closed: Promise<number> } {
  let closedWith: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (closedWith = resolve));
  const client = createClient({
    url: httpUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    // Tests read the close code from `closed`; the default would print the close event.
    onNonLazyError: () => undefined,
    on: { closed: (event) => closedWith((event as { code: number }).code) },
  });
  return Object.assign(client, { closed });
}

/** A subscription's results as they arrive; `next()` waits for the next one (failing after `timeoutMs`). */
export interface Subscribed<TData> {
  results: ExecutionResult<TData>[];
  next(timeoutMs?: number): Promise<ExecutionResult<TData>>;
  unsubscribe(): void;
  /** An error the server answered the subscription with, if any. */
  error?: unknown;
}

export function subscribe<TData, TVariables extends Record<string, unknown>>(
  client: Client,
  document: Operation<TData, TVariables>,
  variables: TVariables,
): Subscribed<TData> {
  const results: ExecutionResult<TData>[] = [];
  const waiters: Array<() => void> = [];
  let read = 0;
  const unsubscribe = client.subscribe<TData>(
    { query: print(document), variables },
    {
      next: (result) => {
        results.push(result as ExecutionResult<TData>);
        waiters.splice(0).forEach((wake) => wake());
      },
      error: (error) => (subscribed.error = error),
      complete: () => undefined,
    },
  );
  const subscribed: Subscribed<TData> = {
    results,
    unsubscribe,
    async next(timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length <= read) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no subscription result within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
      return results[read++];
    },
  };
  return subscribed;
}

/** Polls `condition` every 10 ms until it holds, failing after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
