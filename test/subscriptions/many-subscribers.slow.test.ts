import { createTestApp, type TestApp } from '../support/app';
import {
  AppendMessageDocument,
  CreateSessionDocument,
  MessageAppendedDocument,
  UpsertAgentDocument,
} from '../support/generated/graphql';
import { subscribe, waitUntil, wsClient } from '../support/subscriptions';

const CONNECTIONS = 50;
const PER_CONNECTION = 20;

describe('many subscribers', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('1,000 subscribers on one process get one event each, from one shared source and change stream', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'crowd' } });
    await app.run(UpsertAgentDocument, { sessionId: 'crowd', input: { agentId: 'a1', agentData: {} } });
    const clients = Array.from({ length: CONNECTIONS }, () => wsClient(url));
    const subs = clients.flatMap((client) =>
      Array.from({ length: PER_CONNECTION }, () =>
        subscribe(client, MessageAppendedDocument, { sessionId: 'crowd', agentId: 'a1' }),
      ),
    );
    await waitUntil(() => app.server.subscriptions.subscribers === CONNECTIONS * PER_CONNECTION, 30_000);
    // Identical operations: one source, one feed of one change stream.
    expect(app.deps.changes.consumers).toBe(1);
    expect(app.deps.changes.openStreams).toBe(1);

    await app.run(AppendMessageDocument, {
      sessionId: 'crowd',
      agentId: 'a1',
      input: { role: 'USER', content: 'all' },
    });
    await Promise.all(subs.map((sub) => sub.next(10_000)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(subs.map((sub) => sub.results)).toEqual(
      subs.map(() => [{ data: { messageAppended: { messageId: 0, role: 'USER', text: 'all' } } }]),
    );

    subs.forEach((sub) => sub.unsubscribe());
    await waitUntil(() => app.deps.changes.openStreams === 0, 10_000);
    await Promise.all(clients.map((client) => client.dispose()));
  }, 90_000);
});
