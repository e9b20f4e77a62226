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
}

/** Where every document that stores vectors records the embedder that made them (see src/embeddings/model-check.ts). */
export const EMBEDDING_MODEL_PATH = 'embedding_model';

/**
 * The guard features call before comparing vectors: implemented by the reembed feature's service and handed to
 * feature services by `createContext`, so features depend on this interface only.
 */
export interface VectorModelCheck {
  /** Throws `EmbeddingModelMismatchError` when some document of `target` was not embedded by the current embedder. */
  assertVectorsCurrent(target: ReembedTarget): Promise<void>;
}
