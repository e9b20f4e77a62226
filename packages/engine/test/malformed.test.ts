/**
 * Hostile bytes on raw sockets: the engine closes that connection only and keeps serving everyone else.
 * (Engine-specific: mongod answers some of these with error replies instead, so this suite runs on the engine.)
 */
import net from 'node:net';
import { BSON, type Document } from 'bson';
import { openTestDatabase, type TestDatabase } from './support/db';
import { testTarget } from './support/target';

const describeEngine = testTarget() === 'engine' ? describe : describe.skip;

let t: TestDatabase;
/** Where the test database listens: a Unix socket path (the embedded engine's URI) or TCP host and port. */
let address: { path: string } | { host: string; port: number };

interface Raw {
  socket: net.Socket;
  /** Resolves when the server closes the connection. */
  closed: Promise<void>;
  /** Bytes received so far. */
  received(): Buffer;
}

function connect(): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(address, () => resolve({ socket, closed, received: () => Buffer.concat(chunks) }));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
  });
}

/** Fails unless the server closes the connection within the time limit. */
async function expectClosed(raw: Raw): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), 2000)));
  const outcome = await Promise.race([raw.closed.then(() => 'closed' as const), timeout]);
  clearTimeout(timer);
  raw.socket.destroy();
  expect(outcome).toBe('closed');
}

