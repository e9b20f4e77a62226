import { MAX_READ_BODY_BYTES, MAX_VARIABLE_KEYS, MAX_VARIABLE_VALUES } from '../../src/http/body';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app';

interface Answer {
  status: number;
  ms: number;
  body: { data?: Record<string, any>; errors?: Array<{ message: string; extensions: Record<string, unknown> }> };
}

describe('request size limits, refused before any GraphQL work', () => {
  let app: TestApp;
  let url: string;

  const post = async (body: unknown): Promise<Answer> => {
    const text = JSON.stringify(body);
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return {
      status: response.status,
      body: (await response.json()) as Answer['body'],
      ms: performance.now() - started,
    };
  };

  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app?.close());

  it(`a search whose body passes ${MAX_READ_BODY_BYTES} bytes is 413 REQUEST_TOO_LARGE naming the limit`, async () => {
    const query = 'query ($q: String!) { searchExperiences(query: $q, mode: KEYWORD) { score } }';
    const refused = await post({ query, variables: { q: 'word '.repeat(MAX_READ_BODY_BYTES / 5 + 1000) } });
    expect(refused.status).toBe(413);
    expect(refused.body.errors).toEqual([
      {
        message: expect.stringContaining(`at most ${MAX_READ_BODY_BYTES} bytes`),
        extensions: { code: 'REQUEST_TOO_LARGE', limit: MAX_READ_BODY_BYTES },
      },
    ]);
    // One inline in the document: the same.
    const inline = await post({
      query: `{ searchExperiences(query: ${JSON.stringify('x'.repeat(MAX_READ_BODY_BYTES))}) { score } }`,
    });
    expect(inline.status).toBe(413);
    // Under the limit, a search runs.
    const small = await post({ query, variables: { q: 'word '.repeat(1000) } });
    expect(small.body).toEqual({ data: { searchExperiences: [] } });
  });

  it('a mutation may still send a body over the read limit', async () => {
    const answer = await post({
      query: 'mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }',
      variables: { input: { sessionId: 'large-mutation' }, unused: 'x'.repeat(MAX_READ_BODY_BYTES + 10) },
    });
    expect(answer.body).toEqual({ data: { createSession: { sessionId: 'large-mutation' } } });
  });

  it(`variables with an object of over ${MAX_VARIABLE_KEYS} keys are 413 VARIABLES_TOO_LARGE naming the limit`, async () => {
    const wide = Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, 1]));
    const answer = await post({
      query:
        'mutation ($m: JSONObject!) { updateSessionMetadata(sessionId: "large-mutation", metadata: $m) { sessionId } }',
      variables: { m: wide },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.errors?.[0].extensions).toEqual({ code: 'VARIABLES_TOO_LARGE', limit: MAX_VARIABLE_KEYS });
    expect(answer.body.errors?.[0].message).toContain(`at most ${MAX_VARIABLE_KEYS}`);
  });

  it(`variables holding over ${MAX_VARIABLE_VALUES} values in all are 413 VARIABLES_TOO_LARGE`, async () => {
    const answer = await post({
      query:
        'mutation ($ids: [String!]!) { deleteSessionMetadataKeys(sessionId: "large-mutation", keys: $ids) { sessionId } }',
      variables: { ids: Array.from({ length: MAX_VARIABLE_VALUES + 1 }, () => 'k') },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.errors?.[0].extensions).toEqual({ code: 'VARIABLES_TOO_LARGE', limit: MAX_VARIABLE_VALUES });
  });

  it(`a subscription message over ${MAX_READ_BODY_BYTES} bytes closes its WebSocket with 1009`, async () => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(MAX_READ_BODY_BYTES) } }));
    expect(await closed).toBe(1009);
  });
});
