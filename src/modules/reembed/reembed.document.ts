import type { EmbeddingModelInfo } from '../../embeddings/model-check';

export const REEMBED_JOBS_COLLECTION = 'reembed_jobs';

/** One re-embedding run per collection (`_id` = the collection's name); a new run replaces the finished one. */
export interface ReembedJobDocument {
  _id: string;
  run_id: string;
  state: 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  started_at: Date;
  finished_at: Date | null;
  error: string | null;
  /** The embedder this run writes vectors with. */
  model: EmbeddingModelInfo;
  /** A running job whose lease has passed was interrupted (its process stopped); `reembed` resumes it. */
  lease_until: Date;
}
