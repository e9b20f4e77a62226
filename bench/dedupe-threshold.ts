/**
 * Prints the near-duplicate threshold table: precision and recall of merging experience goals at each candidate
 * DEDUPE_THRESHOLD, on the labelled pairs of test/support/fixtures/dedupe-pairs.ts, with the offline `local` model.
 * Run: npm run eval:dedupe
 */
import 'reflect-metadata';
import { loadConfig } from '../src/config';
import { createEmbeddingProvider } from '../src/embeddings';
import { nameTheSameThings } from '../src/modules/experiences/experience.dedupe';
import { DEDUPE_PAIRS } from '../test/support/fixtures/dedupe-pairs';
import { CANDIDATE_THRESHOLDS, pairScores, thresholdTable } from '../test/support/dedupe/threshold';

async function main(): Promise<void> {
  const provider = await createEmbeddingProvider(loadConfig({}, { embeddingsProvider: 'local' }));
  try {
    const scores = await pairScores(provider, DEDUPE_PAIRS);
    const sameCount = DEDUPE_PAIRS.filter((pair) => pair.same).length;
    console.log(
      `${DEDUPE_PAIRS.length} pairs: ${sameCount} same memory, ${DEDUPE_PAIRS.length - sameCount} different tasks`,
    );
    for (const guarded of [false, true]) {
      console.log(guarded ? '\ncosine and nameTheSameThings (the rule recordExperience applies)' : '\ncosine alone');
      console.log('threshold  merged-same  merged-different  kept-apart-same  precision  recall');
      for (const row of thresholdTable(DEDUPE_PAIRS, scores, CANDIDATE_THRESHOLDS, guarded)) {
        console.log(
          [
            row.threshold.toFixed(2).padEnd(9),
            String(row.truePositives).padStart(11),
            String(row.falsePositives).padStart(17),
            String(row.falseNegatives).padStart(16),
            row.precision.toFixed(3).padStart(10),
            row.recall.toFixed(3).padStart(7),
          ].join('  '),
        );
      }
    }
    if (process.env.DEDUPE_PAIRS_VERBOSE) {
      DEDUPE_PAIRS.map((pair, i) => ({ ...pair, score: scores[i] }))
        .sort((x, y) => y.score - x.score)
        .forEach((pair) =>
          console.log(
            pair.score.toFixed(3),
            nameTheSameThings(pair.a, pair.b) ? 'named-same' : '          ',
            pair.same ? 'same     ' : 'different',
            pair.a,
            '|',
            pair.b,
          ),
        );
    }
  } finally {
    await provider.close?.();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
