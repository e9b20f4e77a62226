import 'reflect-metadata';
import { authChecker } from '../../src/auth/auth-checker';
import { Query, Resolver, buildSchema } from 'type-graphql';
import { BadInputError, ServiceUnavailableError } from '../../src/coded-error';
import { UnavailableError, ValidationError } from '../../src/errors';
import { createServer, type HindsightServer } from '../../src/http/server';
import { createTestApp, type TestApp } from '../support/app';

const DOWN = 'Embedding endpoint http://127.0.0.1:9/v1 failed: it is unreachable: ECONNREFUSED.';
const DOWN_DETAILS = { provider: 'openai', url: 'http://127.0.0.1:9/v1' };
const MISMATCH = 'The vectors in TASKS have no embedding_model record (made by an unknown embedder).';
const MISMATCH_DETAILS = { reason: 'EMBEDDING_MODEL_MISMATCH', collection: 'TASKS', stored: null };

/** Each failure thrown twice: as search and embeddings throw it (CodedError), and as the GraphQLError of its code. */
@Resolver()
class FailingResolver {
  @Query(() => String)
  codedUnavailable(): string {
    throw new ServiceUnavailableError(DOWN, DOWN_DETAILS);
  }

  @Query(() => String)
  graphqlUnavailable(): string {
    throw new UnavailableError(DOWN, DOWN_DETAILS);
  }

  @Query(() => String)
  codedBadInput(): string {
    throw new BadInputError(MISMATCH, MISMATCH_DETAILS);
  }

  @Query(() => String)
  graphqlBadInput(): string {
    throw new ValidationError(MISMATCH, undefined, MISMATCH_DETAILS);
  }
}

describe('errors raised below GraphQL (search, embeddings) reach clients as the GraphQLError of their code', () => {
  let app: TestApp;
  let server: HindsightServer;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    server = await createServer(app.deps, await buildSchema({ resolvers: [FailingResolver], authChecker }));
    url = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.stop();
    await app.close();
  });

  const overHttp = async (query: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, body: (await response.json()) as { errors: Array<Record<string, any>> } };
  };

  it.each([
    ['SERVICE_UNAVAILABLE', 'codedUnavailable', 'graphqlUnavailable'],
    ['BAD_USER_INPUT', 'codedBadInput', 'graphqlBadInput'],
  ])(
    '%s: the same status, message and extensions over HTTP as the GraphQLError subclass',
    async (code, coded, graphql) => {
      const thrown = await overHttp(`{ ${coded} }`);
      const expected = await overHttp(`{ ${graphql} }`);
      expect(thrown.body.errors[0].extensions.code).toBe(code);
      expect(thrown.status).toBe(expected.status);
      expect(thrown.body.errors[0]).toEqual({ ...expected.body.errors[0], path: [coded] });
    },
  );

  it('the same through executeOperation, without a stack or an errorId', async () => {
    const run = async (query: string) => {
      const response = await server.apollo.executeOperation({ query });
      return response.body.kind === 'single' ? response.body.singleResult.errors?.[0] : undefined;
    };
    expect(await run('{ codedUnavailable }')).toEqual({
      ...(await run('{ graphqlUnavailable }')),
      path: ['codedUnavailable'],
    });
    expect(await run('{ codedBadInput }')).toEqual({
      message: MISMATCH,
      locations: [{ line: 1, column: 3 }],
      path: ['codedBadInput'],
      extensions: { code: 'BAD_USER_INPUT', ...MISMATCH_DETAILS },
    });
  });
});
