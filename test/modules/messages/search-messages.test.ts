import { MongoClient } from 'mongodb';
import { createAppDeps, prepareDatabase, type AppDeps } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createContext } from '../../../src/context';
import { HashEmbeddingProvider } from '../../../src/embeddings/hash.provider';
import { silentLogger } from '../../../src/logger';
import { createTestApp, type TestApp } from '../../support/app';
import {
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  DeleteSessionDocument,
  SearchMessagesDocument,
  UpdateMessageDocument,
  UpsertAgentDocument,
  type SearchMessagesQueryVariables,
  type SearchMode,
} from '../../support/generated/graphql';

const MODES: SearchMode[] = ['HYBRID', 'KEYWORD', 'VECTOR'];

async function sessionWithAgent(app: TestApp, sessionId: string, agentId: string, userId?: string) {
  await app.run(CreateSessionDocument, { input: { sessionId, ...(userId ? { userId } : {}) } });
  await app.run(UpsertAgentDocument, { sessionId, input: { agentId, agentData: {} } });
}

async function append(app: TestApp, sessionId: string, agentId: string, texts: Array<[role: string, text: string]>) {
  const { appendMessages } = await app.run(AppendMessagesDocument, {
    sessionId,
    agentId,
    inputs: texts.map(([role, content]) => ({ role: role.toUpperCase() as never, content })),
  });
  return appendMessages as Array<{ messageId: number }>;
}

async function search(app: TestApp, variables: SearchMessagesQueryVariables, caller?: Parameters<TestApp['run']>[2]) {
  return (await app.run(SearchMessagesDocument, variables, caller)).searchMessages;
}

/** The hits' `<sessionId>/<agentId>/<messageId>`. */
async function found(app: TestApp, variables: SearchMessagesQueryVariables): Promise<string[]> {
  return (await search(app, variables)).map((hit) => `${hit.sessionId}/${hit.agentId}/${hit.message.messageId}`);
}

