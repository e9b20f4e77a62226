/**
 * What DataLoader batching saves, relation by relation (test/support/relations.ts): the benchmark's figures
 * (`measureBatchingRatio`), which test/modules/shared/loaders.test.ts asserts.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createAppDeps, prepareDatabase } from '../src/app';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { startEmbeddedServer } from '@hindsight/engine';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import { silentLogger } from '../src/logger';
import { buildAppSchema } from '../src/schema';
import { createServer } from '../src/http/server';
import { monitorCommands } from '../test/support/db';
import {
  BATCHING_LIMITS,
  RELATIONS,
  measureRelation,
  seedRelations,
  type BatchingFigures,
  type CountingRunner,
  type Runner,
} from '../test/support/relations';

export type { BatchingFigures };

/**
 * The batching figures of every relation in RELATIONS, for the benchmark's output. Works on a scratch database of
 * `uri` (dropped afterwards), or, without one, on an embedded engine started for the measurement in a temporary
 * directory. Commands are counted with the driver's command monitoring, in process through Apollo (the same
 * schema, context and loaders as over HTTP).
 */
export async function measureBatchingRatio(options: { uri?: string } = {}): Promise<BatchingFigures[]> {
  const dataDir = options.uri ? null : mkdtempSync(path.join(os.tmpdir(), 'hindsight-bench-batching-'));
  const engine = dataDir ? await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1' }) : null;
  const client = new MongoClient(options.uri ?? engine!.uri, { monitorCommands: true, ignoreUndefined: true });
  const commands = monitorCommands(client);
  try {
    await client.connect();
    const db = client.db(`bench_batching_${randomBytes(4).toString('hex')}`);
    const config = loadConfig({}, { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1', ...BATCHING_LIMITS });
    const deps = createAppDeps({
      config,
      logger: silentLogger,
      database: {
        kind: engine ? 'EMBEDDED' : 'EXTERNAL',
        version: String((await db.admin().command({ buildInfo: 1 })).version),
        client,
        db,
      },
      embeddings: new HashEmbeddingProvider(config.embeddingDimensions ?? 384),
    });
    const server = await createServer(deps, await buildAppSchema());
    try {
      await prepareDatabase(deps, db);
      const run: Runner = async (query, variables, batching = true) => {
        const response = await server.apollo.executeOperation(
          { query, variables },
          { contextValue: createContext(deps, { batching }) },
        );
        if (response.body.kind !== 'single') throw new Error('incremental delivery is not used here');
        const { data, errors } = response.body.singleResult;
        if (errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(errors)}`);
        return data;
      };
      await seedRelations(db, run);
      const count: CountingRunner = async (query, batching) => {
        commands.reset();
        const data = await run(query, {}, batching);
        return { data, commands: commands.count() };
      };
      const figures: BatchingFigures[] = [];
      for (const relation of RELATIONS) figures.push(await measureRelation(relation, count));
      await db.dropDatabase();
      return figures;
    } finally {
      await server.stop();
    }
  } finally {
    await client.close();
    await engine?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measureBatchingRatio({ uri: process.env.MONGODB_URI }).then(
    (figures) => {
      for (const { query: _query, ...row } of figures)
        process.stdout.write(JSON.stringify({ bench: 'batching', ...row }) + '\n');
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
