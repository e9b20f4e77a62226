import type { SpaceDefinition } from '../../search/space';

/**
 * What `reembed` needs to know about a collection that stores vectors: where each text lives, where its vector
 * goes, and which search space indexes it. Each feature declares its target next to its search spaces and lists it
 * in `REEMBED_TARGETS` (src/modules/reembed/reembed.targets.ts).
 */
export interface ReembedField {
  /** Document path of the text that is embedded, e.g. `primary_goal_description`. */
  textPath: string;
  /** The search space of its vector; the vector is stored at `space.vectorPath` as a plain array of numbers. */
  space: SpaceDefinition;
}

export interface ReembedTarget {
  /** MongoDB collection, e.g. `eat_agent_experiences`. */
  collection: string;
  /** Unique string id of a document (what the search spaces are keyed by), e.g. `experience_id`. */
  idField: string;
  fields: readonly ReembedField[];
}

/** Where every document that stores vectors records the embedder that made them (see src/embeddings/model-check.ts). */
export const EMBEDDING_MODEL_PATH = 'embedding_model';
