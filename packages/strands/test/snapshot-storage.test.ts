import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, SessionManager } from '@strands-agents/sdk';
import { HindsightClient, HindsightError, HindsightMemoryStore, HindsightSnapshotStorage } from '../src/index.js';
import { SessionMessagesDocument } from './generated/graphql.js';
import { ScriptedModel } from './support/scripted-model.js';
import { KEYS, startHindsight, type RunningHindsight } from './support/server.js';

describe('HindsightSnapshotStorage with the SDK session manager', () => {
  let hindsight: RunningHindsight;
  before(async () => (hindsight = await startHindsight()));
  after(() => hindsight.stop());

  const storage = (apiKey = KEYS.writer) => new HindsightSnapshotStorage({ url: hindsight.url, apiKey, userId: 'ada' });

  it('a snapshot saved after one run is restored into a new agent of the same session', async () => {
    const first = new Agent({
      id: 'concierge',
      model: new ScriptedModel([{ text: 'Kumquat it is.' }]),
      printer: false,
      sessionManager: new SessionManager({ sessionId: 'stay-1', storage: { snapshot: storage() } }),
    });
    first.appState.set('room', 412);
    await first.invoke('The code word is kumquat.');

    // Another process: its own storage, session manager, agent and model.
    const model = new ScriptedModel([{ text: 'The code word is kumquat.' }]);
    const second = new Agent({
      id: 'concierge',
      model,
      printer: false,
      sessionManager: new SessionManager({ sessionId: 'stay-1', storage: { snapshot: storage() } }),
    });
    await second.invoke('What was the code word?');
    assert.deepEqual(
      (model.inputs[0].messages as Array<{ role: string; content: Array<{ text?: string }> }>).map((message) => [
        message.role,
        message.content.map((block) => block.text).join(''),
      ]),
      [
        ['user', 'The code word is kumquat.'],
        ['assistant', 'Kumquat it is.'],
        ['user', 'What was the code word?'],
      ],
    );
    assert.equal(second.appState.get('room'), 412);
  });

  it('immutable snapshots are listed in order and any of them restores its state', async () => {
    const manager = new SessionManager({
      sessionId: 'stay-2',
      storage: { snapshot: storage() },
      snapshotTrigger: () => true,
    });
    const agent = new Agent({ id: 'concierge', model: new ScriptedModel(), printer: false, sessionManager: manager });
    await agent.invoke('first');
    await agent.invoke('second');
    const ids = await manager.listSnapshotIds({ target: agent });
    assert.equal(ids.length, 2);
    assert.deepEqual([...ids].sort(), ids);
    assert.deepEqual(await manager.listSnapshotIds({ target: agent, startAfter: ids[0] }), [ids[1]]);
    assert.deepEqual(await manager.listSnapshotIds({ target: agent, limit: 1 }), [ids[0]]);

    const restored = new Agent({ id: 'concierge', model: new ScriptedModel(), printer: false });
    assert.equal(await manager.restoreSnapshot({ target: restored, snapshotId: ids[0] }), true);
    assert.deepEqual(
      restored.messages.map((message) => message.role),
      ['user', 'assistant'],
    );
    assert.equal(await manager.restoreSnapshot({ target: restored, snapshotId: ids[1] }), true);
    assert.equal(restored.messages.length, 4);
  });

  it("snapshots sit beside the store's message log in one Hindsight session, deleted with it", async () => {
    const store = new HindsightMemoryStore({
      url: hindsight.url,
      apiKey: KEYS.writer,
      agentId: 'concierge',
      userId: 'ada',
      sessionId: 'stay-3',
    });
    await store.addMessages([{ role: 'user', content: [{ text: 'late checkout please' }] }]);
    const location = { sessionId: 'stay-3', scope: 'agent' as const, scopeId: 'concierge' };
    const snapshot = { scope: 'agent' as const, schemaVersion: '1.0', createdAt: 'now', data: { a: 1 }, appData: {} };
    const writer = storage();
    await writer.saveSnapshot({ location, snapshotId: 'latest', isLatest: true, snapshot });
    const reader = new HindsightClient({ url: hindsight.url, apiKey: KEYS.reader });
    const { session } = await reader.request(SessionMessagesDocument, { sessionId: 'stay-3', agentId: 'concierge' });
    assert.deepEqual(
      session.agent?.messages.edges.map(({ node }) => node.text),
      ['late checkout please'],
    );
    assert.deepEqual(await storage(KEYS.reader).loadSnapshot({ location }), snapshot);
    assert.equal(await storage().loadSnapshot({ location: { ...location, scopeId: 'nobody' } }), null);

    // Deleting a session is an admin's: a writer's attempt is thrown, with its code.
    await assert.rejects(storage().deleteSession({ sessionId: 'stay-3' }), {
      name: 'HindsightError',
      code: 'FORBIDDEN',
    });
    await storage(KEYS.admin).deleteSession({ sessionId: 'stay-3' });
    assert.equal(await storage().loadSnapshot({ location }), null);
    await storage(KEYS.admin).deleteSession({ sessionId: 'stay-3' });

    // The same store and storage go on after the deletion: the session is made again.
    assert.deepEqual(await store.addMessages([{ role: 'user', content: [{ text: 'again' }] }]), [0]);
    await writer.saveSnapshot({ location, snapshotId: 'latest', isLatest: true, snapshot });
    assert.deepEqual(await writer.loadSnapshot({ location }), snapshot);
  });

  it('a save Hindsight refuses is thrown with its code', async () => {
    const location = { sessionId: 'stay-4', scope: 'agent' as const, scopeId: 'concierge' };
    const snapshot = { scope: 'agent' as const, schemaVersion: '1.0', createdAt: 'now', data: {}, appData: {} };
    await assert.rejects(
      storage(KEYS.reader).saveSnapshot({ location, snapshotId: 'latest', isLatest: true, snapshot }),
      (error: unknown) => error instanceof HindsightError && error.code === 'FORBIDDEN',
    );
  });
});
