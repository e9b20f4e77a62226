import { runOffline } from '../support/offline/run-offline';

interface OfflineResult {
  signature: { provider: string; model: string; dimensions: number };
  lengths: number[];
  norms: number[];
  similar: number[];
  unrelated: number[];
}

// Loads the real model (about a second and ~250 MB): the only test that does.
test('the local provider embeds offline: no socket, HTTP, fetch or DNS attempt in any thread; paraphrases score above unrelated sentences', async () => {
  const { stdout, guarded, attempts } = await runOffline('embed-offline.ts');
  // The guard was active in the main thread and in the model's worker thread...
  expect(guarded).toEqual(['main', 'worker']);
  // ...and nothing tried to go out.
  expect(attempts).toEqual([]);

  const result = JSON.parse(stdout) as OfflineResult;
  expect(result.signature).toEqual({ provider: 'local', model: 'universal-sentence-encoder-lite', dimensions: 512 });
  expect(result.lengths.every((length) => length === 512)).toBe(true);
  result.norms.forEach((norm) => expect(norm).toBeCloseTo(1, 5));
  expect(Math.min(...result.similar)).toBeGreaterThan(Math.max(...result.unrelated) + 0.1);
});
