import { loadConfig } from '../../src/config';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

const INTROSPECTION = { query: '{ __schema { queryType { name } } }' };

async function landingPage(url: string): Promise<number> {
  const response = await fetch(url, { headers: { accept: 'text/html' } });
  await response.text();
  return response.status;
}

describe('production mode: introspection and the playground', () => {
  it('default off under NODE_ENV=production, on otherwise; INTROSPECTION/PLAYGROUND override', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ introspection: false, playground: false });
    expect(loadConfig({})).toMatchObject({ introspection: true, playground: true });
    expect(loadConfig({ NODE_ENV: 'production', INTROSPECTION: 'true', PLAYGROUND: 'true' })).toMatchObject({
      introspection: true,
      playground: true,
    });
  });

  describe.each([
    ['off', false],
    ['on', true],
  ])('%s', (_name, enabled) => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => {
      app = await createTestApp({ config: { introspection: enabled, playground: enabled } });
      url = await app.server.listen(0, '127.0.0.1');
    });
    afterAll(() => app.close());

    it.each([
      ['fast path', {}],
      ['Apollo', { accept: 'application/json;q=1' }],
    ])('introspection through the %s', async (_surface, headers) => {
      const { body } = await postGraphQL(url, INTROSPECTION, undefined, headers);
      if (enabled) expect(body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
      else expect(body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      // __typename is not introspection of the schema: always answered.
      expect((await postGraphQL(url, { query: '{ __typename }' }, undefined, headers)).body).toEqual({
        data: { __typename: 'Query' },
      });
    });

    it('the playground page', async () => {
      expect(await landingPage(url)).toBe(enabled ? 200 : 400);
      const asset = await fetch(new URL('/playground/graphiql.js', url));
      await asset.arrayBuffer();
      expect(asset.status).toBe(enabled ? 200 : 404);
    });
  });
});
