import { randomUUID } from 'node:crypto';
import type { Db, Document, ObjectId } from 'mongodb';
import type { AppDeps } from '../../app';
import { unboundDb } from '../../db/request-bound';
import { assertSameEmbeddingModel, sameEmbeddingModel, type EmbeddingModelInfo } from '../../embeddings/model-check';
import { toStoredVector } from '../../embeddings/vectors';
import { readPath } from '../../search/space';
import type { ReembedTarget, VectorDocuments, VectorModelCheck } from '../shared/reembed-target';
import type { ReembedJobDocument } from './reembed.document';
import { ReembedRepository } from './reembed.repository';
import { ReembedCollection, ReembedJob, ReembedState } from './reembed.type';

/** Documents per step: their texts go to the embedder in one call (split into provider batches by it). */
const DOCUMENTS_PER_STEP = 64;
/** A running job renews its lease every step; past it, the job counts as interrupted and can be resumed. */
const LEASE_MS = 5 * 60_000;
/** How long a successful "all vectors are current" check is trusted (a model switch elsewhere shows within this). */
const VERIFIED_FOR_MS = 30_000;

/**
 * Per database (the unbound handle: each request has its own bound one) and collection: until when its vectors are
 * known to be the current embedder's.
 */
const verifiedUntil = new WeakMap<Db, Map<string, number>>();
/** Per database and collection: the check in flight, shared by concurrent callers (50 `similar` fields make one read). */
const verifying = new WeakMap<Db, Map<string, Promise<void>>>();

function verificationKey(collection: string, model: EmbeddingModelInfo): string {
  return `${collection}\0${model.provider}\0${model.model}\0${model.dimensions}`;
}

function toJob(collection: ReembedCollection, document: ReembedJobDocument, now: Date): ReembedJob {
  const interrupted = document.state === 'running' && document.lease_until <= now;
  return {
    id: document.run_id,
    collection,
    state: interrupted ? ReembedState.INTERRUPTED : (document.state as ReembedState),
    processed: document.processed,
    total: document.total,
    startedAt: document.started_at,
    finishedAt: document.finished_at,
    error: document.error,
    model: document.model,
  };
}

/**
 * Re-embedding of stored vectors after an embedder change, and the guard that refuses to compare vectors of
 * different embedders. Jobs run in the background of the server that started them, in steps of
 * `DOCUMENTS_PER_STEP` documents; progress lives in `reembed_jobs`, and since only documents not yet labelled with
 * the current model are read, an interrupted job resumes where it stopped.
 */
export class ReembedService implements VectorModelCheck {
  private readonly repository: ReembedRepository;
  /** Each target's documents, through its feature's repository; built on first use. */
  private readonly documentsOf = new Map<ReembedTarget, VectorDocuments>();