describe('searchMessages', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await sessionWithAgent(app, 's1', 'helper', 'alice');
    await append(app, 's1', 'helper', [
      ['user', 'My parcel to Lisbon never arrived.'],
      ['assistant', 'I am sorry: let me check the courier tracking number.'],
      ['user', 'The tracking number is ZX-81 and the courier is Swiftpost.'],
      ['assistant', 'The courier reports the parcel held at customs in Porto.'],
      ['user', 'Please ask them to release it quickly.'],
    ]);
    await sessionWithAgent(app, 's2', 'planner', 'bob');
    await append(app, 's2', 'planner', [
      ['user', 'Plan a birthday dinner with vegetarian dishes.'],
      ['assistant', 'A mushroom risotto and a lemon tart would suit a vegetarian dinner.'],
    ]);
  });
  afterAll(() => app.close());

  it('an appended message is found at once, in every mode, with its scores and session', async () => {
    for (const mode of MODES) {
      const hits = await search(app, { query: 'parcel held at customs', mode, limit: 3 });
      expect(hits[0]).toMatchObject({
        sessionId: 's1',
        agentId: 'helper',
        message: { messageId: 3, role: 'ASSISTANT', text: 'The courier reports the parcel held at customs in Porto.' },
        session: { sessionId: 's1', userId: 'alice' },
      });
      expect(hits[0].score).toBeGreaterThan(0);
      if (mode !== 'KEYWORD') expect(hits[0].vectorScore).toEqual(expect.any(Number));
      if (mode !== 'VECTOR') expect(hits[0].keywordScore).toEqual(expect.any(Number));
    }
    await app.run(AppendMessageDocument, {
      sessionId: 's2',
      agentId: 'planner',
      input: { role: 'USER', content: [{ text: 'Add a saffron paella for the guests.' }, { toolUse: { name: 'x' } }] },
    });
    expect((await found(app, { query: 'saffron paella', mode: 'KEYWORD' }))[0]).toBe('s2/planner/2');
  });

  it('filters by session, agent, user, role and time, before the limit', async () => {
    const query = 'courier parcel vegetarian dinner tracking';
    const keys = async (filter: SearchMessagesQueryVariables['filter']) =>
      (await found(app, { query, filter, limit: 20 })).sort();
    expect((await keys({ sessionId: 's2' })).every((key) => key.startsWith('s2/'))).toBe(true);
    expect(await keys({ sessionId: 's2' })).not.toHaveLength(0);
    expect((await keys({ agentId: 'helper' })).every((key) => key.startsWith('s1/helper/'))).toBe(true);
    expect((await keys({ userId: 'bob' })).every((key) => key.startsWith('s2/'))).toBe(true);
    expect(await keys({ userId: 'nobody' })).toEqual([]);
    const assistant = await search(app, { query, filter: { role: 'assistant' }, limit: 20 });
    expect(assistant.length).toBeGreaterThan(0);
    expect(assistant.every((hit) => hit.message.role === 'ASSISTANT')).toBe(true);
    expect(await keys({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await keys({ until: new Date(0).toISOString() })).toEqual([]);
    expect((await keys({ since: new Date(0).toISOString() })).length).toBeGreaterThan(0);
    expect((await found(app, { query, limit: 1 })).length).toBe(1);
  });

  it('context: N returns the neighbouring messages of the same agent, oldest first', async () => {
    const [hit] = await search(app, { query: 'held at customs in Porto', mode: 'KEYWORD', limit: 1, context: 2 });
    expect(hit.message.messageId).toBe(3);
    expect(hit.before.map((message) => message.messageId)).toEqual([1, 2]);
    expect(hit.after.map((message) => message.messageId)).toEqual([4]);
    const [bare] = await search(app, { query: 'held at customs in Porto', mode: 'KEYWORD', limit: 1 });
    expect(bare).toMatchObject({ before: [], after: [] });
  });

  it('a redacted message is found by its redaction only', async () => {
    await sessionWithAgent(app, 's3', 'helper');
    const [{ messageId }] = await append(app, 's3', 'helper', [['user', 'My card number is 4111 quokka secret']]);
    const key = `s3/helper/${messageId}`;
    expect(await found(app, { query: 'quokka', mode: 'KEYWORD' })).toEqual([key]);
    const scoreOf = async (mode: SearchMode) =>
      (await search(app, { query: 'quokka', mode, limit: 100 })).find((hit) => hit.sessionId === 's3')?.score ?? 0;
    const before = await scoreOf('VECTOR');
    expect(before).toBeGreaterThan(0.3);
    await app.run(UpdateMessageDocument, {
      sessionId: 's3',
      agentId: 'helper',
      messageId,
      input: { content: '[card number removed] wombat' },
    });
    for (const mode of ['HYBRID', 'KEYWORD'] as const)
      expect(await found(app, { query: 'quokka', mode })).not.toContain(key);
    // The vector is the redaction's: any likeness left to the old words is the hash embedder's collisions.
    expect(await scoreOf('VECTOR')).toBeLessThan(before / 3);
    const [hit] = await search(app, { query: 'wombat', mode: 'KEYWORD' });
    expect(hit).toMatchObject({ sessionId: 's3', message: { messageId, redacted: true } });
    expect(hit.message.text).toContain('wombat');
    const entries = await app.db.collection('message_index').find({ session_id: 's3' }).toArray();
    expect(entries.map((entry) => entry.text)).toEqual(['[card number removed] wombat']);
  });

  it('a deleted session leaves the index', async () => {
    await sessionWithAgent(app, 's4', 'helper');
    await append(app, 's4', 'helper', [['user', 'The platypus ate my homework']]);
    expect(await found(app, { query: 'platypus', mode: 'KEYWORD' })).toEqual(['s4/helper/0']);
    await app.run(DeleteSessionDocument, { id: 's4' });
    for (const mode of MODES) {
      const keys = await found(app, { query: 'platypus', mode, limit: 100 });
      expect(keys.filter((key) => key.startsWith('s4/'))).toEqual([]);
    }
    expect(await app.db.collection('message_index').countDocuments({ session_id: 's4' })).toBe(0);
  });

  it("another tenant's messages are never found", async () => {
    const reader = { role: 'writer' as const, tenant: 'default', keyId: 'w' };
    const other = { ...reader, tenant: 'tenant-msg-b' };
    await app.run(CreateSessionDocument, { input: { sessionId: 'tb' } }, { caller: other });
    await app.run(
      UpsertAgentDocument,
      { sessionId: 'tb', input: { agentId: 'helper', agentData: {} } },
      { caller: other },
    );
    await app.run(
      AppendMessageDocument,
      { sessionId: 'tb', agentId: 'helper', input: { role: 'USER', content: 'The narwhal tusk is a tooth' } },
      { caller: other },
    );
    expect((await search(app, { query: 'narwhal tusk', mode: 'KEYWORD' }, { caller: other })).length).toBe(1);
    for (const mode of MODES) {
      const hits = await search(app, { query: 'narwhal tusk', mode, limit: 100 }, { caller: reader });
      expect(hits.filter((hit) => hit.sessionId === 'tb')).toEqual([]);
    }
    const client = app.deps.database.client;
    await client
      .db(`${app.db.databaseName}_tenant-msg-b`)
      .dropDatabase()
      .catch(() => undefined);
  });

  it('refuses bad input naming the argument', async () => {
    const code = async (variables: SearchMessagesQueryVariables) => {
      const { errors } = await app.execute(SearchMessagesDocument, variables);
      return errors?.map((error) => [error.extensions?.code, error.extensions?.field ?? error.message]);
    };
    expect(await code({ query: '' })).toEqual([['BAD_USER_INPUT', 'query']]);
    expect(await code({ query: ' \n\t ' })).toEqual([['BAD_USER_INPUT', 'query']]);
    expect(await code({ query: 'x', limit: 0 })).toEqual([['BAD_USER_INPUT', 'limit']]);
    expect(await code({ query: 'x', limit: 101 })).toEqual([['BAD_USER_INPUT', 'limit']]);
    expect(await code({ query: 'x', context: -1 })).toEqual([['BAD_USER_INPUT', 'context']]);
    expect(await code({ query: 'x', context: 21 })).toEqual([['BAD_USER_INPUT', 'context']]);
    expect(await code({ query: 'x', filter: { sessionId: ' ' } })).toEqual([['BAD_USER_INPUT', 'filter.sessionId']]);
    expect(
      await code({ query: 'x', filter: { since: '2025-01-02T00:00:00Z', until: '2025-01-01T00:00:00Z' } }),
    ).toEqual([['BAD_USER_INPUT', 'filter.until']]);
  });
});

