import type { Db, Document, ObjectId } from 'mongodb';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import type { SpaceDefinition } from '../../search/space';

/**
 * What `reembed` needs to know about a collection that stores vectors: where each text lives, where its vector
 * goes, and which search space indexes it. Each feature that stores vectors declares its target next to its search
 * spaces; the app hands the list to the reembed feature, which no feature imports.
 */
export interface ReembedField {
  /** Document path of the text that is embedded, e.g. `primary_goal_description`. */
  textPath: string;
  /** The search space of its vector; the vector is stored at `space.vectorPath` as a plain array of numbers. */
  space: SpaceDefinition;
}

export interface ReembedTarget {
  /** Its `ReembedCollection` value in the API, e.g. `EXPERIENCES`. */
  name: string;
  /** MongoDB collection, e.g. `eat_agent_experiences`. */
  collection: string;
  /** Unique string id of a document (what the search spaces are keyed by), e.g. `experience_id`. */
  idField: string;
  fields: readonly ReembedField[];
  /** Its documents in `db`, through the repository of the feature that stores them. */
  documents(db: Db): VectorDocuments;
}

/**
 * The documents of one collection that stores vectors, as re-embedding and the vector model check see them. Each
 * feature's repository hands out its own collection's (built by `vectorDocuments` of ./vector-documents.ts), so
 * reembed reaches a collection only through the repository of the feature that stores it.
 */
export interface VectorDocuments {
  /** Number of documents whose vectors were not made by `model`. */
  countOtherModel(model: EmbeddingModelInfo): Promise<number>;
  /**
   * One document whose vectors were not made by `model` (its id and recorded model), or null when none; served by
   * {@link EMBEDDING_MODEL_INDEX}, so cheap whatever the collection's size.
   */
  findOtherModel(model: EmbeddingModelInfo): Promise<Document | null>;
  /** The next `limit` documents after `afterId` (by `_id`) still to re-embed, with their id and texts. */
  nextBatch(model: EmbeddingModelInfo, afterId: ObjectId | null, limit: number): Promise<Document[]>;
  /**
   * Writes one document's new vectors (a null vector removes the stored one) and labels it with `model`, provided
   * its texts are still those that were embedded. False when a concurrent update changed them (that update wrote
   * vectors of the current model itself).
   */
  writeVectors(document: Document, vectors: (number[] | null)[], model: EmbeddingModelInfo): Promise<boolean>;
}

/** Where every document that stores vectors records the embedder that made them (see src/embeddings/model-check.ts). */
export const EMBEDDING_MODEL_PATH = 'embedding_model';

/**
 * The index on {@link EMBEDDING_MODEL_PATH} of every collection that stores vectors: the vector model check reads the
 * models present from it (its few distinct keys) and the documents without one through it, never scanning documents.
 */
export const EMBEDDING_MODEL_INDEX = { key: { [EMBEDDING_MODEL_PATH]: 1 }, name: EMBEDDING_MODEL_PATH } as const;

/**
 * The guard features call before comparing vectors: implemented by the reembed feature's service and handed to
 * feature services by `createContext`, so features depend on this interface only.
 */
export interface VectorModelCheck {
  /** Throws `EmbeddingModelMismatchError` when some document of `target` was not embedded by the current embedder. */
  assertVectorsCurrent(target: ReembedTarget): Promise<void>;
}