  /** `targets`: every feature's target, one per `ReembedCollection` value (listed by the app). */
  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly targets: readonly ReembedTarget[],
  ) {
    this.repository = new ReembedRepository(db);
  }

  private target(collection: ReembedCollection): ReembedTarget {
    const target = this.targets.find((candidate) => candidate.name === collection);
    if (!target) throw new Error(`No re-embedding target is registered for ${collection}.`);
    return target;
  }

  private documents(target: ReembedTarget): VectorDocuments {
    let documents = this.documentsOf.get(target);
    if (!documents) this.documentsOf.set(target, (documents = target.documents(this.db)));
    return documents;
  }

  /**
   * Starts re-embedding `collection` with the current embedder and returns the job at once; when a job is already
   * running it is returned instead. A previous run that failed or was interrupted is resumed (its count kept).
   */
  async start(collection: ReembedCollection): Promise<ReembedJob> {
    const target = this.target(collection);
    const model = this.deps.embedder.signature;
    const now = new Date();
    const previous = await this.repository.findJob(target.collection);
    if (previous?.state === 'running' && previous.lease_until > now) return toJob(collection, previous, now);
    const pending = await this.documents(target).countOtherModel(model);
    const resumed =
      previous && previous.state !== 'done' && sameEmbeddingModel(previous.model, model) ? previous : null;
    const processed = resumed?.processed ?? 0;
    const acquired = await this.repository.acquire(
      {
        _id: target.collection,
        run_id: randomUUID(),
        state: pending > 0 ? 'running' : 'done',
        processed,
        total: processed + pending,
        started_at: resumed?.started_at ?? now,
        finished_at: pending > 0 ? null : now,
        error: null,
        model,
        lease_until: new Date(now.getTime() + LEASE_MS),
      },
      now,
    );
    if (!acquired) return toJob(collection, (await this.repository.findJob(target.collection))!, now);
    if (acquired.state === 'running') void this.run(target, acquired);
    return toJob(collection, acquired, now);
  }

  /** The latest job of `collection`, or null when it was never re-embedded. */
  async status(collection: ReembedCollection): Promise<ReembedJob | null> {
    const job = await this.repository.findJob(this.target(collection).collection);
    return job && toJob(collection, job, new Date());
  }

  /**
   * Throws `EmbeddingModelMismatchError` when some document of `target` is not labelled with the current embedder
   * (another model, or none recorded). A passed check is remembered for a short while per database.
   */
  async assertVectorsCurrent(target: ReembedTarget): Promise<void> {
    const model = this.deps.embedder.signature;
    const key = verificationKey(target.collection, model);
    const db = unboundDb(this.db);
    if ((verifiedUntil.get(db)?.get(key) ?? 0) > Date.now()) return;
    let inFlight = verifying.get(db);
    if (!inFlight) verifying.set(db, (inFlight = new Map()));
    let check = inFlight.get(key);
    if (!check) {
      check = this.documents(target)
        .findOtherModel(model)
        .then((other) => {
          if (other)
            assertSameEmbeddingModel(
              (other.embedding_model as EmbeddingModelInfo | undefined) ?? null,
              model,
              target.name,
            );
          this.markVerified(key);
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, check);
    }
    return check;
  }

  private markVerified(key: string): void {
    const db = unboundDb(this.db);
    let verified = verifiedUntil.get(db);
    if (!verified) verifiedUntil.set(db, (verified = new Map()));
    verified.set(key, Date.now() + VERIFIED_FOR_MS);
  }

  /** The job's loop; never throws (it runs detached): failures are recorded on the job and logged. */
  private async run(target: ReembedTarget, job: ReembedJobDocument): Promise<void> {
    const log = { collection: target.collection, runId: job.run_id };
    this.deps.logger.info('reembed started', { ...log, total: job.total });
    try {
      let after: ObjectId | null = null;
      for (;;) {
        const documents = await this.documents(target).nextBatch(job.model, after, DOCUMENTS_PER_STEP);
        if (documents.length === 0) break;
        after = documents[documents.length - 1]._id as ObjectId;
        await this.reembedDocuments(target, documents, job.model);
        const owned = await this.repository.progress(
          target.collection,
          job.run_id,
          documents.length,
          new Date(Date.now() + LEASE_MS),
        );
        if (!owned) {
          this.deps.logger.warn('reembed stopped: the job was taken over', log);
          return;
        }
      }
      await this.repository.finish(target.collection, job.run_id, {
        state: 'done',
        error: null,
        finished_at: new Date(),
      });
      this.markVerified(verificationKey(target.collection, job.model));
      this.deps.logger.info('reembed finished', log);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.deps.logger.error('reembed failed', { ...log, error: message });
      await this.repository
        .finish(target.collection, job.run_id, { state: 'failed', error: message, finished_at: new Date() })
        .catch(() => undefined);
    }
  }

  /** Embeds the texts of `documents` in one call, writes each document's vectors and keeps the search index current. */
  private async reembedDocuments(
    target: ReembedTarget,
    documents: Document[],
    model: EmbeddingModelInfo,
  ): Promise<void> {
    const texts: string[] = [];
    const slots = documents.map((document) =>
      target.fields.map((field) => {
        const text = readPath(document, field.textPath);
        if (typeof text !== 'string' || text.trim() === '') return -1;
        return texts.push(text) - 1;
      }),
    );
    const vectors = texts.length ? await this.deps.embedder.embed(texts) : [];
    const index = this.deps.search.forDb(this.db);
    await Promise.all(
      documents.map(async (document, i) => {
        const own = slots[i].map((slot) => (slot === -1 ? null : vectors[slot]));
        const stored = own.map((vector) => vector && toStoredVector(vector));
        const written = await this.documents(target).writeVectors(document, stored, model);
        if (!written) return;
        const id = String(readPath(document, target.idField));
        target.fields.forEach((field, f) => {
          const vector = own[f];
          if (vector) index.upsert(field.space.name, id, vector, readPath(document, field.textPath) as string);
          else index.remove(field.space.name, id);
        });
      }),
    );
  }
}
