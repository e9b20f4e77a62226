import { Client, fetchExchange, gql } from '@urql/core';
import { createTestApp, type TestApp } from '../support/app';
import { scrape } from '../support/metrics';

const CREATE = gql`
  mutation Create($id: String) {
    createSession(input: { sessionId: $id }) {
      sessionId
    }
  }
`;
const READ = gql`
  query Read($id: ID!) {
    session(id: $id) {
      sessionId
      sessionType
    }
  }
`;

/**
 * urql (@urql/core), as docs/frontends.md tells its users to set it up. By default urql sends a short query as a GET
 * with no header that needs a preflight, which Apollo's CSRF prevention refuses.
 */
describe('urql', () => {
  let app: TestApp;
  let url: string;
  const fastPathAnswers = async () => (await scrape(url)).value('hindsight_graphql_fast_path_total');

  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('with preferGetMethod false: mutations and queries, repeated ones answered by the fast path', async () => {
    const client = new Client({ url, exchanges: [fetchExchange], preferGetMethod: false });
    for (const id of ['u1', 'u2']) {
      const created = await client.mutation(CREATE, { id }).toPromise();
      expect(created.error).toBeUndefined();
      expect(created.data).toEqual({ createSession: { sessionId: id } });
    }
    const before = await fastPathAnswers();
    for (const id of ['u1', 'u2', 'u1']) {
      const read = await client.query(READ, { id }, { requestPolicy: 'network-only' }).toPromise();
      expect(read.error).toBeUndefined();
      expect(read.data).toEqual({ session: { sessionId: id, sessionType: 'default' } });
    }
    // urql's Accept header is one the fast path knows: every read is answered there.
    expect((await fastPathAnswers()) - before).toBe(3);
  });

  it('with its defaults a query goes as a GET and is refused as a possible CSRF; the preflight header lets it in', async () => {
    const byDefault = new Client({ url, exchanges: [fetchExchange] });
    const refused = await byDefault.query(READ, { id: 'u1' }).toPromise();
    expect(refused.data).toBeUndefined();
    expect(refused.error?.message).toMatch(/Cross-Site Request Forgery/);

    const withHeader = new Client({
      url,
      exchanges: [fetchExchange],
      fetchOptions: { headers: { 'apollo-require-preflight': 'true' } },
    });
    const read = await withHeader.query(READ, { id: 'u1' }).toPromise();
    expect(read.error).toBeUndefined();
    expect(read.data?.session.sessionId).toBe('u1');
  });
});
