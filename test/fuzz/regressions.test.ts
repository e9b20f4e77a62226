import { createTestApp, type TestApp } from '../support/app';
import { fingerprint, postOperation, postRaw } from './fuzz-support';

/** Cases the fuzz suite found, kept as examples: each answered INTERNAL_SERVER_ERROR before its fix. */
describe('fuzz regressions: bad requests get client codes', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('more than 50 bad variable values (graphql-js stops coercing) is BAD_USER_INPUT, and nothing is written', async () => {
    const before = await fingerprint(app.db);
    const inputs = Array.from({ length: 60 }, () => ({
      role: 'USER',
      content: 'x',
      eventLoopMetrics: { inputTokens: 'many' },
    }));
    const reply = await postOperation(
      url,
      'mutation($inputs: [AppendMessageInput!]!) { appendMessages(sessionId: "s", agentId: "a", inputs: $inputs) { messageId } }',
      { inputs },
    );
    expect(reply.status).toBe(400);
    // 50 errors naming a value, then the one that stops.
    expect(reply.body.errors).toHaveLength(51);
    expect(new Set(reply.body.errors?.map((error) => error.extensions?.code))).toEqual(new Set(['BAD_USER_INPUT']));
    expect(await fingerprint(app.db)).toEqual(before);
  });

  it.each([['3'], ['{"version": "1"}'], ['{"version": 1, "sha256Hash": 5}']])(
    'a garbage extensions.persistedQuery (%s) is BAD_REQUEST with status 400',
    async (persistedQuery) => {
      const reply = await postRaw(
        url,
        `{"query": "{ serverInfo { version } }", "extensions": {"persistedQuery": ${persistedQuery}}}`,
      );
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_REQUEST']);
    },
  );
});

describe('fuzz regressions: bodies over the size limit', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('a body over 32 MB gets a 413 with code BAD_REQUEST (not a reset connection), and the server keeps answering', async () => {
    const body = JSON.stringify({
      query: '{ serverInfo { version } }',
      variables: { pad: 'x'.repeat(33 * 1024 * 1024) },
    });
    const reply = await postRaw(url, body);
    expect(reply.status).toBe(413);
    expect(reply.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_REQUEST']);
    expect((await postRaw(url, '{"query": "{ serverInfo { version } }"}')).status).toBe(200);
  });
});
