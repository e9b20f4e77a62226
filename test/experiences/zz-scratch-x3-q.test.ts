import { LocalEmbeddingProvider } from '../../src/embeddings/local.provider';
import { targets, distractors } from '../fixtures/experience-corpus';

it('scratch quality', async () => {
  const p = await LocalEmbeddingProvider.create({ batchSize: 64 });
  const docs = [...targets, ...distractors(968)];
  const fields = ['primaryGoalDescription', 'subTaskDescription', 'inputContextSummary', 'outputSummary'] as const;
  const t0 = Date.now();
  const texts = [...new Set(docs.flatMap((d) => fields.map((f) => d[f])))];
  const vecs = await p.embed(texts);
  console.log('embedded', texts.length, 'in', Date.now() - t0, 'ms');
  const byText = new Map(texts.map((t, i) => [t, vecs[i]]));
  const q = await p.embed(targets.map((t) => t.query));
  const dot = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };
  for (const subset of [[0,1,2,3],[0],[0,1]]) {
    let h1 = 0, h3 = 0;
    targets.forEach((t, qi) => {
      const scored = docs.map((d) => ({ id: d.experienceId, s: Math.max(...subset.map((f) => dot(q[qi], byText.get(d[fields[f]])!))) }));
      scored.sort((a, b) => b.s - a.s);
      const rank = scored.findIndex((x) => x.id === t.experienceId);
      if (rank === 0) h1++; if (rank < 3) h3++;
      if (rank >= 3 && subset.length===4) console.log(t.experienceId, rank, t.query, '->', scored.slice(0,2).map(x=>x.id));
    });
    console.log(subset, 'hit@1', h1 / targets.length, 'hit@3', h3 / targets.length);
  }
  await p.close();
}, 300000);
