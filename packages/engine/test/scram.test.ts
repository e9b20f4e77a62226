/**
 * `npm run db` with DB_USER/DB_PASSWORD speaks SCRAM-SHA-256 as mongod does: the official driver (and pymongo, where
 * installed) authenticate with `authSource=admin`; a wrong password gets 18, a client without credentials 13 on
 * anything but the handshake; and it refuses to listen beyond loopback without credentials.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Binary, MongoClient, MongoServerError, type Document } from 'mongodb';
import { scramCredential, startEmbeddedServer, type EmbeddedServer } from '../src';
import { compiled } from './support/build';

let dir: string;
let server: EmbeddedServer;
const address = (): string => `127.0.0.1:${server.port}`;
const withCredentials = (user: string, password: string): string =>
  `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${address()}/?authMechanism=SCRAM-SHA-256&authSource=admin&directConnection=true`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'scram-test-'));
  // A non-ASCII password: the server SASLprep's it as the driver does.
  server = await startEmbeddedServer({ dataDir: dir, port: 0, credential: scramCredential('ops', 'pässwörd, 1') });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function codeOf(run: () => Promise<unknown>): Promise<number | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error instanceof MongoServerError ? Number(error.code) : -1;
  }
}

test('the stored credential keeps salt, iteration count and keys, never the password', () => {
  const credential = scramCredential('ops', 'secret-password');
  expect(Object.keys(credential).sort()).toEqual(['iterations', 'salt', 'serverKey', 'storedKey', 'user']);
  expect(credential.iterations).toBeGreaterThanOrEqual(15_000);
  expect(JSON.stringify(credential)).not.toContain('secret-password');
});

test('the official driver authenticates with SCRAM-SHA-256 and reads and writes', async () => {
  const client = await MongoClient.connect(withCredentials('ops', 'pässwörd, 1'));
  try {
    const notes = client.db('app').collection<{ _id: number; text: string }>('notes');
    await notes.insertOne({ _id: 1, text: 'kept' });
    expect(await notes.findOne({ _id: 1 })).toEqual({ _id: 1, text: 'kept' });
    const status = await client.db('admin').command({ connectionStatus: 1 });
    expect(status.ok).toBe(1);
  } finally {
    await client.close();
  }
});

test('with no authMechanism the driver learns SCRAM-SHA-256 from hello saslSupportedMechs', async () => {
  const uri = `mongodb://ops:${encodeURIComponent('pässwörd, 1')}@${address()}/?authSource=admin&directConnection=true`;
  const client = await MongoClient.connect(uri);
  try {
    expect(await client.db('app').collection('notes').countDocuments()).toBe(1);
    const hello = await client.db('admin').command({ hello: 1, saslSupportedMechs: 'admin.ops' });
    expect(hello.saslSupportedMechs).toEqual(['SCRAM-SHA-256']);
    const other = await client.db('admin').command({ hello: 1, saslSupportedMechs: 'admin.nobody' });
    expect(other.saslSupportedMechs).toBeUndefined();
  } finally {
    await client.close();
  }
});

/** The client side of RFC 5802 over saslStart/saslContinue, on a one-connection client so the conversation stays on it. */
async function converse(client: MongoClient, password: string, skipEmptyExchange: boolean): Promise<Document[]> {
  const admin = client.db('admin');
  const clientFirstBare = `n=ops,r=${randomBytes(18).toString('base64')}`;
  const first = await admin.command({
    saslStart: 1,
    mechanism: 'SCRAM-SHA-256',
    payload: new Binary(Buffer.from(`n,,${clientFirstBare}`)),
    ...(skipEmptyExchange ? { options: { skipEmptyExchange: true } } : {}),
  });
  const serverFirst = Buffer.from((first.payload as Binary).buffer).toString();
  const fields = Object.fromEntries(serverFirst.split(',').map((part) => [part[0], part.slice(2)]));
  const salted = pbkdf2Sync(password, Buffer.from(fields.s!, 'base64'), Number(fields.i), 32, 'sha256');
  const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();
  const clientKey = hmac(salted, 'Client Key');
  const withoutProof = `c=biws,r=${fields.r}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const signature = hmac(createHash('sha256').update(clientKey).digest(), authMessage);
  const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]!)).toString('base64');
  const replies = [first];
  let reply = await admin.command({
    saslContinue: 1,
    conversationId: first.conversationId,
    payload: new Binary(Buffer.from(`${withoutProof},p=${proof}`)),
  });
  replies.push(reply);
  const v = Buffer.from((reply.payload as Binary).buffer).toString();
  expect(v).toBe(`v=${hmac(hmac(salted, 'Server Key'), authMessage).toString('base64')}`);
  if (!reply.done) {
    reply = await admin.command({ saslContinue: 1, conversationId: 1, payload: new Binary(Buffer.alloc(0)) });
    replies.push(reply);
  }
  return replies;
}

test('saslStart/saslContinue by hand: three steps, or two with skipEmptyExchange, then the connection may read', async () => {
  for (const skipEmptyExchange of [false, true]) {
    const client = await MongoClient.connect(`mongodb://${address()}/?directConnection=true`, { maxPoolSize: 1 });
    try {
      const notes = client.db('app').collection('notes');
      expect(await codeOf(() => notes.countDocuments())).toBe(13);
      const replies = await converse(client, 'pässwörd, 1', skipEmptyExchange);
      expect(replies.map((reply) => reply.done)).toEqual(skipEmptyExchange ? [false, true] : [false, false, true]);
      expect(await notes.countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
  }
});

