/**
 * Snapshot formats: format 3 stores long numeric arrays packed and loads them without decoding their numbers; every
 * value comes back as it was, older formats still load, damage is still refused, and writes after a recovery that
 * reads vectors from the snapshot file survive the snapshot being replaced.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  Binary,
  BSON,
  BSONRegExp,
  Code,
  Decimal128,
  deserialize,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
  type Document,
} from 'bson';
import { ChangeLog } from '../src/changes';
import { Engine } from '../src/commands';
import { createJournal, DataDamagedError, DurableLog, frame, Kind, snapshotName, toBson } from '../src/durability';
import { PackedNumbers } from '../src/packed';
import { repairDataDir } from '../src/repair';
import { VectorSpill } from '../src/spill';
import { ID_INDEX, Store } from '../src/store';
import { flipByte, recordOffsets, removeTempDirs, tempDir } from './support/data-dir';

afterAll(removeTempDirs);

/** A vector of `length` numbers; `float32` ones survive float32 (as vectors made from a Float32Array do). */
function vector(seed: number, float32 = true, length = 384): number[] {
  return Array.from({ length }, (_, i) =>
    float32 ? Math.fround(Math.sin(seed * 1000 + i)) : Math.sin(seed * 1000 + i) / 3,
  );
}

/** Documents holding every BSON type the engine stores, vectors where they are packed and where they are not. */
function documents(): Document[] {
  const withSpecials = vector(7, false, 80);
  withSpecials.splice(0, 4, -0, NaN, Infinity, -Infinity);
  return [
    {
      _id: new ObjectId(),
      when: new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6)),
      small: new Long(7),
      big: Long.fromString('9007199254740993'),
      int32: new Int32(12),
      decimal: Decimal128.fromString('1234.5678901234567890123456789'),
      binary: new Binary(Buffer.from([1, 2, 3]), 0),
      uuid: new UUID('0f8fad5b-d9cb-469f-a165-70867728950e'),
      userBinary: new Binary(Buffer.from('not a packed array, whatever its subtype'), 0x80),
      bsonVector: Binary.fromFloat32Array(new Float32Array([0.5, 1.5, -2])),
      regex: new BSONRegExp('^a.c$', 'i'),
      timestamp: new Timestamp({ t: 1700000000, i: 3 }),
      code: new Code('function () { return 1; }'),
      min: new MinKey(),
      max: new MaxKey(),
      flags: [true, false, null],
      text: 'grüße, 世界',
      nested: [[1, 2], [3, [4, [5]]], [], {}],
      objects: [{ a: 1 }, { b: [{ c: 'd' }] }],
      empty: {},
      d: 'a field named as the wrapper',
      p: ['of', 'the', 'snapshot'],
      v: 3,
    },
    {
      _id: 'vectors',
      embeddings: {
        first_embedding: vector(1),
        second_embedding: vector(2, false),
        notPacked: null,
        bsonVector: Binary.fromFloat32Array(new Float32Array(vector(3, true, 64))),
      },
      top: vector(4),
      specials: withSpecials,
      short: vector(5, true, 63),
      mixed: [...vector(6, true, 70), 'x'],
      longs: Array.from({ length: 70 }, (_, i) => new Long(i)),
      deep: { inner: { v: vector(8) } },
      inArray: [{ v: vector(9) }],
    },
    { _id: 2, embeddings: { only_embedding: vector(10) }, constructor: 'a name', toString: vector(11) },
  ];
}

interface Opened {
  store: Store;
  spill: VectorSpill;
  log: DurableLog;
  engine: Engine;
  run(command: Document): Promise<Document>;
  close(): Promise<void>;
}

async function open(dir: string, minCompactionBytes?: number): Promise<Opened> {
  const spill: VectorSpill = new VectorSpill(dir, () => store.documents(), minCompactionBytes);
  const store = new Store(new ChangeLog(), spill);
  let log: DurableLog;
  try {
    log = await DurableLog.open(dir, store, {});
  } catch (error) {
    spill.close();
    throw error;
  }
  const engine = new Engine(store, log);
  return {
    store,
    spill,
    log,
    engine,
    run: async (command) => {
      const reply = BSON.deserialize(BSON.serialize(await engine.execute({ ...command, $db: 'db' }, 1)));
      if (reply.ok !== 1) throw new Error(JSON.stringify(reply));
      return reply;
    },
    close: async () => {
      engine.close();
      await log.close();
      spill.close();
    },
  };
}

