type LogFields = Record<string, unknown>;

let source: (() => LogFields | undefined) | undefined;

/**
 * Sets what every log line written during a request adds (its request id and trace id: see tracing.ts), or removes
 * it. Kept out of the logger's signature: the logger is made before tracing starts, and lines are written everywhere.
 */
export function setLogContext(fields: (() => LogFields | undefined) | undefined): void {
  source = fields;
}

/** The fields of the request running now, if any is known. */
export function logContext(): LogFields | undefined {
  return source?.();
}