test('a wrong proof fails with 18 and leaves the connection unauthenticated', async () => {
  const client = await MongoClient.connect(`mongodb://${address()}/?directConnection=true`, { maxPoolSize: 1 });
  try {
    expect(await codeOf(() => converse(client, 'wrong', true))).toBe(18);
    expect(await codeOf(() => client.db('app').collection('notes').countDocuments())).toBe(13);
    const other = client.db('admin').command({ saslStart: 1, mechanism: 'SCRAM-SHA-1', payload: new Binary() });
    expect(await codeOf(() => other)).toBe(334);
  } finally {
    await client.close();
  }
});

test('malformed SCRAM messages get 18 and leave the connection open and unauthenticated', async () => {
  const client = await MongoClient.connect(`mongodb://${address()}/?directConnection=true`, { maxPoolSize: 1 });
  try {
    const admin = client.db('admin');
    const start = (payload: unknown) => admin.command({ saslStart: 1, mechanism: 'SCRAM-SHA-256', payload });
    for (const payload of [
      42,
      new Binary(Buffer.from('p=tls-unique,,n=ops,r=abc')),
      new Binary(Buffer.from('n,,n=ops')),
    ])
      expect(await codeOf(() => start(payload))).toBe(18);
    expect(await codeOf(() => admin.command({ saslContinue: 1, conversationId: 1, payload: new Binary() }))).toBe(18);
    await start(new Binary(Buffer.from('n,,n=ops,r=abcdef')));
    const garbage = new Binary(Buffer.from('c=biws,r=abcdef,p=!!'));
    expect(await codeOf(() => admin.command({ saslContinue: 1, conversationId: 1, payload: garbage }))).toBe(18);
    expect(await codeOf(() => client.db('app').collection('notes').countDocuments())).toBe(13);
  } finally {
    await client.close();
  }
});

test('a wrong password, an unknown user or another authSource fails with 18 AuthenticationFailed', async () => {
  for (const uri of [
    withCredentials('ops', 'wrong'),
    withCredentials('nobody', 'pässwörd, 1'),
    withCredentials('ops', 'pässwörd, 1').replace('authSource=admin', 'authSource=app'),
  ]) {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2_000 });
    try {
      expect([uri, await codeOf(() => client.connect())]).toEqual([uri, 18]);
    } finally {
      await client.close();
    }
  }
});

test('a client without credentials gets 13 Unauthorized on find and insert, and changes nothing', async () => {
  const client = await MongoClient.connect(`mongodb://${address()}/?directConnection=true`);
  try {
    const notes = client.db('app').collection('notes');
    expect(await codeOf(() => notes.find().toArray())).toBe(13);
    expect(await codeOf(() => notes.insertOne({ _id: 2 } as never))).toBe(13);
    expect(await codeOf(() => client.db('admin').command({ listDatabases: 1 }))).toBe(13);
    await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    await expect(client.db('admin').command({ buildInfo: 1 })).resolves.toMatchObject({ version: '7.0.0' });
  } finally {
    await client.close();
  }
  const admin = await MongoClient.connect(withCredentials('ops', 'pässwörd, 1'));
  try {
    expect(await admin.db('app').collection('notes').countDocuments()).toBe(1);
  } finally {
    await admin.close();
  }
});

test('pymongo authenticates with SCRAM-SHA-256 too', async () => {
  let hasPymongo = true;
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import pymongo'], { stdio: 'ignore' });
  } catch {
    hasPymongo = false;
  }
  if (!hasPymongo) {
    console.warn('skipped: /usr/bin/python3 cannot import pymongo (apt-get install python3-pymongo)');
    return;
  }
  const script = [
    'import sys, pymongo',
    'c = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)',
    'print(c.app.notes.find_one({"_id": 1})["text"])',
  ].join('\n');
  // Asynchronously: the engine answering it runs in this process.
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [
    '-c',
    script,
    withCredentials('ops', 'pässwörd, 1'),
  ]);
  expect(stdout.trim()).toBe('kept');
});

test('npm run db on 0.0.0.0 without DB_USER/DB_PASSWORD exits 2 with a message before listening', async () => {
  const dataDir = path.join(dir, 'never-created');
  const child = spawn(process.execPath, [compiled('src/cli.js')], {
    env: { ...process.env, DB_HOST: '0.0.0.0', DB_PORT: '0', DATA_DIR: dataDir, DB_USER: '', DB_PASSWORD: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  expect(code).toBe(2);
  expect(output).toContain('DB_HOST=0.0.0.0 is reachable from other machines: set DB_USER and DB_PASSWORD');
  expect(output).not.toContain('listening');
  await expect(rm(dataDir)).rejects.toThrow('ENOENT');
});
