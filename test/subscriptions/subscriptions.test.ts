import { MongoClient } from 'mongodb';
import { createAppDeps, prepareDatabase } from '../../src/app';
import { createContext } from '../../src/context';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { silentLogger } from '../../src/logger';
import { loadConfig } from '../../src/config';
import { SessionRepository } from '../../src/modules/sessions/session.repository';
import { createTestApp, type TestApp } from '../support/app';
import {
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  MessageAppendedDocument,
  SessionUpdatedDocument,
  SubscriptionsSourceDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../support/generated/graphql';
import { subscribe, waitUntil, wsClient } from '../support/subscriptions';
import { startFailPointEngine } from '../support/fail-point';

async function sessionWithAgent(app: TestApp, sessionId: string, caller?: Parameters<TestApp['run']>[2]) {
  await app.run(CreateSessionDocument, { input: { sessionId } }, caller);
  await app.run(UpsertAgentDocument, { sessionId, input: { agentId: 'a1', agentData: {} } }, caller);
}

describe('subscriptions over graphql-ws', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('delivers an append to a messageAppended subscriber within 1 s', async () => {
    await sessionWithAgent(app, 'live-1');
    await app.run(AppendMessageDocument, {
      sessionId: 'live-1',
      agentId: 'a1',
      input: { role: 'USER', content: 'old' },
    });
    const client = wsClient(url);
    const sub = subscribe(client, MessageAppendedDocument, { sessionId: 'live-1', agentId: 'a1' });
    await waitUntil(() => app.server.subscriptions.subscribers === 1);
    const written = Date.now();
    await app.run(AppendMessageDocument, {
      sessionId: 'live-1',
      agentId: 'a1',
      input: { role: 'USER', content: 'hi' },
    });
    const result = await sub.next(1000);
    expect(Date.now() - written).toBeLessThan(1000);
    expect(result).toEqual({ data: { messageAppended: { messageId: 1, role: 'USER', text: 'hi' } } });
    sub.unsubscribe();
    await client.dispose();
  });

  it('delivers each of 20 messages appended at once, in order, after 30 older ones', async () => {
    await sessionWithAgent(app, 'live-batch');
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ role: 'USER' as const, content: `m${from + i}` }));
    await app.run(AppendMessagesDocument, { sessionId: 'live-batch', agentId: 'a1', inputs: batch(0, 30) });
    const client = wsClient(url);
    const sub = subscribe(client, MessageAppendedDocument, { sessionId: 'live-batch', agentId: 'a1' });
    await waitUntil(() => app.server.subscriptions.subscribers === 1);
    await app.run(AppendMessagesDocument, { sessionId: 'live-batch', agentId: 'a1', inputs: batch(30, 20) });
    const received = [];
    for (let i = 0; i < 20; i++) received.push((await sub.next()).data?.messageAppended);
    expect(received.map((message) => message?.messageId)).toEqual(Array.from({ length: 20 }, (_, i) => 30 + i));
    expect(received.map((message) => message?.text)).toEqual(batch(30, 20).map((input) => input.content));
    sub.unsubscribe();
    await client.dispose();
  });

  it('reads the messages of writes that arrived together once, in order', async () => {
    await sessionWithAgent(app, 'live-burst');
    const client = wsClient(url);
    const appended = subscribe(client, MessageAppendedDocument, { sessionId: 'live-burst', agentId: 'a1' });
    // Every event reaches all consumers of the stream at once: this one's deliveries show what the other has queued.
    const updated = subscribe(client, SessionUpdatedDocument, { id: 'live-burst' });
    await waitUntil(() => app.server.subscriptions.subscribers === 2);
    // The first read waits until five more writes have arrived behind it.
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = SessionRepository.prototype.messagesAfter;
    const reads = jest.spyOn(SessionRepository.prototype, 'messagesAfter').mockImplementation(async function (
      this: SessionRepository,
      ...args
    ) {
      await gate;
      return read.apply(this, args);
    });
    try {
      const texts = Array.from({ length: 6 }, (_, i) => `b${i}`);
      for (const text of texts) {
        await app.run(AppendMessageDocument, {
          sessionId: 'live-burst',
          agentId: 'a1',
          input: { role: 'USER', content: text },
        });
      }
      for (let i = 0; i < texts.length; i++) await updated.next();
      release();
      const received = [];
      for (let i = 0; i < texts.length; i++) received.push((await appended.next()).data?.messageAppended?.text);
      expect(received).toEqual(texts);
      // The held read returned all six. Of the events queued behind it, only the last reads again (and finds none);
      // one read per event would make six, within milliseconds of the release. (One read in all if every event had
      // arrived before the first was handled.)
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
      expect(appended.results).toHaveLength(texts.length);
    } finally {
      reads.mockRestore();
      appended.unsubscribe();
      updated.unsubscribe();
      await client.dispose();
    }
  });

  it('delivers each selected entity in a fresh context: a second update shows the new metadata', async () => {
    await sessionWithAgent(app, 'live-2');
    const client = wsClient(url);
    const sub = subscribe(client, SessionUpdatedDocument, { id: 'live-2' });
    await waitUntil(() => app.server.subscriptions.subscribers === 1);
    await app.run(UpdateSessionMetadataDocument, { sessionId: 'live-2', metadata: { step: 1 } });
    expect((await sub.next()).data?.sessionUpdated.metadata).toEqual({ step: 1 });
    await app.run(UpdateSessionMetadataDocument, { sessionId: 'live-2', metadata: { step: 2 } });
    expect((await sub.next()).data?.sessionUpdated.metadata).toEqual({ step: 2 });
    sub.unsubscribe();
    await client.dispose();
  });

  it('shares one change stream and one source among identical subscribers; the last to leave closes it', async () => {
    await sessionWithAgent(app, 'live-3');
    const client = wsClient(url);
    const other = wsClient(url);
    const subs = [client, client, other].map((c) => subscribe(c, SessionUpdatedDocument, { id: 'live-3' }));
    const elsewhere = subscribe(client, SessionUpdatedDocument, { id: 'live-3b' });
    await waitUntil(() => app.server.subscriptions.subscribers === 4);
    // Three identical operations read one feed, the fourth (other variables) its own; both over one stream.
    expect(app.deps.changes.consumers).toBe(2);
    expect(app.deps.changes.openStreams).toBe(1);

    await app.run(UpdateSessionMetadataDocument, { sessionId: 'live-3', metadata: { step: 1 } });
    for (const sub of subs) expect((await sub.next()).data?.sessionUpdated.metadata).toEqual({ step: 1 });
    subs[0].unsubscribe();
    await waitUntil(() => app.server.subscriptions.subscribers === 3);
    await app.run(UpdateSessionMetadataDocument, { sessionId: 'live-3', metadata: { step: 2 } });
    for (const sub of subs.slice(1)) expect((await sub.next()).data?.sessionUpdated.metadata).toEqual({ step: 2 });
    expect(subs[0].results).toHaveLength(1);
    expect(elsewhere.results).toHaveLength(0);

    [...subs.slice(1), elsewhere].forEach((sub) => sub.unsubscribe());
    await waitUntil(() => app.deps.changes.consumers === 0 && app.deps.changes.openStreams === 0);
    // And the engine holds no change stream cursor for it either.
    const open = await app.client
      .db('admin')
      .aggregate([{ $currentOp: {} }])
      .toArray()
      .catch(() => null);
    // (The search spaces' own streams, on other collections, stay open.)
    if (open)
      expect(
        open.filter((op) => JSON.stringify(op).includes('$changeStream') && String(op.ns).endsWith('.sessions')),
      ).toEqual([]);
    await Promise.all([client.dispose(), other.dispose()]);
  });

  it('reaches a subscriber on this server when a second server on the same database writes', async () => {
    await sessionWithAgent(app, 'live-4');
    const client = wsClient(url);
    const sub = subscribe(client, MessageAppendedDocument, { sessionId: 'live-4', agentId: 'a1' });
    await waitUntil(() => app.server.subscriptions.subscribers === 1);

    const otherClient = new MongoClient(app.uri);
    await otherClient.connect();
    const config = loadConfig({}, { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1' });
    const db = otherClient.db(app.db.databaseName);
    const other = createAppDeps({
      config,
      logger: silentLogger,
      embeddings: new HashEmbeddingProvider(384),
      database: { kind: 'EMBEDDED', version: '', client: otherClient, db },
    });
    await prepareDatabase(other, db);
    const { createServer } = await import('../../src/http/server');
    const { buildAppSchema } = await import('../../src/schema');
    const otherServer = await createServer(other, await buildAppSchema());
    try {
      const response = await otherServer.apollo.executeOperation(
        {
          query:
            'mutation { appendMessage(sessionId: "live-4", agentId: "a1", input: { role: USER, content: "from B" }) { messageId } }',
        },
        { contextValue: createContext(other) },
      );
      expect(response.body.kind === 'single' && response.body.singleResult.errors).toBeFalsy();
      expect((await sub.next(1000)).data?.messageAppended).toMatchObject({ messageId: 0, text: 'from B' });
    } finally {
      sub.unsubscribe();
      await client.dispose();
      await otherServer.stop();
      await otherClient.close();
    }
  });

  it('serverInfo says events come from change streams', async () => {
    expect((await app.run(SubscriptionsSourceDocument)).serverInfo.subscriptions).toEqual({ source: 'CHANGE_STREAM' });
  });
});