describe('searchMessages over sessions written behind the server', () => {
  let app: TestApp;
  let other: AppDeps | null = null;
  let otherClient: MongoClient | null = null;
  afterAll(async () => {
    await other?.messageIndex.close();
    await other?.search.close();
    await other?.changes.close();
    await otherClient?.close();
    await app.close();
  });

  it('finds the Strands SDK shape written directly into MongoDB while following, and what another process appends', async () => {
    app = await createTestApp();
    const sessions = app.db.collection<{ _id: string } & Record<string, unknown>>('sessions');
    const now = new Date();
    const sdkMessage = (id: number, role: string, text: string) => ({
      message: { role, content: [{ text }] },
      message_id: id,
      redact_message: null,
      created_at: now,
      updated_at: now,
    });
    await sessions.insertOne({
      _id: 'sdk-1',
      session_id: 'sdk-1',
      session_type: 'AGENT',
      user_id: 'carol',
      created_at: now,
      updated_at: now,
      metadata: {},
      feedbacks: [],
      agents: {
        bot: {
          agent_data: { agent_id: 'bot' },
          created_at: now,
          updated_at: now,
          messages: [sdkMessage(0, 'user', 'Where is the axolotl tank?')],
        },
      },
    });
    // Written while the server runs, as the SDK's session manager appends (its change event is followed).
    const waitFor = async (query: string, expected: string[]) => {
      const deadline = Date.now() + 10_000;
      let last: string[] = [];
      while (Date.now() < deadline) {
        last = await found(app, { query, mode: 'KEYWORD' });
        if (JSON.stringify(last) === JSON.stringify(expected)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(last).toEqual(expected);
    };
    await waitFor('axolotl', ['sdk-1/bot/0']);
    await sessions.updateOne({ _id: 'sdk-1' }, {
      $push: { 'agents.bot.messages': sdkMessage(1, 'assistant', 'The capybara enclosure is left of it.') },
    } as never);
    await waitFor('capybara', ['sdk-1/bot/1']);
    // The SDK's redaction: redact_message set beside the kept message.
    await sessions.updateOne(
      { _id: 'sdk-1', 'agents.bot.messages.message_id': 0 },
      {
        $set: {
          'agents.bot.messages.$.redact_message': { role: 'user', content: [{ text: 'redacted lemur' }] },
          'agents.bot.messages.$.updated_at': new Date(),
        },
      },
    );
    await waitFor('axolotl', []);
    await waitFor('lemur', ['sdk-1/bot/0']);

    // Another process (its own deps and client on the same database) appends through its API: found here too.
    otherClient = new MongoClient(app.uri);
    await otherClient.connect();
    const db = otherClient.db(app.db.databaseName);
    other = createAppDeps({
      config: loadConfig({}, { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1', messageIndex: true }),
      logger: silentLogger,
      embeddings: new HashEmbeddingProvider(384),
      database: { kind: 'EMBEDDED', version: '', client: otherClient, db },
    });
    await prepareDatabase(other, db);
    const { services } = createContext(other);
    await services.sessions.appendMessages(
      'sdk-1',
      'bot',
      [{ role: 'user', content: 'Feed the pangolin at noon' } as never],
      () => 'input',
    );
    await waitFor('pangolin', ['sdk-1/bot/2']);
    // And what this process appends is found by the other one.
    await app.run(AppendMessageDocument, {
      sessionId: 'sdk-1',
      agentId: 'bot',
      input: { role: 'ASSISTANT', content: 'The okapi sleeps at dusk' },
    });
    const deadline = Date.now() + 10_000;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = (await createContext(other).services.messages.search({ query: 'okapi', mode: 'KEYWORD' as never })).map(
        (hit) => hit.id,
      );
      if (seen.length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toEqual(['sdk-1/bot/3']);
    await sessions.deleteOne({ _id: 'sdk-1' });
    await waitFor('capybara', []);
  });
});

describe('searchMessages after a restart', () => {
  let app: TestApp;
  let client: MongoClient;
  let restarted: AppDeps;
  afterAll(async () => {
    await restarted?.messageIndex.close();
    await restarted?.changes.close();
    await client?.close();
    await app?.close();
  });

  it('a session the SDK wrote while no server followed is indexed by the catch-up at start', async () => {
    app = await createTestApp({ config: { searchFollow: false } });
    const now = new Date();
    await app.db.collection<{ _id: string } & Record<string, unknown>>('sessions').insertOne({
      _id: 'offline-1',
      session_id: 'offline-1',
      session_type: 'AGENT',
      created_at: now,
      updated_at: now,
      metadata: {},
      feedbacks: [],
      agents: {
        bot: {
          agent_data: { agent_id: 'bot' },
          created_at: now,
          updated_at: now,
          messages: [
            { message_id: 1, role: 'user', content: 'The tapir crossed the river', created_at: now, updated_at: now },
          ],
        },
      },
    });
    // Not followed: this server does not know of it.
    expect(await found(app, { query: 'tapir', mode: 'KEYWORD' })).toEqual([]);
    client = new MongoClient(app.uri);
    await client.connect();
    const db = client.db(app.db.databaseName);
    // A server started on the same database (not following: only its start's catch-up indexes what it missed).
    const start = async () => {
      restarted = createAppDeps({
        config: loadConfig(
          {},
          { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1', searchFollow: false, messageIndex: true },
        ),
        logger: silentLogger,
        embeddings: new HashEmbeddingProvider(384),
        database: { kind: 'EMBEDDED', version: '', client, db },
      });
      await prepareDatabase(restarted, db);
    };
    await start();
    const hits = await createContext(restarted).services.messages.search({
      query: 'tapir river',
      mode: 'HYBRID' as never,
    });
    expect(hits.map((hit) => [hit.id, hit.message.text])).toEqual([['offline-1/bot/1', 'The tapir crossed the river']]);

    // Vectors of another model (the embedder changed between starts) are embedded again by the next start's catch-up.
    const entries = app.db.collection('message_index');
    await entries.updateMany({}, { $set: { 'embedding_model.model': 'an-older-model' } });
    await restarted.messageIndex.close();
    await restarted.changes.close();
    await start();
    expect(await entries.distinct('embedding_model.model')).toEqual([restarted.embedder.signature.model]);
  });
});

describe('searchMessages with MESSAGE_INDEX=false', () => {
  let app: TestApp;
  afterAll(() => app?.close());

  it('appends leave message_index alone and the search answers SERVICE_UNAVAILABLE', async () => {
    app = await createTestApp({ config: { messageIndex: false } });
    await sessionWithAgent(app, 'off-1', 'helper');
    await append(app, 'off-1', 'helper', [['user', 'Nothing indexes the ibex']]);
    const { errors } = await app.execute(SearchMessagesDocument, { query: 'ibex' });
    expect(errors?.map((error) => error.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(await app.db.collection('message_index').countDocuments()).toBe(0);
  });
});
