import 'reflect-metadata';
import { authChecker } from '../../../src/auth/auth-checker';
import { Query, Resolver, buildSchema } from 'type-graphql';
import { createContext } from '../../../src/context';
import { createLogger } from '../../../src/logger';
import { ServerInfoResolver } from '../../../src/modules/server-info/server-info.resolver';
import { NotFoundError } from '../../../src/errors';
import { createServer } from '../../../src/http/server';
import { createTestApp, type TestApp } from '../../support/app';
import { ServerInfoDocument } from '../../support/generated/graphql';

@Resolver()
class FailingResolver {
  @Query(() => String)
  crash(): string {
    throw new TypeError('secret internal detail');
  }

  @Query(() => String)
  missing(): string {
    throw new NotFoundError('No such thing.');
  }
}

describe('serverInfo and error handling', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('serverInfo reports the version, the database kind and storage status, and the embedding provider', async () => {
    const data = await app.run(ServerInfoDocument);
    expect(data.serverInfo.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(['EMBEDDED', 'EXTERNAL']).toContain(data.serverInfo.database.kind);
    expect(data.serverInfo.database.version).toMatch(/^\d+\.\d+/);
    expect(data.serverInfo.database.storage).toEqual({ status: 'OK', reason: null });
    expect(data.serverInfo.embeddings).toEqual({ provider: 'hash', model: 'feature-hash-v1-384', dimensions: 384 });
  });

  it('masks unknown errors as INTERNAL_SERVER_ERROR with an errorId that is logged with the stack', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    const deps = { ...app.deps, logger };
    const server = await createServer(
      deps,
      await buildSchema({ resolvers: [ServerInfoResolver, FailingResolver], authChecker }),
    );
    try {
      const contextValue = createContext(deps);
      const response = await server.apollo.executeOperation({ query: '{ crash }' }, { contextValue });
      const result = response.body.kind === 'single' ? response.body.singleResult : undefined;
      const error = result?.errors?.[0];
      expect(error?.message).toBe('Unexpected error.');
      expect(error?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(result)).not.toContain('secret internal detail');
      expect(JSON.stringify(result)).not.toContain('stacktrace');
      const logged = lines
        .map((line) => JSON.parse(line))
        .find((entry) => entry.errorId === error?.extensions?.errorId);
      expect(logged?.error).toBe('secret internal detail');
      expect(logged?.stack).toContain('TypeError');
      // The line names the request it arose in.
      expect(logged?.requestId).toBe(contextValue.requestId);

      const notFound = await server.apollo.executeOperation(
        { query: '{ missing }' },
        { contextValue: createContext(deps) },
      );
      const notFoundResult = notFound.body.kind === 'single' ? notFound.body.singleResult : undefined;
      expect(notFoundResult?.errors?.[0]).toMatchObject({
        message: 'No such thing.',
        extensions: { code: 'NOT_FOUND' },
      });
    } finally {
      await server.stop();
    }
  });

  it('a variable holding null for a non-null argument with a default is BAD_USER_INPUT, not an internal error', async () => {
    const result = await app.execute(
      'query ($limit: Int) { agentInsights(agentType: THOUGHT, limit: $limit) { count } }',
      { limit: null },
    );
    expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0].message).toContain('limit');
  });

  it('reports an invalid query with GRAPHQL_VALIDATION_FAILED', async () => {
    const result = await app.execute('{ serverInfo { nope } }');
    expect(result.errors?.[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
