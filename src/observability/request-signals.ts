import { observeGraphQLRequest } from './metrics';
import { UNKNOWN_OPERATION, type OperationName } from './operation';
import type { Span } from './tracing';

/** What one GraphQL request over HTTP records: its latency under its operation's name, and its span when traced. */
export class GraphQLRequestSignals {
  private readonly started = performance.now();
  private operation = UNKNOWN_OPERATION;

  /** The request's span when it is traced (see tracing.ts). */
  constructor(readonly span: Span | undefined) {}

  /** Names the request by its operation, once its body is read. */
  named(operation: OperationName): void {
    this.operation = operation;
    if (!this.span) return;
    // GraphQL's semantic conventions: "{type} {name}", or the type alone for an anonymous operation.
    this.span.name = operation.name === 'anonymous' ? operation.type : `${operation.type} ${operation.name}`;
    this.span.setAttribute('graphql.operation.type', operation.type);
    if (operation.name !== 'anonymous') this.span.setAttribute('graphql.operation.name', operation.name);
  }

  /** Records the latency, and ends the span with the response's HTTP status. */
  end(status: number): void {
    observeGraphQLRequest(this.operation.name, (performance.now() - this.started) / 1000);
    if (!this.span) return;
    this.span.setAttribute('http.response.status_code', status);
    if (status >= 500) this.span.fail();
    this.span.end();
  }
}
