import { execute, getIntrospectionQuery, parse } from 'graphql';
import { createContext } from '../../src/context';
import { compileOperation } from '../../src/graphql/compiled-execution';
import { silentLogger } from '../../src/logger';
import { buildAppSchema } from '../../src/schema';
import { createTestApp, type TestApp } from '../support/app';

/**
 * Operations run compiled by graphql-jit (src/graphql/compiled-execution.ts): answers are graphql-js's, including
 * introspection, and an operation compiled once serves requests with other variables.
 */
describe('compiled execution', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('answers introspection exactly as graphql-js does', async () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true });
    const compiled = await app.run(query);
    const reference = await execute({
      schema: await buildAppSchema(),
      document: parse(query),
      contextValue: createContext(app.deps),
    });
    expect(reference.errors).toBeUndefined();
    expect(compiled).toEqual(reference.data);
  });

  it('serves one compiled operation with other variables on each request', async () => {
    const query = 'query ($n: Int) { sessions(first: $n) { totalCount edges { node { sessionId } } } }';
    for (const id of ['c-1', 'c-2', 'c-3'])
      await app.run('mutation ($id: String) { createSession(input: { sessionId: $id }) { sessionId } }', { id });
    const sizes = [];
    for (const n of [1, 3, 2]) sizes.push((await app.run(query, { n })).sessions.edges.length);
    expect(sizes).toEqual([1, 3, 2]);
  });

  it('leaves operations whose inputs have defaulted non-null fields to graphql-js (graphql-jit refuses them omitted)', async () => {
    const schema = await buildAppSchema();
    const compile = (query: string) => compileOperation(schema, parse(query), undefined, silentLogger, 100_000);
    expect(
      compile('mutation ($input: RecordActionInput!) { recordAction(taskId: "t", input: $input) { taskId } }'),
    ).toBeNull();
    expect(compile('query ($n: Int) { sessions(first: $n) { totalCount } }')).not.toBeNull();
    const task = await app.run(
      'mutation { recordTask(input: { goal: "Book", originalQuery: "book", status: COMPLETED }) { taskId } }',
    );
    const { recordAction } = await app.run(
      'mutation ($id: ID!, $input: RecordActionInput!) { recordAction(taskId: $id, input: $input) { action { thinking } } }',
      { id: task.recordTask.taskId, input: { mode: 'FAST', approach: 'Look it up' } },
    );
    expect(recordAction.action.thinking).toBe('');
  });
});
