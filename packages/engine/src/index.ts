/**
 * The engine's public API: start it in this process (`startEmbeddedServer`) or in a worker thread
 * (`startEngineThread`), with `EngineOptions`; either way clients connect with the official driver to its `uri`.
 */
import { access, chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ChangeLog, dataDirId, ID_FILE } from './changes';
import { Engine } from './commands';
import { makePrivate } from './files';
import { DurableLog, checkDataFiles, listDataDir } from './durability';
import type { EmbeddedServer, EngineOptions } from './options';
import { listen, type WireServer } from './server';
import { VectorSpill } from './spill';
import { Store } from './store';

export type { EmbeddedServer, EngineOptions } from './options';
export { scramCredential, type ScramCredential } from './auth';
export { DataDamagedError, type EngineLog } from './durability';
export { repairDataDir, type RepairReport, type RepairedFile } from './repair';
export { backupDataDir, type BackupResult } from './backup';
/** Whether a `$project` runs as compiled closures rather than in mingo: the app's tests hold its reads to it. */
export { compileProject, NotCompiled } from './expressions';
export { canStartEngineThread, startEngineThread, type EngineThreadMessage, type EngineThreadOptions } from './thread';

/**
 * Starts the embedded MongoDB-compatible engine: recovers `dataDir` (snapshot + journal), then serves the
 * wire protocol so the official driver can use it like a standalone mongod.
 */
export async function startEmbeddedServer(options: EngineOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  await makePrivate(options.dataDir);
  // Read before dataDirId creates it: an id file means the directory has held data, so missing files are damage.
  const expectData = await access(path.join(options.dataDir, ID_FILE)).then(
    () => true,
    () => false,
  );
  // Refused before dataDirId writes an id into a directory whose data is missing.
  checkDataFiles(options.dataDir, await listDataDir(options.dataDir), expectData);
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
  const engine = new Engine(store, journal, log, {
    enableTestCommands: options.enableTestCommands,
    ttlIntervalMs: options.ttlIntervalMs,
  });
  const tcp =
    options.port !== undefined || process.platform === 'win32'
      ? { host: options.host ?? '127.0.0.1', port: options.port ?? 0 }
      : undefined;
  let server: WireServer;
  let privateDir: string | undefined;
  try {
    const socket = await socketPath(options.dataDir, !tcp);
    privateDir = socket?.privateDir;
    server = await listen(
      engine,
      {
        tcp,
        socketPath: socket?.path,
        frameTimeoutMs: options.frameTimeoutMs ?? 30_000,
        maxConnections: options.maxConnections ?? 1_000,
        idleTimeoutMs: options.idleTimeoutMs ?? 600_000,
        credential: options.credential,
      },
      log,
    );
  } catch (error) {
    if (privateDir) await rm(privateDir, { recursive: true, force: true });
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
      : `mongodb://${wire.tcp!.host}:${wire.tcp!.port}/?directConnection=true`,
    host: wire.tcp?.host,
    port: wire.tcp?.port,
    socketPath: wire.socketPath,
    close() {
      closing ??= (async () => {
        await wire.close();
        if (privateDir) await rm(privateDir, { recursive: true, force: true });
        engine.close();
        await journal!.close();
        spill.close();
      })();
      return closing;
    },
  };
}

/** Unix domain socket addresses are limited to 108 bytes with the terminating zero (sun_path). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * `<dataDir>/engine.sock`; when that path is too long for a socket address, one in a fresh 0700 directory under the
 * system's temporary directory if the socket is the only way in (else none: clients use TCP). None on Windows.
 */
async function socketPath(
  dataDir: string,
  required: boolean,
): Promise<{ path: string; privateDir?: string } | undefined> {
  if (process.platform === 'win32') return undefined;
  const inDataDir = path.resolve(dataDir, 'engine.sock');
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return { path: inDataDir };
  if (!required) return undefined;
  const privateDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-engine-'));
  await chmod(privateDir, 0o700);
  return { path: path.join(privateDir, 'engine.sock'), privateDir };
}