/** Each stored document of db.c as BSON, by `_id`: byte equality is value, type and field order equality. */
function storedBson(store: Store): Map<string, string> {
  const out = new Map<string, string>();
  for (const doc of store.collection('db', 'c')!.docs.values())
    out.set(JSON.stringify(BSON.serialize({ id: doc._id })), Buffer.from(BSON.serialize(doc)).toString('hex'));
  return out;
}

async function snapshotFile(dir: string): Promise<string> {
  const names = (await readdir(dir)).filter((name) => /^snapshot-\d+\.bson$/.test(name)).sort();
  return path.join(dir, names.at(-1)!);
}

/** The bodies of a snapshot file's records. */
function records(data: Buffer): Buffer[] {
  return recordOffsets(data).map((at) => data.subarray(at + 8, at + 8 + data.readUInt32LE(at)));
}

/** Writes a snapshot of `docs` in db.c, in a format written before format 3, with the journal after it. */
async function writeOldSnapshot(dir: string, format: 1 | 2, docs: Document[]): Promise<void> {
  const body =
    format === 1
      ? docs.map((doc) => BSON.serialize(doc))
      : docs.map((doc) => {
          // Format 2: each packed array as a Binary where it stands, its path in `p`.
          const paths: string[][] = [];
          const d: Document = {};
          for (const [key, value] of Object.entries(doc)) {
            if (key === 'embeddings') {
              d[key] = {};
              for (const [field, inner] of Object.entries(value as Document)) {
                paths.push([key, field]);
                d[key][field] = Binary.fromFloat32Array(new Float32Array(inner as number[]));
              }
            } else d[key] = value;
          }
          return BSON.serialize(paths.length > 0 ? { d, p: paths } : { d });
        });
  const file = Buffer.concat([
    frame([Uint8Array.of(Kind.Header), toBson({ format, seq: 1, journalHeaders: true })]),
    frame([Uint8Array.of(Kind.Database), toBson({ name: 'db' })]),
    frame([
      Uint8Array.of(Kind.Collection),
      toBson({ db: 'db', name: 'c', options: {}, indexes: [ID_INDEX, { v: 2, key: { tag: 1 }, name: 'tag_1' }] }),
    ]),
    frame([Uint8Array.of(format === 1 ? Kind.Documents : Kind.Packed), ...body]),
    frame([Uint8Array.of(Kind.End), toBson({ databases: 1, collections: 1, documents: docs.length, sidecar: 0 })]),
  ]);
  await writeFile(path.join(dir, snapshotName(1)), file);
  await createJournal(dir, 1);
}

