/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Called before each request is sent: returns the request to send (the same object, changed, is fine). */
      setupRequest?: (request: Request) => Request;
      /** Called with each answer's status and body. */
      onResponse?: (status: number, body: string) => void;
    }

    interface Options {
      url: string;
      connections: number;
      /** Seconds; ignored when `amount` is set. */
      duration?: number;
      /** Requests to send in all, after which the run ends. */
      amount?: number;
      requests?: Request[];
      /** Seconds before a request counts as timed out. */
      timeout?: number;
    }

    interface Result {
      requests: { total: number; average: number };
      errors: number;
      timeouts: number;
      /** Seconds. */
      duration: number;
    }

    /** Emits `response` (client, statusCode, bytes, milliseconds) for every answer while it runs. */
    interface Instance extends EventEmitter, PromiseLike<Result> {}
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
