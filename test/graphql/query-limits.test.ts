import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import { loadConfig } from '../../src/config';
import { measureOperation } from '../../src/graphql/query-limits';
import { buildAppSchema } from '../../src/schema';
import { createTestApp, type TestApp } from '../support/app';

const root = path.resolve(__dirname, '../..');
const defaults = loadConfig({}, { embeddingsProvider: 'hash' });

/**
 * Every document the project ships as an example of use: the typed test operations, the README's tour (its
 * `gql <<'EOF'` blocks) and the benchmark's queries (read as text: tests never import the benchmark).
 */
function shippedDocuments(): { source: string; text: string }[] {
  const documents: { source: string; text: string }[] = [];
  const operations = path.join(root, 'test/support/operations');
  for (const file of readdirSync(operations).filter((name) => name.endsWith('.graphql'))) {
    documents.push({ source: `operations/${file}`, text: readFileSync(path.join(operations, file), 'utf8') });
  }
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const [, text] of readme.matchAll(/gql <<'EOF'\n([\s\S]*?)\nEOF\n/g)) documents.push({ source: 'README', text });
  const bench = readFileSync(path.join(root, 'bench/operations.ts'), 'utf8');
  for (const [, text] of bench.matchAll(/query: `([^`]*)`/g)) documents.push({ source: 'bench', text });
  return documents;
}

function measures(schema: GraphQLSchema, text: string) {
  const document = parse(text);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return document.definitions
    .filter((definition) => definition.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => ({
      name: operation.name?.value ?? '(anonymous)',
      ...measureOperation(schema, operation, fragments),
    }));
}

/** `similar → experience → similar …`, `levels` deep, each search asking for `limit` hits. */
function nestedSimilar(levels: number, limit: number): string {
  let selection = 'experienceId';
  for (let level = 0; level < levels; level++) {
    selection = `experienceId similar(limit: ${limit}) { score experience { ${selection} } }`;
  }
  return `{ experience(id: "x") { ${selection} } }`;
}

describe('the default limits admit every shipped operation', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildAppSchema();
  });

  it('test operations, the README tour and the benchmark stay within depth, aliases, cost and tokens', () => {
    const documents = shippedDocuments();
    // The three sources were found (a changed README or benchmark layout must not silently skip them).
    expect(new Set(documents.map((document) => document.source.split('/')[0]))).toEqual(
      new Set(['operations', 'README', 'bench']),
    );
    const refused = [];
    for (const { source, text } of documents) {
      expect(() => parse(text, { maxTokens: defaults.maxQueryTokens })).not.toThrow();
      for (const measured of measures(schema, text)) {
        if (process.env.SHOW_COSTS) console.log(source, measured);
        if (
          measured.depth > defaults.maxQueryDepth ||
          measured.aliases > defaults.maxAliases ||
          measured.cost > defaults.maxQueryCost
        )
          refused.push({ source, ...measured });
      }
    }
    expect(refused).toEqual([]);
  });

  it('costs a search as 10 plus its limit, and a variable size as its maximum', () => {
    const [search] = measures(schema, '{ searchExperiences(query: "a", limit: 3) { score } }');
    expect(search.cost).toBe(10 + 3 + 3 * 1);
    const [variable] = measures(schema, 'query ($n: Int!) { searchExperiences(query: "a", limit: $n) { score } }');
    expect(variable.cost).toBe(10 + 100 + 100 * 1);
    const [defaulted] = measures(schema, '{ searchExperiences(query: "a") { score } }');
    expect(defaulted.cost).toBe(10 + 10 + 10 * 1);
  });
});

describe('over HTTP, an operation beyond a limit is refused before it runs, by the fast path and Apollo alike', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  /** POSTed as the fast path takes requests, and with an Accept value it leaves to Apollo. */
  const both = async (query: string) =>
    Promise.all(
      ['application/json', 'application/json;q=0.9'].map(async (accept) => {
        const pending = fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ query }),
        });
        const response = await pending;
        return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: any[] } };
      }),
    );

  it.each([
    ['QUERY_TOO_COMPLEX', 'similar → experience → similar, 3 deep, limit 100', nestedSimilar(3, 100), 1_000_000],
    ['QUERY_TOO_DEEP', 'similar → experience nested 7 deep', nestedSimilar(7, 1), defaults.maxQueryDepth],
    [
      'TOO_MANY_ALIASES',
      '40 aliases of experiences(first: 500) (1,000 exceed the token limit too)',
      `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: experiences(first: 500) { totalCount }`).join(' ')} }`,
      defaults.maxAliases,
    ],
  ])('%s: %s', async (code, _title, query, atLeast) => {
    for (const { status, body } of await both(query)) {
      expect(status).toBe(400);
      expect(body.data).toBeUndefined();
      expect(body.errors).toHaveLength(1);
      const { extensions } = body.errors![0];
      expect(extensions.code).toBe(code);
      expect(extensions.value).toBeGreaterThan(extensions.limit);
      expect(extensions.value).toBeGreaterThanOrEqual(atLeast);
    }
  });

  it('QUERY_TOO_LARGE: the parser stops at MAX_QUERY_TOKENS', async () => {
    const query = `{ ${Array.from({ length: defaults.maxQueryTokens }, () => '__typename').join(' ')} }`;
    for (const { status, body } of await both(query)) {
      expect(status).toBe(400);
      expect(body.errors).toEqual([
        expect.objectContaining({ extensions: { code: 'QUERY_TOO_LARGE', limit: defaults.maxQueryTokens } }),
      ]);
    }
  });

  it('an operation within the limits still runs on both paths', async () => {
    for (const { status, body } of await both(nestedSimilar(2, 5))) {
      expect({ status, body }).toEqual({ status: 200, body: { data: { experience: null } } });
    }
  });
});
