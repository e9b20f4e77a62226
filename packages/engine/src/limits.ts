import { CommandError } from './errors';

/**
 * Bytes of documents per reply batch, for query cursors and change streams alike: well under the 16 MiB a reply
 * may carry.
 */
export const BATCH_BYTES = 8 * 1024 * 1024;

/** mongod's internalPipelineLengthLimit: the stages one pipeline may have (each sub-pipeline too). */
export const MAX_PIPELINE_STAGES = 1000;

/**
 * Refuses, before any stage is read, a pipeline longer than {@link MAX_PIPELINE_STAGES}, or one whose `$facet`,
 * `$lookup` or `$unionWith` sub-pipeline is: mongod's code 7749501 and wording. 100,000 `$match` stages held the
 * engine's thread 2.3 s.
 */
export function checkPipelineLength(pipeline: readonly unknown[]): void {
  const pending: (readonly unknown[])[] = [pipeline];
  while (pending.length > 0) {
    const stages = pending.pop()!;
    if (stages.length > MAX_PIPELINE_STAGES) {
      throw new CommandError(7749501, `Pipeline length must be no longer than ${MAX_PIPELINE_STAGES} stages.`);
    }
    for (const stage of stages) {
      if (typeof stage !== 'object' || stage === null) continue;
      const { $facet, $lookup, $unionWith } = stage as Record<string, unknown>;
      if (typeof $facet === 'object' && $facet !== null) {
        for (const sub of Object.values($facet)) if (Array.isArray(sub)) pending.push(sub);
      }
      for (const spec of [$lookup, $unionWith]) {
        const sub = typeof spec === 'object' && spec !== null ? (spec as { pipeline?: unknown }).pipeline : undefined;
        if (Array.isArray(sub)) pending.push(sub);
      }
    }
  }
}