function header(length: number, opCode: number, requestId = 7): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(requestId, 4);
  buf.writeInt32LE(0, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

/** An OP_MSG frame with one body section; `flags` and `body` can be made wrong on purpose. */
function opMsg(body: Uint8Array, flags = 0, trailer: Buffer = Buffer.alloc(0)): Buffer {
  const flagBytes = Buffer.alloc(4);
  flagBytes.writeUInt32LE(flags, 0);
  const length = 16 + 4 + 1 + body.length + trailer.length;
  return Buffer.concat([header(length, 2013), flagBytes, Buffer.from([0]), body, trailer]);
}

const command = (doc: Document): Uint8Array => BSON.serialize(doc);

/** Reads one OP_MSG reply body from a buffer that holds a whole reply. */
function replyBody(bytes: Buffer): Document {
  expect(bytes.readInt32LE(0)).toBe(bytes.length);
  expect(bytes.readInt32LE(12)).toBe(2013);
  return BSON.deserialize(bytes.subarray(21));
}

async function waitForBytes(raw: Raw, count: number): Promise<Buffer> {
  for (let i = 0; i < 100 && raw.received().length < count; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return raw.received();
}

async function driverStillWorks(): Promise<void> {
  const collection = t.db.collection('alive');
  await collection.insertOne({ at: Date.now() });
  expect((await t.db.command({ ping: 1 })).ok).toBe(1);
  expect(await collection.countDocuments()).toBeGreaterThan(0);
}

beforeAll(async () => {
  t = await openTestDatabase();
  const authority = /^mongodb:\/\/([^/?]+)/.exec(t.uri)![1];
  if (authority.startsWith('%2F')) {
    address = { path: decodeURIComponent(authority) };
  } else {
    const url = new URL(t.uri.replace(/^mongodb:/, 'http:'));
    address = { host: url.hostname, port: Number(url.port) };
  }
});
afterAll(async () => {
  await t.close();
});

describeEngine('malformed messages', () => {
  test('a well-formed OP_MSG on a raw socket is answered (the framing used below is right)', async () => {
    const raw = await connect();
    raw.socket.write(opMsg(command({ ping: 1, $db: 'admin' })));
    const bytes = await waitForBytes(raw, 21);
    expect(replyBody(bytes)).toEqual({ ok: 1 });
    raw.socket.destroy();
  });

  test('a legacy OP_QUERY handshake on admin.$cmd is answered with OP_REPLY; other OP_QUERY commands are refused', async () => {
    const query = (name: string, doc: Document): Buffer => {
      const body = Buffer.concat([
        Buffer.alloc(4),
        Buffer.from(name + '\0'),
        Buffer.alloc(8),
        Buffer.from(BSON.serialize(doc)),
      ]);
      return Buffer.concat([header(16 + body.length, 2004), body]);
    };
    const opReply = (bytes: Buffer): Document => {
      expect(bytes.readInt32LE(0)).toBe(bytes.length);
      expect(bytes.readInt32LE(12)).toBe(1);
      expect(bytes.readInt32LE(32)).toBe(1); // numberReturned
      return BSON.deserialize(bytes.subarray(36));
    };
    const raw = await connect();
    raw.socket.write(query('admin.$cmd', { isMaster: 1 }));
    const hello = opReply(await waitForBytes(raw, 36));
    expect(hello).toMatchObject({ ismaster: true, ok: 1 });
    raw.socket.destroy();
    const other = await connect();
    other.socket.write(query('db.$cmd', { find: 'c' }));
    expect(opReply(await waitForBytes(other, 36))).toMatchObject({ ok: 0, code: 352 });
    other.socket.destroy();
  });

  test('a moreToCome message gets no reply, and the next one does', async () => {
    const raw = await connect();
    raw.socket.write(opMsg(command({ ping: 1, $db: 'admin' }), 1 << 1));
    raw.socket.write(opMsg(command({ hello: 1, $db: 'admin' })));
    const body = replyBody(await waitForBytes(raw, 21));
    expect(body.isWritablePrimary).toBe(true);
    raw.socket.destroy();
  });

  test('garbage text closes the connection', async () => {
    const raw = await connect();
    raw.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await expectClosed(raw);
    await driverStillWorks();
  });

  test('a length smaller than a header closes the connection', async () => {
    const raw = await connect();
    raw.socket.write(header(5, 2013));
    await expectClosed(raw);
    await driverStillWorks();
  });

  test('a negative length closes the connection', async () => {
    const raw = await connect();
    raw.socket.write(header(-100, 2013));
    await expectClosed(raw);
  });

  test('a header announcing more than 48 MB closes the connection before any body is sent', async () => {
    const raw = await connect();
    raw.socket.write(header(48_000_001, 2013));
    await expectClosed(raw);
    await driverStillWorks();
  });

  test('an unknown opcode and OP_COMPRESSED close the connection', async () => {
    for (const opCode of [9999, 2012, 1]) {
      const raw = await connect();
      raw.socket.write(Buffer.concat([header(26, opCode), Buffer.alloc(10)]));
      await expectClosed(raw);
    }
    await driverStillWorks();
  });

  test('bad BSON closes the connection', async () => {
    const valid = Buffer.from(command({ ping: 1, $db: 'admin' }));
    const wrongSize = Buffer.from(valid);
    wrongSize.writeInt32LE(valid.length + 50, 0); // claims more bytes than the frame holds
    const badType = Buffer.from(valid);
    badType[4] = 0x77; // an element type that does not exist
    const noTerminator = Buffer.from(valid);
    noTerminator[noTerminator.length - 1] = 1;
    for (const body of [wrongSize, badType, noTerminator]) {
      const raw = await connect();
      raw.socket.write(opMsg(body));
      await expectClosed(raw);
    }
    await driverStillWorks();
  });

  test('a wrong checksum, unknown required flags, or a bad section kind close the connection', async () => {
    const body = command({ ping: 1, $db: 'admin' });
    const frames = [
      opMsg(body, 1, Buffer.from([1, 2, 3, 4])), // checksumPresent with a checksum that does not match
      opMsg(body, 1 << 5), // a required flag bit nobody defined
      Buffer.concat([header(16 + 4 + 1 + 4, 2013), Buffer.alloc(4), Buffer.from([7]), Buffer.alloc(4)]), // section kind 7
    ];
    for (const frame of frames) {
      const raw = await connect();
      raw.socket.write(frame);
      await expectClosed(raw);
    }
    await driverStillWorks();
  });

  test('a document sequence whose length overruns the message closes the connection', async () => {
    const body = Buffer.from(command({ insert: 'x', $db: 'admin' }));
    const sequence = Buffer.alloc(5);
    sequence[0] = 1;
    sequence.writeInt32LE(1000, 1);
    const flags = Buffer.alloc(4);
    const frame = Buffer.concat([header(16 + 4 + 1 + body.length + 5, 2013), flags, Buffer.from([0]), body, sequence]);
    const raw = await connect();
    raw.socket.write(frame);
    await expectClosed(raw);
    await driverStillWorks();
  });

  test('a connection dropped mid-message and a flood of junk do not disturb other clients', async () => {
    const partial = await connect();
    partial.socket.write(opMsg(command({ ping: 1, $db: 'admin' })).subarray(0, 12));
    partial.socket.destroy();
    const flooders = await Promise.all(Array.from({ length: 10 }, () => connect()));
    for (const raw of flooders) raw.socket.write(Buffer.alloc(64 * 1024, 0xff));
    await Promise.all(flooders.map(expectClosed));
    await driverStillWorks();
  });
});

/** `{a: {a: ... {}}}` nested `depth` levels below the document itself, built as bytes in one pass. */
function nestedBytes(depth: number): Buffer {
  const buf = Buffer.alloc(8 * depth + 5);
  for (let level = 0; level < depth; level++) {
    buf.writeInt32LE(5 + 8 * (depth - level), 7 * level);
    buf.set([0x03, 0x61, 0x00], 7 * level + 4);
  }
  buf.writeInt32LE(5, 7 * depth);
  return buf;
}

/** `{ping: 1, x: <nested>, $db: "admin"}` as bytes: the command is one level above `nested`. */
function pingWith(nested: Buffer): Buffer {
  const parts = [
    Buffer.from([0x10, ...Buffer.from('ping\0'), 1, 0, 0, 0]),
    Buffer.concat([Buffer.from([0x03, ...Buffer.from('x\0')]), nested]),
    Buffer.from([0x02, ...Buffer.from('$db\0'), 6, 0, 0, 0, ...Buffer.from('admin\0')]),
  ];
  const length = 4 + parts.reduce((sum, part) => sum + part.length, 0) + 1;
  const size = Buffer.alloc(4);
  size.writeInt32LE(length, 0);
  return Buffer.concat([size, ...parts, Buffer.from([0])]);
}

describeEngine('nesting and pipeline limits (mongod: maxBSONDepth 200, internalPipelineLengthLimit 1000)', () => {
  test('a document nested 100,000 deep is refused at once with Overflow, and the connection keeps answering', async () => {
    const raw = await connect();
    // 200 levels with the command's own: accepted.
    raw.socket.write(opMsg(pingWith(nestedBytes(198))));
    expect(replyBody(await waitForBytes(raw, 21))).toEqual({ ok: 1 });
    const accepted = raw.received().length;

    raw.socket.write(opMsg(pingWith(nestedBytes(100_000))));
    const bytes = (await waitForBytes(raw, accepted + 21)).subarray(accepted);
    expect(replyBody(bytes)).toEqual({
      ok: 0,
      errmsg: 'BSONObj exceeded maximum nested object depth: 200',
      code: 15,
      codeName: 'Overflow',
    });
    const refused = raw.received().length;
    // 201 levels: refused too; then a ping on the same connection.
    raw.socket.write(opMsg(pingWith(nestedBytes(199))));
    expect(replyBody((await waitForBytes(raw, refused + 21)).subarray(refused))).toMatchObject({ ok: 0, code: 15 });
    const again = raw.received().length;
    raw.socket.write(opMsg(command({ ping: 1, $db: 'admin' })));
    expect(replyBody((await waitForBytes(raw, again + 21)).subarray(again))).toEqual({ ok: 1 });
    raw.socket.destroy();
    await driverStillWorks();
  });

  test('a pipeline of 100,000 stages is refused at once with code 7749501; 1,000 run', async () => {
    const collection = t.db.collection('pipeline_limit');
    await collection.insertMany([{ n: 1 }, { n: 2 }]);
    const stages = (count: number) => Array.from({ length: count }, () => ({ $match: { n: { $gte: 1 } } }));
    const message = 'Pipeline length must be no longer than 1000 stages.';

    const frame = opMsg(
      command({ aggregate: 'pipeline_limit', pipeline: stages(100_000), cursor: {}, $db: t.db.databaseName }),
    );
    const raw = await connect();
    raw.socket.write(frame);
    const reply = replyBody(await waitForBytes(raw, 21));
    expect(reply).toMatchObject({ ok: 0, code: 7749501, errmsg: message });
    raw.socket.destroy();
    await expect(collection.aggregate(stages(100_000)).toArray()).rejects.toMatchObject({ code: 7749501, message });
    expect(await collection.aggregate(stages(1000)).toArray()).toHaveLength(2);
    await expect(collection.aggregate(stages(1001)).toArray()).rejects.toMatchObject({ code: 7749501 });
    await expect(collection.aggregate([{ $facet: { many: stages(1001) } }]).toArray()).rejects.toMatchObject({
      code: 7749501,
    });
    const update = Array.from({ length: 1001 }, () => ({ $set: { m: 1 } }));
    await expect(collection.updateOne({ n: 1 }, update)).rejects.toMatchObject({ code: 7749501, message });
    expect(await collection.countDocuments({ m: 1 })).toBe(0);
  });
});
