import fc from 'fast-check';
import { createTestApp, type TestApp } from '../support/app';
import {
  FUZZ_TIMEOUT_MS,
  fingerprint,
  fuzzParameters,
  oddJson,
  oddString,
  postOperation,
  postRaw,
  toJson,
} from './fuzz-support';

/** Codes a request that never reached a resolver may get: parsing, validation, limits and persisted queries. */
const REQUEST_CODES = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'QUERY_TOO_LARGE',
  'REQUEST_TOO_LARGE',
  'VARIABLES_TOO_LARGE',
  'QUERY_TOO_DEEP',
  'QUERY_TOO_COMPLEX',
  'TOO_MANY_ALIASES',
]);

const SERVER_INFO = '{ serverInfo { version } }';

const garbageBody: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom(
    '{',
    '[',
    '"',
    'null',
    '[]',
    '[{}]',
    '{"query":',
    '\uFEFF{"query":"{ serverInfo { version } }"}',
    '{"query":1}',
  ),
  oddJson(false).map((value) => toJson(value)),
  fc.record({ query: oddString(), variables: oddJson(false), operationName: oddJson(false) }).map(toJson),
  // Garbage persisted-query extensions, with and without a query.
  fc
    .record({
      query: fc.option(fc.constant(SERVER_INFO), { nil: undefined }),
      extensions: fc.oneof(
        oddJson(false),
        fc.record({ persistedQuery: oddJson(false) }),
        fc.record({ persistedQuery: fc.record({ version: oddJson(false), sha256Hash: oddString() }) }),
      ),
    })
    .map(toJson),
  // A query behind a huge comment, and a batch of them.
  fc.constantFrom(1000, 12 * 1024 * 1024).map((size) => toJson({ query: `#${'x'.repeat(size)}\n${SERVER_INFO}` })),
  fc.array(fc.constant({ query: SERVER_INFO }), { maxLength: 3 }).map(toJson),
);

describe('fuzz: raw request bodies over HTTP', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it(
    'any body gets a coded client error or an answer, writes nothing, and the server keeps answering',
    async () => {
      const before = await fingerprint(app.db);
      await fc.assert(
        fc.asyncProperty(garbageBody, async (body) => {
          const reply = await postRaw(url, body);
          expect(reply.status).toBeLessThan(500);
          const errors = Array.isArray(reply.body)
            ? reply.body.flatMap((one) => one.errors ?? [])
            : (reply.body.errors ?? []);
          const uncoded = errors.filter((error) => !REQUEST_CODES.has(error.extensions?.code));
          if (uncoded.length) throw new Error(`HTTP ${reply.status}: ${JSON.stringify(uncoded)}`);
          const alive = await postOperation(url, SERVER_INFO, {});
          expect(alive.body.errors).toBeUndefined();
        }),
        fuzzParameters(40),
      );
      expect(await fingerprint(app.db)).toEqual(before);
    },
    FUZZ_TIMEOUT_MS,
  );
});
