import type { Document } from 'mongodb';
import type { VectorSearchMode } from '../config';
import type { ChangeFollower } from '../db/change-follower';
import type { Logger } from '../logger';
import type { SpaceDefinition } from './space';

/** A vector search result: the document id and its cosine similarity to the query, in [-1, 1]. */
export interface VectorHit {
  id: string;
  score: number;
}

/** A keyword search result. */
export interface KeywordHit {
  id: string;
  /** BM25 normalised to [0, 1]: min(1, bm25 / Σ idf of the query's terms) — see `KeywordIndex` (bm25.ts). */
  score: number;
  /** The raw BM25 score. */
  bm25: number;
  /** The text path (one of the space's `textPaths`) that contributed most. */
  field: string;
}

export interface VectorQuery {
  /** The request's signal: once aborted, the search throws its reason at its next step (set by `forDb`'s view). */
  signal?: AbortSignal;
  /** The query vector (any length-preserving scale: it is normalised); must have the space's dimensions. */
  vector: Float32Array;
  /** Number of results wanted (integer ≥ 1). */
  k: number;
  /** A MongoDB filter on the space's collection, applied before the limit: `k` results whenever `k` documents pass. */
  filter?: Document | null;
  /**
   * Memory mode: scan every vector (with a filter, every passing one) instead of walking the graph (the baseline ANN
   * is measured against). A filter that few documents pass is scanned exactly anyway (FILTERED_EXACT_MAX).
   */
  exact?: boolean;
}

export interface KeywordQuery {
  text: string;
  k: number;
  /** As for {@link VectorQuery.filter}. */
  filter?: Document | null;
  /** As for {@link VectorQuery.signal}. */
  signal?: AbortSignal;
  /** Throws once the request has ended: called during the ranking's synchronous walk (see KeywordTopOptions.check). */
  check?: () => void;
  /** Only documents whose normalised score is at least this count (see KeywordTopOptions.floor). */
  floor?: number;
}

/** The texts of a document for a space: one string for a space with one text path, else strings by path. */
export type SpaceTexts = string | Readonly<Record<string, string | null | undefined>>;

export interface SearchOptions {
  /** `memory`: in-process HNSW (usearch) + exact re-ranking; `atlas`: Atlas `$vectorSearch`. */
  mode: VectorSearchMode;
  /** Dimensions of the current embedder's vectors: stored vectors of another size are not indexed. */
  dimensions: number;
  logger: Logger;
  /**
   * Memory mode: where spaces are saved (`<persistDir>/<db>/<space>/`, by `save` and the auto-save) and restored
   * from at the next start. Unset: spaces are always built from MongoDB.
   */
  persistDir?: string;
  /** The embedder's identity (e.g. `hash/feature-hash-v1-384`): a snapshot saved under another one is not used. */
  model?: string;
  /**
   * The collections' change streams (the app's follower, shared with subscriptions), which spaces follow while the
   * server runs (src/search/space-follower.ts; in atlas mode their keyword indexes). Unset: spaces catch up with other
   * writers only when loaded.
   */
  changes?: Pick<ChangeFollower, 'follow' | 'source' | 'closed'>;
  /** Where the deployment has no change streams: how often (ms) spaces compare their collection with it; 0: never. */
  pollMs?: number;
}

/** What the parts of a database's index read from the search subsystem: the options and the space definitions. */
export interface SpaceRegistry {
  readonly options: SearchOptions;
  /** The definition of a space; throws for an unknown name. */
  space(name: string): SpaceDefinition;
  readonly spaces: SpaceDefinition[];
}
