import { SessionService } from '../../src/modules/sessions/session.service';
import { createTestApp, type TestApp } from '../support/app';

describe('a read whose result holds an error runs once', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('NOT_FOUND from the fast path: the resolver ran once, the error formatted as Apollo formats it', async () => {
    const spy = jest.spyOn(SessionService.prototype, 'session');
    const post = (accept: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: '{ session(id: "missing") { sessionId } }' }),
      });
    try {
      const fast = await post('application/json');
      expect(spy).toHaveBeenCalledTimes(1);
      // Apollo alone (an Accept value the fast path leaves to it) answers the same bytes.
      const apollo = await post('application/json;q=0.9');
      expect(spy).toHaveBeenCalledTimes(2);
      expect(fast.status).toBe(apollo.status);
      const body = await fast.text();
      expect(body).toBe(await apollo.text());
      expect(JSON.parse(body).errors[0].extensions.code).toBe('NOT_FOUND');
    } finally {
      spy.mockRestore();
    }
  });
});