describe('format 3 snapshots', () => {
  it('round-trip every BSON type the engine stores, byte for byte, with long numeric arrays packed', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    await first.run({ insert: 'c', documents: documents() });
    const before = storedBson(first.store);
    await first.log.compact();
    await first.close();

    const data = await readFile(await snapshotFile(dir));
    const bodies = records(data);
    expect(deserialize(bodies[0].subarray(1)).format).toBe(3);
    const packed = bodies.filter((body) => body[0] === Kind.Packed);
    expect(packed).toHaveLength(1);
    const wrappers: Document[] = [];
    for (let at = 1; at < packed[0].length; at += packed[0].readInt32LE(at))
      wrappers.push(deserialize(packed[0].subarray(at, at + packed[0].readInt32LE(at))));
    // Only arrays of 64 numbers or more, at the top level or in a top-level subdocument, are packed.
    expect(wrappers.map((wrapper) => wrapper.p ?? [])).toEqual([
      [],
      [
        ['embeddings', 'first_embedding', 4, 384],
        ['embeddings', 'second_embedding', 8, 384],
        ['top', null, 4, 384],
        ['specials', null, 8, 80],
      ],
      [
        ['embeddings', 'only_embedding', 4, 384],
        ['toString', null, 4, 384],
      ],
    ]);
    expect(wrappers[1].d.embeddings.first_embedding).toBeNull();

    const second = await open(dir);
    try {
      expect(storedBson(second.store)).toEqual(before);
      // And as a client reads them.
      const found = (await second.run({ find: 'c', filter: { _id: 'vectors' } })).cursor.firstBatch[0] as Document;
      expect(found.embeddings.first_embedding).toEqual(vector(1));
      expect(Object.is(found.specials[0], -0)).toBe(true);
      expect(found.specials.slice(1, 4)).toEqual([NaN, Infinity, -Infinity]);
      expect(found.embeddings.bsonVector).toBeInstanceOf(Binary);
    } finally {
      await second.close();
    }
  });

  it('a store without a spill file (repair, backup) gets the arrays back as arrays', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    await first.run({ insert: 'c', documents: documents() });
    const before = storedBson(first.store);
    await first.log.compact();
    await first.close();

    const store = new Store();
    const log = await DurableLog.open(dir, store, {});
    await log.close();
    expect(storedBson(store)).toEqual(before);
    const doc = store.collection('db', 'c')!.get('vectors')!;
    expect(Object.getOwnPropertyDescriptor(doc.embeddings, 'first_embedding')?.value).toEqual(vector(1));
  });

  it('a flipped byte in a packed vector is refused as damage, naming the snapshot and the record', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    await first.run({ insert: 'c', documents: documents() });
    await first.log.compact();
    await first.close();
    const file = await snapshotFile(dir);
    const data = await readFile(file);
    const offsets = recordOffsets(data);
    const at = offsets.find((offset) => data[offset + 8] === Kind.Packed)!;
    await flipByte(file, at + data.readUInt32LE(at) - 100); // in the last document's packed bytes

    const error = await open(dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDamagedError);
    expect(error).toMatchObject({ file: path.basename(file), offset: at });
  });

  it('a packed entry that names no placeholder is refused as damage even with a valid checksum', async () => {
    const dir = await tempDir();
    const wrapper = {
      d: { _id: 1, embeddings: { a: 'not a placeholder' } },
      p: [['embeddings', 'a', 4, 1]],
      v: new Binary(Buffer.alloc(4)),
    };
    const file = Buffer.concat([
      frame([Uint8Array.of(Kind.Header), toBson({ format: 3, seq: 1, journalHeaders: true })]),
      frame([Uint8Array.of(Kind.Database), toBson({ name: 'db' })]),
      frame([Uint8Array.of(Kind.Collection), toBson({ db: 'db', name: 'c', options: {}, indexes: [ID_INDEX] })]),
      frame([Uint8Array.of(Kind.Packed), toBson(wrapper)]),
      frame([Uint8Array.of(Kind.End), toBson({ databases: 1, collections: 1, documents: 1, sidecar: 0 })]),
    ]);
    await writeFile(path.join(dir, snapshotName(1)), file);
    await createJournal(dir, 1);
    const error = await open(dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDamagedError);
    expect((error as DataDamagedError).detail).toContain('no packed array at embeddings.a');
  });
});

it('packed numbers that no snapshot file holds (as on Windows) are copied into the spill file', async () => {
  const dir = await tempDir();
  const store = new Store();
  const spill = new VectorSpill(dir, () => store.documents());
  try {
    const doc: Document = {
      _id: 1,
      top: PackedNumbers.fromArray(vector(1), true),
      embeddings: { a: PackedNumbers.fromArray(vector(2, false), false) },
    };
    spill.spillDocument(doc, true);
    expect(spill.fileBytes).toBe(384 * 4 + 384 * 8);
    expect(doc.top).toEqual(vector(1));
    expect(doc.embeddings.a).toEqual(vector(2, false));
  } finally {
    spill.close();
  }
});

