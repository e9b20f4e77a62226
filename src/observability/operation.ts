/** What a GraphQL request's metrics and span are named by. */
export interface OperationName {
  /** `query`, `mutation` or `subscription`, or `unknown` when the document does not say (yet). */
  type: string;
  /** The operation's name, `anonymous` when it has none, `unknown` when the request has no readable document. */
  name: string;
}

export const UNKNOWN_OPERATION: OperationName = { type: 'unknown', name: 'unknown' };
const ANONYMOUS_QUERY: OperationName = { type: 'query', name: 'anonymous' };

const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
/** The first operation of a document: ignored tokens (whitespace, commas, comments), then its type and name. */
const FIRST_OPERATION =
  /^(?:[\s,\uFEFF]|#[^\n\r]*)*(?:(\{)|(query|mutation|subscription)\b[\s,]*([_A-Za-z][_0-9A-Za-z]*)?)/;

/**
 * The operation a request runs, read from its `query` and `operationName` without parsing the document (the request
 * may never be parsed: the fast path's cache or Apollo's errors answer it). A document with several operations must
 * name one in `operationName`, which is then taken; otherwise its first operation's. The name is the client's, so it
 * is only a label: metrics bound their number (metrics.ts).
 */
export function operationOf(query: unknown, operationName: unknown): OperationName {
  if (typeof query !== 'string') return UNKNOWN_OPERATION;
  const first = FIRST_OPERATION.exec(query);
  if (typeof operationName === 'string' && operationName !== '') {
    if (!NAME.test(operationName)) return UNKNOWN_OPERATION;
    return { type: first?.[3] === operationName ? first[2] : 'unknown', name: operationName };
  }
  if (!first) return UNKNOWN_OPERATION;
  if (first[1]) return ANONYMOUS_QUERY;
  const name = first[3];
  return { type: first[2], name: name === undefined ? 'anonymous' : NAME.test(name) ? name : 'unknown' };
}
