/**
 * `node dist/bench/signals-cost.js`: CPU µs per request of what the metrics add to a GraphQL request while tracing is
 * off (src/http/graphql-bridge.ts's calls, for one fast-path read sending one database command), measured in one
 * process so that other load on the machine does not swamp it as it swamps a whole server's req/s.
 */
import { randomUUID } from 'node:crypto';
import {
  databaseCommandDuration,
  graphqlFastPath,
  graphqlInFlight,
  graphqlRequests,
} from '../src/observability/metrics';
import { operationOf } from '../src/observability/operation';
import { GraphQLRequestSignals } from '../src/observability/request-signals';

const BODY = { query: '{ experiences(first: 20) { edges { node { experienceId primaryGoalDescription } } } }' };
const checkedOut = new Map<number, number>();

function request(): string {
  graphqlRequests.inc();
  graphqlInFlight.inc();
  const requestId = randomUUID();
  const signals = new GraphQLRequestSignals(undefined);
  signals.named(operationOf(BODY.query, undefined));
  // One database command, as src/observability/database.ts times it.
  checkedOut.set(1, performance.now());
  const since = checkedOut.get(1)!;
  checkedOut.delete(1);
  databaseCommandDuration.observe((performance.now() - since) / 1000);
  graphqlFastPath.inc();
  graphqlInFlight.dec();
  signals.end(200);
  return requestId;
}

const ROUNDS = 5;
const REQUESTS = 500_000;
for (let i = 0; i < 200_000; i++) request();
const perRequest: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) request();
  const used = process.cpuUsage(start);
  perRequest.push(Math.round(((used.user + used.system) / REQUESTS) * 1000) / 1000);
}
const median = [...perRequest].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
console.log(JSON.stringify({ cpuMicrosecondsPerRequest: perRequest, median }));