describe('older snapshots', () => {
  const plain = (): Document[] => [
    { _id: 1, tag: 'a', when: new Date(0), n: new Long(5), embeddings: { e_embedding: vector(1) } },
    { _id: 2, tag: 'b', embeddings: { e_embedding: vector(2), f_embedding: vector(3) } },
    { _id: 3, tag: 'a', text: 'no vectors' },
  ];

  it.each([1, 2] as const)('format %i loads with its indexes, and the next snapshot is format 3', async (format) => {
    const dir = await tempDir();
    const docs = plain();
    await writeOldSnapshot(dir, format, docs);

    const first = await open(dir);
    const expected = new Map(
      docs.map((doc) => [
        JSON.stringify(BSON.serialize({ id: doc._id })),
        Buffer.from(BSON.serialize(doc)).toString('hex'),
      ]),
    );
    expect(storedBson(first.store)).toEqual(expected);
    const byTag = (await first.run({ find: 'c', filter: { tag: 'a' }, hint: 'tag_1' })).cursor.firstBatch as Document[];
    expect(byTag.map((doc) => doc._id)).toEqual([1, 3]);
    await first.log.compact();
    await first.close();

    const data = await readFile(await snapshotFile(dir));
    expect(deserialize(records(data)[0].subarray(1)).format).toBe(3);
    const second = await open(dir);
    try {
      expect(storedBson(second.store)).toEqual(expected);
    } finally {
      await second.close();
    }
  });
});

describe('writes after a recovery that reads vectors from the snapshot', () => {
  it('survive later snapshots (the loaded one deleted) and spill compactions, and every vector reads back', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    const docs = Array.from({ length: 40 }, (_, i) => ({ _id: i, embeddings: { e_embedding: vector(i) }, n: i }));
    await first.run({ insert: 'c', documents: docs });
    await first.log.compact();
    await first.close();

    // A small compaction threshold, so that the writes below move the arrays out of the snapshot file.
    const second = await open(dir, 64 << 10);
    await second.run({
      update: 'c',
      updates: [{ q: { _id: 0 }, u: { $set: { 'embeddings.e_embedding': vector(100) } } }],
    });
    await second.run({ delete: 'c', deletes: [{ q: { _id: 1 }, limit: 1 }] });
    await second.run({ insert: 'c', documents: [{ _id: 40, embeddings: { e_embedding: vector(40) }, n: 40 }] });
    const loaded = await snapshotFile(dir);
    await second.log.compact(); // a new snapshot; the loaded one, which stored arrays are read from, is deleted
    expect(await snapshotFile(dir)).not.toBe(loaded);
    for (let i = 41; i < 120; i++)
      await second.run({ insert: 'c', documents: [{ _id: i, embeddings: { e_embedding: vector(i) }, n: i }] });
    const afterWrites = await second.run({ find: 'c', filter: { _id: { $in: [0, 2, 39] } }, sort: { _id: 1 } });
    expect(afterWrites.cursor.firstBatch.map((doc: Document) => doc.embeddings.e_embedding)).toEqual([
      vector(100),
      vector(2),
      vector(39),
    ]);
    await second.close();

    const third = await open(dir);
    try {
      const all = (await third.run({ find: 'c', filter: {}, sort: { _id: 1 }, batchSize: 1000 })).cursor
        .firstBatch as Document[];
      expect(all.map((doc) => doc._id)).toEqual([0, ...Array.from({ length: 118 }, (_, i) => i + 2)]);
      for (const doc of all) expect(doc.embeddings.e_embedding).toEqual(vector(doc._id === 0 ? 100 : doc._id));
    } finally {
      await third.close();
    }
  });
});

