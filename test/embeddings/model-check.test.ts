import { BadInputError } from '../../src/coded-error';
import { assertSameEmbeddingModel, EmbeddingModelMismatchError } from '../../src/embeddings/model-check';

const current = { provider: 'openai', model: 'text-embedding-3-small', dimensions: 1536 };

function thrown(run: () => void): EmbeddingModelMismatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(EmbeddingModelMismatchError);
    expect(error).toBeInstanceOf(BadInputError);
    return error as EmbeddingModelMismatchError;
  }
  throw new Error('expected an EmbeddingModelMismatchError');
}

describe('assertSameEmbeddingModel', () => {
  test('passes when provider, model and dimensions all match', () => {
    expect(() => assertSameEmbeddingModel({ ...current }, current, 'EXPERIENCES')).not.toThrow();
  });

  test.each([
    ['provider', { ...current, provider: 'local' }],
    ['model', { ...current, model: 'text-embedding-ada-002' }],
    ['dimensions', { ...current, dimensions: 512 }],
  ])('a different %s is a BAD_USER_INPUT error that names the stored model and the reembed fix', (_part, stored) => {
    const error = thrown(() => assertSameEmbeddingModel(stored, current, 'EXPERIENCES'));
    expect(error.message).toBe(
      `The vectors in EXPERIENCES were made by ${stored.provider}/${stored.model} (${stored.dimensions} dimensions), ` +
        'but the server now embeds with openai/text-embedding-3-small (1536 dimensions); they cannot be compared. ' +
        'Re-embed them with the mutation reembed(collection: EXPERIENCES).',
    );
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'EMBEDDING_MODEL_MISMATCH',
      collection: 'EXPERIENCES',
      stored,
      current,
    });
  });

  test('vectors without an embedding_model record are refused too (unknown origin is never compared)', () => {
    const error = thrown(() => assertSameEmbeddingModel(undefined, current, 'TASKS'));
    expect(error.message).toMatch(
      /^The vectors in TASKS have no embedding_model record .* reembed\(collection: TASKS\)\.$/,
    );
    expect(error.extensions.stored).toBeNull();
  });

  test('only provider, model and dimensions of the stored record are reported', () => {
    const stored = { ...current, model: 'other', extra: 'ignored' } as typeof current;
    const error = thrown(() => assertSameEmbeddingModel(stored, current, 'tasks'));
    expect(error.extensions.stored).toEqual({ provider: 'openai', model: 'other', dimensions: 1536 });
  });
});
