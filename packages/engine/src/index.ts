/**
 * The engine's public API: start it in this process (`startEmbeddedServer`) or in a worker thread
 * (`startEngineThread`), with `EngineOptions`; either way clients connect with the official driver to its `uri`.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { ChangeLog, dataDirId, ID_FILE } from './changes';
import { Engine } from './commands';
import { DurableLog } from './durability';
import type { EmbeddedServer, EngineOptions } from './options';
import { listen } from './server';
import { VectorSpill } from './spill';
import { Store } from './store';

export type { EmbeddedServer, EngineOptions } from './options';
export { DataDamagedError, type EngineLog } from './durability';
export { repairDataDir, type RepairReport, type RepairedFile } from './repair';
export { backupDataDir, type BackupResult } from './backup';
export { canStartEngineThread, startEngineThread, type EngineThreadMessage, type EngineThreadOptions } from './thread';

/**
 * Starts the embedded MongoDB-compatible engine: recovers `dataDir` (snapshot + journal), then serves the
 * wire protocol so the official driver can use it like a standalone mongod.
 */
export async function startEmbeddedServer(options: EngineOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  const host = options.host ?? '127.0.0.1';
  // Read before dataDirId creates it: an id file means the directory has held data, so missing files are damage.
  const expectData = await access(path.join(options.dataDir, ID_FILE)).then(
    () => true,
    () => false,
  );
  const changes = new ChangeLog(await dataDirId(options.dataDir), options.changeLogEvents);
  const spill = new VectorSpill(options.dataDir, () => store.documents());
  const store: Store = new Store(changes, spill);
  let journal;
  try {
    journal = await DurableLog.open(options.dataDir, store, {
      log,
      compactAfterBytes: options.compactAfterBytes,
      expectData,
    });
  } catch (error) {
    spill.close();
    throw error;
  }
  const engine = new Engine(store, journal, log, { enableTestCommands: options.enableTestCommands });
  let server;
  try {
    server = await listen(engine, host, options.port ?? 27017, log, localSocketPath(options.dataDir));
  } catch (error) {
    engine.close();
    await journal.close();
    spill.close();
    throw error;
  }
  const wire = server;
  let closing: Promise<void> | undefined;
  return {
    uri: wire.socketPath
      ? `mongodb://${encodeURIComponent(wire.socketPath)}/?directConnection=true`
      : `mongodb://${host}:${wire.port}/?directConnection=true`,
    host,
    port: wire.port,
    close() {
      closing ??= (async () => {
        await wire.close();
        engine.close();
        await journal!.close();
        spill.close();
      })();
      return closing;
    },
  };
}

/** `<dataDir>/engine.sock`, or undefined where a Unix domain socket cannot be used (Windows, or a path over the ~107-byte limit). */
function localSocketPath(dataDir: string): string | undefined {
  const socketPath = path.resolve(dataDir, 'engine.sock');
  return process.platform !== 'win32' && Buffer.byteLength(socketPath) < 100 ? socketPath : undefined;
}
