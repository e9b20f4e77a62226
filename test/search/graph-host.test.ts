import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { MetricKind, ScalarKind } from 'usearch';
import { HostedGraph } from '../../src/search/graph-host';
import { compiled } from '../support/build';
import { embeddingLikeVectors } from '../support/vectors';

const DIMENSIONS = 16;
const config = {
  dimensions: DIMENSIONS,
  metric: MetricKind.Cos,
  quantization: ScalarKind.F32,
  connectivity: 16,
  expansion_add: 64,
  expansion_search: 64,
  multi: false,
};

/** A graph of `count` vectors, keys 0..count-1, and the vectors. */
async function filledGraph(count: number): Promise<{ graph: HostedGraph; vectors: Float32Array[] }> {
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 3 });
  const vectors = Array.from({ length: count }, next);
  const rows = new Float32Array(count * DIMENSIONS);
  vectors.forEach((vector, i) => rows.set(vector, i * DIMENSIONS));
  const graph = new HostedGraph(config);
  await graph.addAll(
    BigUint64Array.from(vectors, (_, i) => BigInt(i)),
    rows,
    2,
  );
  return { graph, vectors };
}

describe('HostedGraph (an HNSW graph in a worker thread)', () => {
  it('answers searches sent in one turn, over graphs in both workers, each with its own nearest vector first', async () => {
    const graphs = await Promise.all([filledGraph(300), filledGraph(300), filledGraph(300), filledGraph(300)]);
    const found = await Promise.all(graphs.map(({ graph, vectors }, g) => graph.search(vectors[g * 10], 5)));
    found.forEach(({ keys, distances }, g) => {
      expect(keys).toHaveLength(5);
      expect(Number(keys[0])).toBe(g * 10);
      expect(distances[0]).toBeCloseTo(0, 5);
    });
  });

  it('applies a single add and remove before a search sent after them; the added vector stays with the caller', async () => {
    const { graph, vectors } = await filledGraph(200);
    const fresh = vectors[7].map((x) => -x);
    graph.add(1000n, fresh);
    expect(Number((await graph.search(fresh, 1)).keys[0])).toBe(1000);
    expect(fresh).toHaveLength(DIMENSIONS); // copied, not handed over
    graph.remove(1000n);
    expect(Number((await graph.search(fresh, 1)).keys[0])).not.toBe(1000);
  });

  it('an add that fails fails the later operations on that graph, with its error, and no other graph', async () => {
    const broken = await filledGraph(50);
    const other = await filledGraph(50);
    broken.graph.add(5000n, new Float32Array(DIMENSIONS + 1));
    await expect(broken.graph.search(broken.vectors[0], 1)).rejects.toThrow(/an earlier add failed/);
    expect(Number((await other.graph.search(other.vectors[3], 1)).keys[0])).toBe(3);
  });

  it('rejects a load of a missing file', async () => {
    const { graph } = await filledGraph(10);
    await expect(graph.load(path.join(os.tmpdir(), 'no-such-graph-file'), { bytes: 0, crc: 0 })).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('saves and loads a graph: same size, same answers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graph-host-'));
    try {
      const { graph, vectors } = await filledGraph(500);
      await graph.save(path.join(dir, 'g'));
      const loaded = new HostedGraph(config);
      const file = readFileSync(path.join(dir, 'g'));
      expect(await loaded.load(path.join(dir, 'g'), { bytes: file.byteLength, crc: crc32(file) })).toEqual({
        size: 500,
        dimensions: DIMENSIONS,
      });
      for (const query of vectors.slice(0, 20))
        expect(await loaded.search(query, 10)).toEqual(await graph.search(query, 10));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not keep the process alive once no answer is awaited', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graph-host-exit-'));
    try {
      const script = path.join(dir, 'exit.js');
      writeFileSync(
        script,
        `const { HostedGraph } = require(${JSON.stringify(compiled('src/search/graph-host.js'))});
         const graph = new HostedGraph({ dimensions: 4, metric: 'cos', quantization: 'f32', connectivity: 8, expansion_add: 16, expansion_search: 16, multi: false });
         graph.add(1n, Float32Array.of(1, 0, 0, 0));
         graph.search(Float32Array.of(1, 0, 0, 0), 1).then(({ keys }) => console.log('found', String(keys[0])));`,
      );
      const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
      expect(run.stdout.trim()).toBe('found 1');
      expect(run.signal).toBeNull();
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
