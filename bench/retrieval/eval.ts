/**
 * Retrieval quality (`npm run eval:retrieval`): the evaluation of test/support/retrieval (the labelled set, recorded
 * through the GraphQL API) once per embedding provider (`local`, the offline model, and `hash`); prints hit@1, hit@3
 * and MRR (over the top 10) per provider, corpus, mode, slice and half and writes them to bench/retrieval.json.
 * RETRIEVAL_PROVIDERS (default `local,hash`) picks providers (`local-lower`: the local model fed lower-cased texts, a
 * text preparation compared on the set); RETRIEVAL_PER_SLICE (default 40) queries per slice;
 * RETRIEVAL_CACHE (default data/retrieval-embeddings) keeps the local model's vectors between runs.
 *
 * Then the learned signals (test/support/retrieval/signals.ts; RETRIEVAL_SIGNALS=0 skips them): the corpus recorded
 * again with noisy outcomes, ages and feedback plus the twins of the outcome, feedback, recency and duplicates slices,
 * measured per ranking variant and diversity.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { LocalEmbeddingProvider } from '../../src/embeddings/local.provider';
import type { EmbeddingProvider } from '../../src/embeddings/provider';
import { FileCachedProvider } from './cached-provider';
import { buildEvalSet } from '../../test/support/retrieval/corpus';
import {
  evaluate,
  evaluateSignals,
  type ProviderResults,
  type SignalResults,
} from '../../test/support/retrieval/evaluate';
import { buildSignalSet } from '../../test/support/retrieval/signals';

async function providerNamed(name: string): Promise<EmbeddingProvider> {
  if (name === 'hash') return new HashEmbeddingProvider(384);
  if (name === 'local-lower') {
    // The model's vocabulary is cased and lacks most capitalised words ("Investigate" splits into pieces).
    const cached = await providerNamed('local');
    return {
      id: cached.id,
      model: cached.model,
      dimensions: cached.dimensions,
      embed: (texts, signal) =>
        cached.embed(
          texts.map((t) => t.toLowerCase()),
          signal,
        ),
      close: () => cached.close?.() ?? Promise.resolve(),
    };
  }
  if (name === 'local')
    return new FileCachedProvider(
      await LocalEmbeddingProvider.create({ batchSize: 64 }),
      process.env.RETRIEVAL_CACHE ?? path.join('data', 'retrieval-embeddings'),
    );
  throw new Error(`unknown provider ${name}`);
}

async function main(): Promise<void> {
  const set = buildEvalSet(Number(process.env.RETRIEVAL_PER_SLICE ?? 40));
  const providers = (process.env.RETRIEVAL_PROVIDERS ?? 'local,hash').split(',');
  const output: Record<string, ProviderResults> = {};
  const signalOutput: Record<string, SignalResults> = {};
  const signalSet =
    process.env.RETRIEVAL_SIGNALS === '0' ? null : buildSignalSet(set, set.experienceQueries.length / 5);
  for (const name of providers) {
    const started = performance.now();
    const embeddings = await providerNamed(name);
    try {
      output[name] = await evaluate(set, embeddings);
      if (signalSet) signalOutput[name] = await evaluateSignals(set, signalSet, embeddings);
    } finally {
      await embeddings.close?.();
    }
    const seconds = Math.round((performance.now() - started) / 1000);
    console.log(`\n${name} (${seconds} s)`);
    console.log('corpus.mode               half/slice   hit@1  hit@3  MRR');
    for (const [key, rows] of Object.entries(output[name]))
      for (const [row, m] of Object.entries(rows))
        console.log(
          `${key.padEnd(26)}${row.padEnd(13)}${m.hit1.toFixed(3).padStart(5)}  ${m.hit3.toFixed(3).padStart(5)}  ${m.mrr.toFixed(3)}`,
        );
    const signals = signalOutput[name];
    if (!signals) continue;
    console.log(
      '\nranking (signal db)       HYBRID hit@3/MRR: all  tuning  held-out   outcome feedback recency (right/found)',
    );
    for (const [variant, row] of Object.entries(signals.rankings)) {
      const m = (key: string) => row[key] as { hit3: number; mrr: number };
      const p = (key: string) => row[key] as { right: number; found: number };
      const pair = (key: string) => `${p(key).right.toFixed(3)}/${p(key).found.toFixed(2)}`;
      console.log(
        `${variant.padEnd(26)}${['all', 'tuning', 'held-out'].map((k) => `${m(k).hit3.toFixed(3)}/${m(k).mrr.toFixed(3)}`).join('  ')}   ${pair('outcome')} ${pair('feedback')} ${pair('recency')}`,
      );
    }
    console.log('\nduplicates: diversity  distinct goals in top 5  share with ≥ 4');
    for (const [diversity, d] of Object.entries(signals.duplicates))
      console.log(`${diversity.padStart(21)}  ${d.distinctGoals.toFixed(3).padStart(23)}  ${d.atLeast4.toFixed(3)}`);
  }
  const file = process.env.RETRIEVAL_OUT ?? path.join('bench', 'retrieval.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        set: { experiences: set.experiences.length, tasks: set.tasks.length, queries: set.experienceQueries.length },
        results: output,
        ...(signalSet
          ? {
              signalSet: { records: signalSet.records.length, queries: signalSet.queries.length },
              signals: signalOutput,
            }
          : {}),
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`\nwrote ${file}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