describe('subscriptions and API keys', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp({
      config: { apiKeys: ['alpha-key:reader:alpha', 'beta-key:writer:beta', 'beta-reader:reader:beta'] },
    });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each([
    ['no key', undefined],
    ['an unknown key', 'nope'],
  ])('closes a connection with %s with 4401', async (_name, key) => {
    const client = wsClient(url, key);
    expect(await client.closed).toBe(4401);
    await client.dispose();
  });

  it.each([
    ['Authorization', (key: string) => ({ Authorization: `Bearer ${key}` })],
    ['headers.authorization', (key: string) => ({ headers: { authorization: `Bearer ${key}` } })],
    ['headers.Authorization', (key: string) => ({ headers: { Authorization: `Bearer ${key}` } })],
  ])('takes the key as connectionParams.%s too; a wrong one there still closes with 4401', async (_name, params) => {
    const client = wsClient(url, undefined, params('alpha-key'));
    const answered = subscribe(client, SubscriptionsSourceDocument, {});
    expect((await answered.next()).data?.serverInfo.subscriptions).toEqual({ source: 'CHANGE_STREAM' });
    await client.dispose();
    const refused = wsClient(url, undefined, params('nope'));
    expect(await refused.closed).toBe(4401);
    await refused.dispose();
  });

  it("a tenant's subscriber sees its tenant's writes and not another's, the same operation as another tenant's", async () => {
    const alpha = { caller: { role: 'admin' as const, tenant: 'alpha', keyId: null } };
    const beta = { caller: { role: 'admin' as const, tenant: 'beta', keyId: null } };
    await sessionWithAgent(app, 'shared-id', alpha);
    await sessionWithAgent(app, 'shared-id', beta);
    // The same role, operation and variables: only the tenant differs.
    const clients = [wsClient(url, 'alpha-key'), wsClient(url, 'beta-reader')];
    const [alphaSub, betaSub] = clients.map((client) =>
      subscribe(client, MessageAppendedDocument, { sessionId: 'shared-id', agentId: 'a1' }),
    );
    await waitUntil(() => app.server.subscriptions.subscribers === 2);
    await app.run(
      AppendMessageDocument,
      { sessionId: 'shared-id', agentId: 'a1', input: { role: 'USER', content: 'beta' } },
      beta,
    );
    await app.run(
      AppendMessageDocument,
      { sessionId: 'shared-id', agentId: 'a1', input: { role: 'USER', content: 'alpha' } },
      alpha,
    );
    expect((await alphaSub.next()).data?.messageAppended.text).toBe('alpha');
    expect((await betaSub.next()).data?.messageAppended.text).toBe('beta');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alphaSub.results).toHaveLength(1);
    expect(betaSub.results).toHaveLength(1);
    [alphaSub, betaSub].forEach((sub) => sub.unsubscribe());
    await Promise.all(clients.map((client) => client.dispose()));
  });
});