describe('indexes of a loaded snapshot (built on first use)', () => {
  /** Writes a snapshot of indexed documents, then journals changes after it, and reopens. */
  async function reopened(): Promise<Opened> {
    const dir = await tempDir();
    const first = await open(dir);
    await first.run({
      createIndexes: 'c',
      indexes: [
        { key: { email: 1 }, name: 'email', unique: true },
        { key: { team: 1, rank: -1 }, name: 'team_rank' },
        { key: { tags: 1 }, name: 'tags' },
        { key: { 'profile.city': 1 }, name: 'city', sparse: true },
      ],
    });
    await first.run({
      insert: 'c',
      documents: Array.from({ length: 30 }, (_, i) => ({
        _id: i,
        email: `user${i}@example.com`,
        team: `team-${i % 3}`,
        rank: i,
        ...(i % 5 === 0 ? { tags: ['x', `t${i}`] } : { tags: `t${i}` }),
        ...(i % 2 === 0 ? { profile: { city: i % 4 === 0 ? 'Oslo' : 'Lima' } } : {}),
        embeddings: { e_embedding: vector(i) },
      })),
    });
    await first.log.compact();
    // Journaled after the snapshot: replayed into indexes that are not built yet.
    await first.run({
      update: 'c',
      updates: [
        { q: { _id: 1 }, u: { $set: { email: 'renamed@example.com', team: 'team-9', tags: ['x'] } } },
        { q: { _id: 2 }, u: { $unset: { profile: '' } } },
      ],
    });
    await first.run({ delete: 'c', deletes: [{ q: { _id: 3 }, limit: 1 }] });
    await first.run({ insert: 'c', documents: [{ _id: 30, email: 'user3@example.com', team: 'team-0', rank: 30 }] });
    await first.close();
    return open(dir);
  }

  const ids = (reply: Document): unknown[] => (reply.cursor.firstBatch as Document[]).map((doc) => doc._id);

  it('a unique index still refuses a duplicate, and takes a value freed by an update or a delete', async () => {
    const engine = await reopened();
    try {
      const duplicate = await engine.engine.execute(
        { insert: 'c', documents: [{ _id: 100, email: 'user4@example.com' }], $db: 'db' },
        1,
      );
      expect(duplicate.writeErrors?.[0]).toMatchObject({ code: 11000 });
      await engine.run({ insert: 'c', documents: [{ _id: 101, email: 'user1@example.com' }] });
      const byEmail = await engine.run({ find: 'c', filter: { email: 'user3@example.com' }, hint: 'email' });
      expect(ids(byEmail)).toEqual([30]);
    } finally {
      await engine.close();
    }
  });

  it('equality, leading-field, multikey, sparse and sorted reads answer as before the restart', async () => {
    const engine = await reopened();
    try {
      expect(ids(await engine.run({ find: 'c', filter: { team: 'team-9' } }))).toEqual([1]);
      expect(ids(await engine.run({ find: 'c', filter: { team: 'team-1' }, sort: { team: 1, rank: -1 } }))).toEqual([
        28, 25, 22, 19, 16, 13, 10, 7, 4,
      ]);
      expect(ids(await engine.run({ find: 'c', filter: { tags: 'x' }, sort: { _id: 1 } }))).toEqual([
        0, 1, 5, 10, 15, 20, 25,
      ]);
      expect(engine.store.collection('db', 'c')!.indexes.get('tags')!.multikey).toBe(true);
      expect(
        ids(await engine.run({ find: 'c', filter: { 'profile.city': 'Oslo' }, sort: { _id: 1 }, hint: 'city' })),
      ).toEqual([0, 4, 8, 12, 16, 20, 24, 28]);
      expect(
        ids(await engine.run({ find: 'c', filter: { 'profile.city': 'Lima' }, sort: { _id: 1 }, hint: 'city' })),
      ).toEqual([6, 10, 14, 18, 22, 26]);
      // A write before any read of an index, then the read.
      await engine.run({ update: 'c', updates: [{ q: { _id: 6 }, u: { $set: { rank: -5 } } }] });
      const walk = await engine.run({
        find: 'c',
        filter: {},
        sort: { team: 1, rank: -1 },
        limit: 3,
        hint: 'team_rank',
      });
      expect(ids(walk)).toEqual([30, 27, 24]);
      const last = await engine.run({ find: 'c', filter: { team: 'team-0' }, sort: { rank: 1 }, limit: 2 });
      expect(ids(last)).toEqual([6, 0]);
    } finally {
      await engine.close();
    }
  });
});

