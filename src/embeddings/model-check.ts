import { BadInputError } from '../coded-error';

/**
 * Which embedder made a set of vectors. Stored as `embedding_model` on every document that stores vectors, so
 * vectors of another model are refused instead of being compared into meaningless scores.
 */
export interface EmbeddingModelInfo {
  provider: string;
  model: string;
  dimensions: number;
}

/** Short human form, e.g. `openai/text-embedding-3-small (1536 dimensions)`. */
export function describeEmbeddingModel(info: EmbeddingModelInfo): string {
  return `${info.provider}/${info.model} (${info.dimensions} dimensions)`;
}

/** True when both name the same provider, model and vector size. */
export function sameEmbeddingModel(a: EmbeddingModelInfo, b: EmbeddingModelInfo): boolean {
  return a.provider === b.provider && a.model === b.model && a.dimensions === b.dimensions;
}

/**
 * Stored vectors were made by another embedder (or by an unrecorded one) than the one now configured.
 * Code BAD_USER_INPUT with `extensions.reason = 'EMBEDDING_MODEL_MISMATCH'`, plus `collection`, `stored`
 * (null when unrecorded) and `current`, so clients can tell it apart from other input errors.
 */
export class EmbeddingModelMismatchError extends BadInputError {
  constructor(
    readonly collection: string,
    readonly stored: EmbeddingModelInfo | null,
    readonly current: EmbeddingModelInfo,
  ) {
    const made = stored
      ? `were made by ${describeEmbeddingModel(stored)}`
      : 'have no embedding_model record (made by an unknown embedder)';
    super(
      `The vectors in ${collection} ${made}, but the server now embeds with ${describeEmbeddingModel(current)}; ` +
        `they cannot be compared. Re-embed them with the mutation reembed(collection: ${collection}).`,
      { reason: 'EMBEDDING_MODEL_MISMATCH', collection, stored, current },
    );
  }
}

/**
 * Throws `EmbeddingModelMismatchError` unless `stored` (a document's `embedding_model`) names the same provider,
 * model and dimensions as `current` (the running embedder's signature). A missing record is a mismatch too:
 * vectors of unknown origin are never compared.
 */
export function assertSameEmbeddingModel(
  stored: EmbeddingModelInfo | null | undefined,
  current: EmbeddingModelInfo,
  collectionName: string,
): void {
  if (!stored || !sameEmbeddingModel(stored, current)) {
    const recorded = stored ? { provider: stored.provider, model: stored.model, dimensions: stored.dimensions } : null;
    throw new EmbeddingModelMismatchError(collectionName, recorded, current);
  }
}
