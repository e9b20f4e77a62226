import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { EmbeddedServer } from '../src';
import { compiled } from './support/build';

interface Item {
  _id: number;
  at: number;
  changed?: boolean;
}

/** The engine thread as npm start runs it: the compiled module, whose Worker entry is compiled JavaScript too. */
function threadModule(): typeof import('../src/thread') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(compiled('src/thread.js'));
}

describe('the embedded engine in its own thread', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-thread-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function start(crashes: Error[] = []): Promise<EmbeddedServer> {
    const { canStartEngineThread, startEngineThread } = threadModule();
    expect(canStartEngineThread()).toBe(true);
    return startEngineThread({
      dataDir,
      port: 0,
      host: '127.0.0.1',
      log: () => undefined,
      onCrash: (error) => crashes.push(error),
    });
  }

  it('serves the driver from another thread and keeps every acknowledged write across a restart', async () => {
    const crashes: Error[] = [];
    const engine = await start(crashes);
    const client = await MongoClient.connect(engine.uri);
    const items = client.db('app').collection<Item>('items');
    await items.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: i, at: i })));
    await items.updateOne({ _id: 7 }, { $set: { changed: true } });
    await client.close();
    await engine.close();
    expect(crashes).toEqual([]);

    const again = await start();
    const reader = await MongoClient.connect(again.uri);
    const reread = reader.db('app').collection<Item>('items');
    expect(await reread.countDocuments()).toBe(100);
    expect(await reread.findOne({ _id: 7 })).toEqual({ _id: 7, at: 7, changed: true });
    await reader.close();
    await again.close();
  });

  it('rejects the start when the engine cannot open its data directory', async () => {
    const { startEngineThread } = threadModule();
    const file = path.join(dataDir, 'not-a-directory');
    writeFileSync(file, 'x');
    await expect(
      startEngineThread({ dataDir: file, port: 0, host: '127.0.0.1', log: () => undefined, onCrash: () => undefined }),
    ).rejects.toThrow();
  });
});