describe('journals of format 2: puts with vectors packed', () => {
  /** The ops of each record of a journal after its header, as stored (packed puts not unpacked). */
  async function journalOps(dir: string, seq = 1): Promise<{ header: Document; ops: Document[] }> {
    const data = await readFile(path.join(dir, `journal-${String(seq).padStart(12, '0')}.log`));
    const [first, ...rest] = records(data);
    const ops: Document[] = [];
    for (const body of rest)
      for (let at = 0; at < body.length; at += body.readInt32LE(at))
        ops.push(deserialize(body.subarray(at, at + body.readInt32LE(at))));
    return { header: deserialize(first.subarray(8)), ops };
  }

  it('replay gives every document back byte for byte, with a spill file and without (repair, backup)', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    await first.run({ insert: 'c', documents: documents() });
    const before = storedBson(first.store);
    await first.close();

    const { header, ops } = await journalOps(dir);
    expect(header.format).toBe(2);
    const puts = ops.filter((op) => op.t === 'put');
    expect(puts.map((op) => (op.p as unknown[] | undefined)?.length ?? 0)).toEqual([0, 4, 2]);
    expect(puts[1].doc.embeddings.first_embedding).toBeNull();

    const second = await open(dir);
    try {
      expect(storedBson(second.store)).toEqual(before);
    } finally {
      await second.close();
    }
    const store = new Store();
    const log = await DurableLog.open(dir, store, {});
    await log.close();
    expect(storedBson(store)).toEqual(before);
  });

  it('a journal an older build began (format 1) is continued with plain records, and replays', async () => {
    const dir = await tempDir();
    const old = { t: 'put', db: 'db', coll: 'c', doc: { _id: 'old', v: vector(1) } };
    await writeFile(
      path.join(dir, 'journal-000000000001.log'),
      Buffer.concat([frame([Buffer.from('HINDJRNL', 'latin1'), toBson({ format: 1, seq: 1 })]), frame([toBson(old)])]),
    );
    const first = await open(dir);
    await first.run({ insert: 'c', documents: [{ _id: 'new', embeddings: { e: vector(2) } }] });
    const before = storedBson(first.store);
    await first.close();
    const { header, ops } = await journalOps(dir);
    expect(header.format).toBe(1);
    expect(
      ops.filter((op) => op.t === 'put').map((op) => [op.doc._id, op.v === undefined ? 'plain' : 'packed']),
    ).toEqual([
      ['old', 'plain'],
      ['new', 'plain'],
    ]);

    const second = await open(dir);
    try {
      expect(storedBson(second.store)).toEqual(before);
      await second.log.compact(); // the next journal is format 2
      await second.run({ insert: 'c', documents: [{ _id: 'newer', embeddings: { e: vector(3) } }] });
      const next = await journalOps(dir, 2);
      expect(next.header.format).toBe(2);
      expect(next.ops.filter((op) => op.t === 'put').map((op) => op.p)).toEqual([[['embeddings', 'e', 4, 384]]]);
    } finally {
      await second.close();
    }
    const third = await open(dir);
    try {
      expect((await third.run({ find: 'c', filter: { _id: 'newer' } })).cursor.firstBatch[0].embeddings.e).toEqual(
        vector(3),
      );
      expect(third.store.collection('db', 'c')!.docs.size).toBe(3);
    } finally {
      await third.close();
    }
  });

  it('a flipped byte in a packed record is refused; repair keeps the records around it', async () => {
    const dir = await tempDir();
    const first = await open(dir);
    for (let i = 0; i < 5; i++) await first.run({ insert: 'c', documents: [{ _id: i, embeddings: { e: vector(i) } }] });
    await first.close();
    const file = path.join(dir, 'journal-000000000001.log');
    const data = await readFile(file);
    const offsets = recordOffsets(data);
    await flipByte(file, offsets[3] + 200); // in the vector bytes of the third insert
    const error = await open(dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ file: 'journal-000000000001.log', offset: offsets[3] });

    await repairDataDir(dir);
    const repaired = await open(dir);
    try {
      const docs = (await repaired.run({ find: 'c', filter: {}, sort: { _id: 1 } })).cursor.firstBatch as Document[];
      expect(docs.map((doc) => doc._id)).toEqual([0, 1, 3, 4]);
      for (const doc of docs) expect(doc.embeddings.e).toEqual(vector(doc._id as number));
    } finally {
      await repaired.close();
    }
  });
});