describe('subscriptions without change streams', () => {
  it("delivers this process's own writes within 1 s: an append, and an update by filter", async () => {
    const engine = await startFailPointEngine();
    // The server checks for change streams as it starts (its search spaces follow them): the check is refused.
    await engine.failNext(['aggregate'], 1, 40573);
    const app = await createTestApp({ databaseUri: engine.uri });
    const url = await app.server.listen(0, '127.0.0.1');
    const client = wsClient(url);
    try {
      await sessionWithAgent(app, 'local-1');
      await app.run(AppendMessageDocument, {
        sessionId: 'local-1',
        agentId: 'a1',
        input: { role: 'USER', content: 'old' },
      });
      expect((await app.run(SubscriptionsSourceDocument)).serverInfo.subscriptions).toEqual({ source: 'LOCAL_WRITES' });
      const appended = subscribe(client, MessageAppendedDocument, { sessionId: 'local-1', agentId: 'a1' });
      const updated = subscribe(client, SessionUpdatedDocument, { id: 'local-1' });
      await waitUntil(() => app.server.subscriptions.subscribers === 2);
      expect(app.deps.changes.openStreams).toBe(0);

      const written = Date.now();
      await app.run(AppendMessageDocument, {
        sessionId: 'local-1',
        agentId: 'a1',
        input: { role: 'USER', content: 'hi' },
      });
      expect(await appended.next(1000)).toEqual({
        data: { messageAppended: { messageId: 1, role: 'USER', text: 'hi' } },
      });
      expect(Date.now() - written).toBeLessThan(1000);
      // The append's own session update, then the metadata update (an updateOne by filter).
      expect((await updated.next(1000)).data?.sessionUpdated).toBeDefined();
      await app.run(UpdateSessionMetadataDocument, { sessionId: 'local-1', metadata: { step: 1 } });
      expect((await updated.next(1000)).data?.sessionUpdated.metadata).toEqual({ step: 1 });
      appended.unsubscribe();
      updated.unsubscribe();
    } finally {
      await client.dispose();
      await app.close();
      await engine.close();
    }
  });

  it('serverInfo says only local writes are followed when the database refuses change streams (40573)', async () => {
    const engine = await startFailPointEngine();
    await engine.failNext(['aggregate'], 1, 40573);
    const app = await createTestApp({ databaseUri: engine.uri });
    try {
      expect((await app.run(SubscriptionsSourceDocument)).serverInfo.subscriptions).toEqual({ source: 'LOCAL_WRITES' });
    } finally {
      await app.close();
      await engine.close();
    }
  });
});
