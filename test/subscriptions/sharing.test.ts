import { EventEmitter, on, once } from 'node:events';
import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type GraphQLFieldResolver,
} from 'graphql';
import type { Context } from '../../src/context';
import { createServer, type HindsightServer } from '../../src/http/server';
import { createTestApp, type Operation, type TestApp } from '../support/app';
import { subscribe, waitUntil, wsClient } from '../support/subscriptions';
import WebSocket from 'ws';

/**
 * The sharing of subscriptions (src/http/subscriptions.ts) on a schema whose every result shows the context it was
 * executed in: who reads an event (`seenBy`) and how many times it was executed (`executions`).
 */
const ticks = new EventEmitter();
let executions = 0;

const seenBy: GraphQLFieldResolver<number, Context> = (_tick, _args, { caller }) => {
  executions++;
  return `${caller.role}/${caller.tenant}/${caller.keyId}`;
};
const Tick = new GraphQLObjectType<number, Context>({
  name: 'Tick',
  fields: {
    n: { type: GraphQLInt, resolve: (tick) => tick },
    seenBy: { type: GraphQLString, resolve: seenBy },
    broken: {
      type: GraphQLString,
      resolve: () => {
        throw new Error('connection string mongodb://admin:hunter2@db.internal failed');
      },
    },
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLBoolean, resolve: () => true } } }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      tick: {
        type: Tick,
        subscribe: () => on(ticks, 'tick'),
        resolve: (args: unknown) => (args as [number])[0],
      },
      failing: {
        type: Tick,
        subscribe: async function* () {
          yield 1;
          throw new Error('connection to mongodb://admin:hunter2@db.internal lost');
        },
        resolve: (tick: unknown) => tick,
      },
    },
  }),
});

type TickData = { tick: { n: number; seenBy?: string } };
const WHO = parse('subscription { tick { n seenBy } }') as Operation<TickData, Record<string, never>>;
const BROKEN = parse('subscription { tick { n broken } }') as Operation<TickData, Record<string, never>>;
const FAILING = parse('subscription { failing { n } }') as Operation<{ failing: { n: number } }, Record<string, never>>;
const COUNT_ONLY = parse('subscription { tick { n } }') as Operation<TickData, Record<string, never>>;

describe('subscribers of the same operation share its source and each execution', () => {
  let app: TestApp;
  let server: HindsightServer;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp({
      config: { apiKeys: ['r1:reader:alpha', 'r2:reader:alpha', 'w1:writer:alpha', 'r3:reader:beta'] },
    });
    server = await createServer(app.deps, schema);
    url = await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.stop();
    await app?.close();
  });

  it('executes each event once for identical subscribers, however many keys of one role and tenant', async () => {
    const clients = ['r1', 'r1', 'r2'].map((key) => wsClient(url, key));
    const subs = clients.map((client) => subscribe(client, WHO, {}));
    await waitUntil(() => server.subscriptions.subscribers === 3);
    expect(ticks.listenerCount('tick')).toBe(1);
    const before = executions;
    ticks.emit('tick', 1);
    for (const sub of subs) expect(await sub.next()).toEqual({ data: { tick: { n: 1, seenBy: 'reader/alpha/null' } } });
    expect(executions - before).toBe(1);
    subs.forEach((sub) => sub.unsubscribe());
    await waitUntil(() => ticks.listenerCount('tick') === 0);
    await Promise.all(clients.map((client) => client.dispose()));
  });

  it('never hands one role, tenant or selection the result made for another', async () => {
    const clients = ['r1', 'w1', 'r3', 'r1'].map((key) => wsClient(url, key));
    const [reader, writer, otherTenant, countOnly] = clients.map((client, i) =>
      subscribe(client, i === 3 ? COUNT_ONLY : WHO, {}),
    );
    await waitUntil(() => server.subscriptions.subscribers === 4);
    expect(ticks.listenerCount('tick')).toBe(4);
    ticks.emit('tick', 2);
    expect((await reader.next()).data?.tick).toEqual({ n: 2, seenBy: 'reader/alpha/null' });
    expect((await writer.next()).data?.tick).toEqual({ n: 2, seenBy: 'writer/alpha/null' });
    expect((await otherTenant.next()).data?.tick).toEqual({ n: 2, seenBy: 'reader/beta/null' });
    expect((await countOnly.next()).data?.tick).toEqual({ n: 2 });
    [reader, writer, otherTenant, countOnly].forEach((sub) => sub.unsubscribe());
    await waitUntil(() => ticks.listenerCount('tick') === 0);
    await Promise.all(clients.map((client) => client.dispose()));
  });

  it('answers an event whose execution failed with the masked, coded error, and goes on', async () => {
    const client = wsClient(url, 'r1');
    const sub = subscribe(client, BROKEN, {});
    await waitUntil(() => server.subscriptions.subscribers === 1);
    ticks.emit('tick', 3);
    ticks.emit('tick', 4);
    const first = await sub.next();
    expect(first.data).toEqual({ tick: { n: 3, broken: null } });
    expect(first.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        extensions: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
      }),
    ]);
    expect(JSON.stringify(first)).not.toContain('hunter2');
    expect((await sub.next()).data).toEqual({ tick: { n: 4, broken: null } });
    sub.unsubscribe();
    await client.dispose();
  });

  it('ends every subscriber of a failed source with a masked, coded error', async () => {
    const client = wsClient(url, 'r1');
    const subs = [subscribe(client, FAILING, {}), subscribe(client, FAILING, {})];
    for (const sub of subs) {
      expect(await sub.next()).toEqual({ data: { failing: { n: 1 } } });
      const failure = await sub.next();
      expect(failure.errors).toEqual([
        expect.objectContaining({
          message: 'Unexpected error.',
          extensions: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
        }),
      ]);
      expect(JSON.stringify(failure)).not.toContain('hunter2');
      expect(sub.error).toBeUndefined();
    }
    await client.dispose();
  });

  it("sends each subscriber its own id's messages on the wire, and none after it completes", async () => {
    // A client of the protocol's messages themselves: any id string is the client's to choose.
    const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const frames: Array<Record<string, unknown>> = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
    await once(socket, 'open');
    const send = (message: object) => socket.send(JSON.stringify(message));
    send({ type: 'connection_init', payload: { authorization: 'Bearer r1' } });
    await waitUntil(() => frames.some((frame) => frame.type === 'connection_ack'));
    const ids = ['a', 'quote " and \\ backslash', 'ünï ✓'];
    for (const id of ids) send({ id, type: 'subscribe', payload: { query: 'subscription { tick { n } }' } });
    await waitUntil(() => server.subscriptions.subscribers === 3);
    const next = (n: number) =>
      frames.filter((frame) => frame.type === 'next' && JSON.stringify(frame).includes(`"n":${n}`));

    ticks.emit('tick', 5);
    await waitUntil(() => next(5).length === 3);
    expect(next(5)).toEqual(ids.map((id) => ({ id, type: 'next', payload: { data: { tick: { n: 5 } } } })));

    send({ id: ids[0], type: 'complete' });
    await waitUntil(() => server.subscriptions.subscribers === 2);
    ticks.emit('tick', 6);
    ticks.emit('tick', 7);
    await waitUntil(() => next(7).length === 2);
    expect(next(6).map((frame) => frame.id)).toEqual(ids.slice(1));
    expect(next(7).map((frame) => frame.id)).toEqual(ids.slice(1));
    socket.close();
    await waitUntil(() => ticks.listenerCount('tick') === 0);
  });
});
