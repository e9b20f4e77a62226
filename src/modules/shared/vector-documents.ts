import type { Collection, Document, Filter } from 'mongodb';
import { sameEmbeddingModel, type EmbeddingModelInfo } from '../../embeddings/model-check';
import { readPath } from '../../search/space';
import { EMBEDDING_MODEL_PATH, type ReembedTarget, type VectorDocuments } from './reembed-target';

/**
 * Documents not labelled with `model` in `embedding_model` (another model, or none recorded): their vectors cannot
 * be compared with the current embedder's; `reembed` is what fixes them.
 */
export function otherModelQuery(model: EmbeddingModelInfo): Filter<Document> {
  return {
    $or: [
      { [`${EMBEDDING_MODEL_PATH}.provider`]: { $ne: model.provider } },
      { [`${EMBEDDING_MODEL_PATH}.model`]: { $ne: model.model } },
      { [`${EMBEDDING_MODEL_PATH}.dimensions`]: { $ne: model.dimensions } },
    ],
  };
}

/** Where a collection's documents keep their id, texts and vectors: its feature's `ReembedTarget`. */
export type VectorLayout = Pick<ReembedTarget, 'idField' | 'fields'>;

/**
 * `VectorDocuments` over `collection`, laid out as `layout` says. The one implementation: each repository of a
 * collection that stores vectors calls it with its own collection and its feature's target.
 */
export function vectorDocuments<T extends Document>(collection: Collection<T>, layout: VectorLayout): VectorDocuments {
  const documents = collection as unknown as Collection<Document>;
  const idAndModel = { _id: 0, [layout.idField]: 1, [EMBEDDING_MODEL_PATH]: 1 };
  const idAndTexts = Object.fromEntries(
    [layout.idField, ...layout.fields.map((field) => field.textPath)].map((path) => [path, 1]),
  );
  return {
    countOtherModel: (model) => documents.countDocuments(otherModelQuery(model)),

    findOtherModel: async (model) => {
      // The models present come from the index's distinct keys (mongod's DISTINCT_SCAN, the engine's index entries),
      // and the documents recording none from its null key: neither reads more than a few documents.
      const models: unknown[] = await documents.distinct(EMBEDDING_MODEL_PATH);
      const other = models.find(
        (recorded) => recorded !== null && !sameEmbeddingModel(recorded as EmbeddingModelInfo, model),
      );
      const query = other === undefined ? { [EMBEDDING_MODEL_PATH]: null } : { [EMBEDDING_MODEL_PATH]: other };
      return documents.findOne(query, { projection: idAndModel });
    },

    nextBatch: (model, afterId, limit) => {
      const query = afterId ? { $and: [otherModelQuery(model), { _id: { $gt: afterId } }] } : otherModelQuery(model);
      return documents.find(query, { projection: idAndTexts }).sort({ _id: 1 }).limit(limit).toArray();
    },

    writeVectors: async (document, vectors, model) => {
      const unchanged: Document = { _id: document._id };
      const set: Document = { [EMBEDDING_MODEL_PATH]: model };
      const unset: Document = {};
      layout.fields.forEach((field, index) => {
        const text = readPath(document, field.textPath);
        unchanged[field.textPath] = text === undefined ? { $exists: false } : text;
        if (vectors[index]) set[field.space.vectorPath] = vectors[index];
        else unset[field.space.vectorPath] = '';
      });
      const update = Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set };
      const result = await documents.updateOne(unchanged, update);
      return result.matchedCount === 1;
    },
  };
}
