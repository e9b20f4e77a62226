import { randomUUID } from 'node:crypto';
import { ObjectId, type Db, type Document } from 'mongodb';
import type { AppDeps } from '../../app';
import { NotFoundError, ValidationError } from '../../errors';
import { sameEmbeddingModel } from '../../embeddings/model-check';
import { fromStoredVector, toStoredVector } from '../../embeddings/vectors';
import { HYBRID_WEIGHTS, fuse, type FusedHit, type FusionList } from '../../search/fusion';
import { CandidatePool, hybridPool, type PartBest, type PartList } from '../../search/candidate-pool';
import {
  cosineOf,
  maximalMarginalRelevance,
  rankingFactors,
  relevanceOnly,
  type RankingFactors,
  type RankingSignals,
  type RankingWeights,
} from '../../search/ranking';
import { diversityOf, rankingWeights, type RankingInput } from '../shared/ranking.input';
import { DIVERSITY_VECTOR, RANKING_STORED, experienceSignals } from './experience.ranking';
import { isEmptyFilter } from '../../search/filter';
import type { KeywordHit, SearchIndex, VectorHit } from '../../search/search-index';
import { Idempotency, deletedSince } from '../shared/idempotency';
import type { VectorModelCheck } from '../shared/reembed-target';
import { forwardPage, type Connection, type SortKey } from '../shared/connection';
import type { ExperienceLoaders } from './experience.loaders';
import {
  ExperienceOrderDirection,
  MAX_SEARCH_LIMIT,
  SearchMode,
  type ExperiencesArgs,
  type FeedbackSignalsInput,
  type RecordExperienceInput,
  type SearchExperiencesArgs,
  type UpdateExperienceInput,
} from './experience.input';
import type { ExperienceDocument } from './experience.document';
import {
  ExperienceRepository,
  duplicateExperience,
  experienceFilterQuery,
  experienceRecordedBy,
} from './experience.repository';
import { MemoryEventRepository, type MemoryEventInput } from '../history/memory-event.repository';
import {
  EXPERIENCE_VALIDITY,
  bothFilters,
  currentAround,
  currentAt,
  experienceScope,
  isCurrentAt,
  validityQuery,
  type ValidityArgs,
} from '../shared/validity.filter';
import type { Caller } from '../../auth/caller';
import { EXPERIENCE_SPACES, EXPERIENCES_REEMBED_TARGET } from './experience.spaces';
import {
  EXPERIENCE_FIELDS,
  ExperienceField,
  embeddingKey,
  toExperience,
  toExperienceEmbeddings,
  type Experience,
  type ExperienceEmbeddings,
  type ExperienceSearchHit,
} from './experience.type';
import {
  MAX_BATCH,
  changedFields,
  experienceChanges,
  feedbackDocument,
  newExperienceDocument,
} from './experience.validation';
import { collapseSameMemory, memoryIdentity } from './experience.collapse';
import {
  DEDUPE_IDENTITY_FIELDS,
  dedupeKey,
  nameTheSameThings,
  nearKey,
  normalizeForDedupe,
  serialized,
} from './experience.dedupe';

/**
 * The candidate pool of every search: the top CANDIDATE_POOL documents of each side (by vector, by keyword; each
 * document by its best requested field), whatever the limit, so that fusion, the learned signals and diversity rank
 * the same wide pool (a document in a side's top 100 is in the top 100 of its best field's space). In HYBRID each
 * candidate is then scored exactly on both parts in every field.
 */
export const CANDIDATE_POOL = 100;

/** Experience.similar ranks the closest max(SIMILAR_POOL_PER_RESULT × limit, 20) by signals or diversity. */
const SIMILAR_POOL_PER_RESULT = 4;

/** The candidates (best relevance first) whose ranking fields a ranked search reads first; see `ranked`. */
const RANKING_FIRST_READ = 40;

/** How a search ranks its pool: the signals' weights and the diversity (see src/search/ranking.ts). */
interface Rank {
  weights: RankingWeights;
  diversity: number;
}

/** A fused hit with the factors of its ranking. */
type RankedHit = FusedHit & { factors: RankingFactors };

/** The factors of a hit ranked by relevance alone. */
function neutral(hit: FusedHit): RankedHit {
  return {
    ...hit,
    factors: { relevance: hit.score, recency: 1, outcome: 1, feedback: 1, use: 1, score: hit.score },
  };
}

/** The k-th largest of `values` (k ≤ their count). */
function kthLargest(values: number[], k: number): number {
  return values.sort((a, b) => b - a)[k - 1];
}

/** The `pool` best documents of one side (best first). */
function topOfSide(best: Map<string, Best>, pool: number): Map<string, Best> {
  if (best.size <= pool) return best;
  return new Map([...best].sort(([a, x], [b, y]) => y.score - x.score || (a < b ? -1 : a > b ? 1 : 0)).slice(0, pool));
}

function cosine(a: readonly number[] | undefined, b: readonly number[] | undefined): number {
  if (!a || !b || a.length !== b.length) return -1;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA && normB ? dot / Math.sqrt(normA * normB) : -1;
}

/** The same agent, user and outcome: the part of a memory's identity that must be equal for any kind of duplicate. */
function sameScope(a: ExperienceDocument, b: ExperienceDocument): boolean {
  const user = (document: ExperienceDocument) => (document as { user_id?: string | null }).user_id ?? null;
  return a.initiating_agent_id === b.initiating_agent_id && user(a) === user(b) && a.final_outcome === b.final_outcome;
}

/** What a recording of experiences will write, fixed before writing (see `storeOnce`). */
interface ExperiencePlan {
  ids: string[];
  objectIds: ObjectId[];
  now: Date;
}

/** A document's best score in one part of a search, and the field that gave it. */
type Best = PartBest<ExperienceField>;

/** An embeddable field's text when it has one to embed. */
function embeddableText(document: Document, field: ExperienceField): string | null {
  const text = document[field];
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`No experience with id ${JSON.stringify(id)}.`, { experienceId: id });
}

function checkLimit(limit: number, argument: string): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new ValidationError(`${argument} must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`, argument);
  }
}

/** Per document, its best score over the fields' lists (list f belongs to `fields[f]`; null: none) and the field that gave it. */
function bestPerDocument(
  fields: ExperienceField[],
  lists: Array<Array<{ id: string; score: number } | null>>,
): Map<string, Best> {
  const best = new Map<string, Best>();
  lists.forEach((list, f) => {
    for (const hit of list) {
      if (!hit) continue;
      const seen = best.get(hit.id);
      if (!seen || hit.score > seen.score) best.set(hit.id, { score: hit.score, field: fields[f] });
    }
  });
  return best;
}

function fusionList(name: keyof typeof HYBRID_WEIGHTS, hits: PartList<ExperienceField>): FusionList {
  return { name, weight: HYBRID_WEIGHTS[name], hits };
}

/** A document's best part as a hit of a fusion list. */
function listed([id, { score, field }]: [string, Best]): { id: string; score: number; field: ExperienceField } {
  return { id, score, field };
}

/**
 * Experiences (seed 000): recording with embeddings, partial updates that re-embed only what changed, feedback,
 * lists, and search over one space per embeddable field. Every write keeps the search index current.
 */
export class ExperienceService {
  private readonly repository: ExperienceRepository;
  private readonly idempotency: Idempotency;
  private readonly events: MemoryEventRepository;

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly loaders: { experiences: ExperienceLoaders },
    private readonly vectorModels: VectorModelCheck,
    private readonly caller: Pick<Caller, 'keyId'>,
  ) {
    this.repository = new ExperienceRepository(db);
    this.idempotency = new Idempotency(db, deps.config.idempotencyTtlHours);
    this.events = new MemoryEventRepository(db, caller);
  }

  private get index(): SearchIndex {
    return this.deps.search.forDb(this.db);
  }

  /** The experience, or null when the id is unknown or (unless `includeSuperseded`) it is not current. */
  async get(id: string, includeSuperseded = false): Promise<Experience | null> {
    const document = await this.loaders.experiences.experienceById.load(id);
    if (!document || (!includeSuperseded && !isCurrent(document, new Date()))) return null;
    return toExperience(document);
  }

  /** The experience of the id whatever its validity (the ends of a chain of replacements), null when unknown. */
  async getAny(id: string): Promise<Experience | null> {
    const document = await this.loaders.experiences.experienceById.load(id);
    return document && toExperience(document);
  }

  /** The experiences that this one replaced (whatever their validity), the earliest ended first. */
  async supersedes(id: string): Promise<Experience[]> {
    return (await this.loaders.experiences.supersededBy.load(id)).map(toExperience);
  }

  private async getOrFail(id: string): Promise<ExperienceDocument> {
    const document = await this.loaders.experiences.experienceById.load(id);
    if (!document) throw notFound(id);
    return document;
  }

  /**
   * A page of experiences matching the filter (newest first by default), reading only `fields` (and the sort's) when
   * given: whole documents (without vectors) otherwise, which are then shared with the request's other reads.
   */
  list(args: ExperiencesArgs, fields: string[] | null = null): Promise<Connection<Experience>> {
    const now = new Date();
    const chosen = experienceFilterQuery(args.filter);
    let filter: Document | null = null;
    const withValidity = () => (filter ??= bothFilters(chosen, experienceValidity(args, now)));
    // Current ones (the default): the page is read without the validity in its filter (which the engine would compile
    // for each request) and checked here; only a page that held one not current is read again with it.
    const checked = !args.asOf && !args.includeSuperseded;
    const direction = args.orderBy?.direction ?? ExperienceOrderDirection.DESC;
    const sort: SortKey[] = [
      { field: args.orderBy?.field ?? 'timestamp', direction },
      { field: 'experience_id', direction },
    ];
    return forwardPage({
      first: args.first,
      after: args.after,
      sort,
      fetch: async (after, order, limit) => {
        const read = fields && [...fields, ...sort.map((key) => key.field)];
        if (!checked) return this.repository.findPage(withValidity(), after, order, limit, read);
        const page = await this.repository.findPage(chosen, after, order, limit, read && [...read, ...VALIDITY_STORED]);
        if (page.every((document) => isCurrent(document, now))) return page;
        return this.repository.findPage(withValidity(), after, order, limit, read);
      },
      count: () => this.repository.count(withValidity()),
      toNode: (document) => {
        // A partial document must not answer another read of the same experience.
        if (!fields) this.loaders.experiences.experienceById.prime(document.experience_id, document);
        return toExperience(document);
      },
    });
  }

  async record(input: RecordExperienceInput, idempotencyKey?: string | null): Promise<Experience> {
    const [experience] = await this.storeOnce('recordExperience', [input], () => 'input', idempotencyKey);
    return experience;
  }

  /** Records a batch all or nothing; the texts of the whole batch are embedded in one embedder call. */
  async recordMany(inputs: RecordExperienceInput[], idempotencyKey?: string | null): Promise<Experience[]> {
    if (inputs.length > MAX_BATCH)
      throw new ValidationError(`inputs can hold at most ${MAX_BATCH} experiences.`, 'inputs');
    return this.storeOnce('recordExperiences', inputs, (i) => `inputs[${i}]`, idempotencyKey);
  }

  /**
   * Validates every input, then stores them all (or none) once per idempotency key: the plan fixes each document's
   * ids and time, so a retry finds what an earlier attempt stored (by its planned `_id`) and stores only the rest.
   */
  private storeOnce(
    operation: string,
    inputs: RecordExperienceInput[],
    pathOf: (index: number) => string,
    key: string | null | undefined,
  ): Promise<Experience[]> {
    const build = (now: Date) => inputs.map((input, i) => newExperienceDocument(input, pathOf(i), now));
    // A caller that names the experience will look for it by that id: it is stored unless asked to count.
    const dedupe = inputs.map((input) => input.dedupe ?? input.experienceId == null);
    // Only an id the caller chose can be taken already (a generated one is a random UUID; the unique index stands).
    const named = inputs.map((input) => input.experienceId != null);
    const now = new Date();
    const checked = build(now);
    return this.idempotency.run({
      key,
      operation,
      input: inputs,
      plan: (): ExperiencePlan => ({
        ids: checked.map((document) => document.experience_id),
        objectIds: checked.map(() => new ObjectId()),
        now,
      }),
      perform: async (plan, resumed, done) => {
        const documents = (resumed ? build(plan.now) : checked).map((document, i) =>
          Object.assign(document, { experience_id: plan.ids[i], _id: plan.objectIds[i] }),
        );
        // A keyed recording counted as an occurrence is marked in what it was counted into, under its planned _id.
        const writeIds = plan.objectIds.map((id) => (key == null ? null : String(id)));
        if (!resumed) return this.store(documents, dedupe, writeIds, named);
        const present = new Set((await this.repository.existingObjectIds(plan.objectIds)).map(String));
        const absent = documents.flatMap((document, i) => (present.has(String(document._id)) ? [] : [i]));
        const countedInto = new Map<string, ExperienceDocument>();
        if (absent.length)
          for (const document of await this.repository.findByAppliedWrites(absent.map((i) => writeIds[i]!)))
            for (const id of document.appliedWrites ?? []) countedInto.set(id, document);
        const missing = absent.filter((i) => !countedInto.has(writeIds[i]!));
        if (done && missing.length) throw deletedSince();
        const storedNow = await this.store(
          missing.map((i) => documents[i]),
          missing.map((i) => dedupe[i]),
          missing.map((i) => writeIds[i]),
          missing.map((i) => named[i]),
        );
        const answers = new Map(missing.map((i, m) => [i, storedNow[m]]));
        const stored = new Map((await this.repository.findByIds(plan.ids)).map((doc) => [doc.experience_id, doc]));
        return documents.map(
          (_, i) =>
            answers.get(i) ??
            toExperience(stored.get(plan.ids[i]) ?? (countedInto.get(writeIds[i]!) as ExperienceDocument)),
        );
      },
    });
  }

  /**
   * Stores the documents, all or none, except those that are the same memory as a current experience (`dedupe[i]`,
   * see experience.dedupe.ts) or as an earlier document of the batch: those count one more occurrence of it, which is
   * their answer. Recordings with the same dedupe key are serialised in this process, so concurrent copies count too.
   * The cost of a recording that is no duplicate: hashing its normalised texts (some 13 µs) and one indexed read by
   * its keys, sent beside the id check that was there before (no added round trip); an exact duplicate skips the
   * embedding.
   */
  private async store(
    documents: ExperienceDocument[],
    dedupe: readonly boolean[],
    writeIds: ReadonlyArray<string | null>,
    named: readonly boolean[],
  ): Promise<Experience[]> {
    const ids = documents.map((document) => document.experience_id);
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id))
        throw new ValidationError(`experienceId ${JSON.stringify(id)} appears twice in the batch.`, 'inputs', {
          experienceId: id,
        });
      seen.add(id);
    }
    if (documents.length === 0) return [];
    for (const document of documents) {
      document.dedupe_key = dedupeKey(document);
      document.near_key = nearKey(document);
    }
    const locks = documents.flatMap((document, i) =>
      dedupe[i] ? [`${this.db.databaseName}\0${document.dedupe_key}`] : [],
    );
    return serialized(locks, () => this.storeOrCount(documents, dedupe, writeIds, named));
  }

  private async storeOrCount(
    documents: ExperienceDocument[],
    dedupe: readonly boolean[],
    writeIds: ReadonlyArray<string | null>,
    named: readonly boolean[],
  ): Promise<Experience[]> {
    const now = new Date();
    const keys = [...new Set(documents.flatMap((document, i) => (dedupe[i] ? [document.dedupe_key!] : [])))];
    const nearKeys = [...new Set(documents.flatMap((document, i) => (dedupe[i] ? [document.near_key!] : [])))];
    // Both reads at once: looking for duplicates adds no round trip to the id check.
    const [taken, duplicates] = await Promise.all([
      this.repository.existingIds(documents.flatMap((document, i) => (named[i] ? [document.experience_id] : []))),
      this.repository.findCurrentDuplicates(nearKeys, now),
    ]);
    const exact = new Set(keys);
    const sameKey = duplicates.filter((document) => exact.has(document.dedupe_key!));
    // A taken id is CONFLICT, duplicate or not: the caller named a record that exists. Checked before embedding so that
    // a duplicate costs no embedding; the unique index still decides a race.
    if (taken.length) throw duplicateExperience(taken[0]);
    // Where each input goes: its own index (stored), an earlier input's index (counted into that new experience) or
    // the id of a stored experience (counted into it).
    const into: Array<number | string> = documents.map((_, i) => i);
    const storedByKey = new Map<string, string>();
    for (const document of sameKey)
      if (!storedByKey.has(document.dedupe_key!)) storedByKey.set(document.dedupe_key!, document.experience_id);
    const firstByKey = new Map<string, number>();
    documents.forEach((document, i) => {
      if (!dedupe[i]) return;
      const match = storedByKey.get(document.dedupe_key!) ?? firstByKey.get(document.dedupe_key!);
      if (match !== undefined) into[i] = match;
      else firstByKey.set(document.dedupe_key!, i);
    });
    const fresh = () => documents.filter((_, i) => into[i] === i);
    const embedded = fresh();
    if (embedded.length)
      await this.embedInto(
        embedded,
        embedded.map(() => EXPERIENCE_FIELDS),
      );
    await this.matchNearly(documents, dedupe, into, duplicates);
    // An input counted into one of the batch that itself turned out the same as a stored experience goes there too.
    documents.forEach((_, i) => {
      const first = into[i];
      if (typeof first === 'number' && typeof into[first] === 'string') into[i] = into[first];
    });
    // Inputs counted into a new experience of the batch: its occurrences, tags and the keyed recordings it answers.
    documents.forEach((document, i) => {
      const target = into[i];
      if (typeof target !== 'number' || target === i) return;
      const first = documents[target];
      first.occurrences = (first.occurrences ?? 1) + 1;
      first.last_seen_at = now;
      first.tags = [...new Set([...(first.tags ?? []), ...(document.tags ?? [])])];
      if (writeIds[i] !== null) (first.appliedWrites ??= []).push(writeIds[i]!);
    });
    const inserted = fresh();
    // Their `created` events are derived from the documents (see toHistory): no second write per recording.
    for (const document of inserted) document.recorded_by_key = this.caller.keyId;
    if (inserted.length) await this.repository.insertAll(inserted);
    for (const document of inserted) {
      this.indexFields(document, EXPERIENCE_FIELDS);
      const { embeddings: _vectors, appliedWrites: _applied, ...stored } = document;
      this.loaders.experiences.experienceById.prime(document.experience_id, stored);
    }
    const { counted, recorded } = await this.countOccurrences(documents, into, writeIds, now);
    await this.events.record(
      ...documents.flatMap((_, i) => {
        if (into[i] === i) return [];
        const target = typeof into[i] === 'number' ? documents[into[i]] : counted.get(into[i]);
        return target ? [event(target, { event: 'deduplicated', at: now })] : [];
      }),
    );
    return documents.map(
      (document, i) =>
        recorded.get(i) ??
        toExperience(typeof into[i] === 'number' ? documents[into[i]] : (counted.get(into[i]) ?? document)),
    );
  }

  /**
   * Counts the inputs that are the same memory as a stored experience (one atomic update per experience): `counted`
   * by id. One that stopped being current meanwhile (deleted, superseded) is not counted into: its inputs are recorded
   * again without it (under the locks already held), `recorded` by input.
   */
  private async countOccurrences(
    documents: ExperienceDocument[],
    into: Array<number | string>,
    writeIds: ReadonlyArray<string | null>,
    now: Date,
  ): Promise<{ counted: Map<string, ExperienceDocument>; recorded: Map<number, Experience> }> {
    const byTarget = new Map<string, number[]>();
    documents.forEach((_, i) => {
      const target = into[i];
      if (typeof target === 'string') byTarget.set(target, [...(byTarget.get(target) ?? []), i]);
    });
    const counted = new Map<string, ExperienceDocument>();
    const orphans: number[] = [];
    for (const [target, inputs] of byTarget) {
      const tags = [...new Set(inputs.flatMap((i) => documents[i].tags ?? []))];
      const ids = inputs.flatMap((i) => (writeIds[i] === null ? [] : [writeIds[i]!]));
      const updated = await this.repository.countOccurrences(target, inputs.length, tags, now, ids);
      if (!updated) {
        orphans.push(...inputs);
        continue;
      }
      counted.set(target, updated);
      // Filtered searches see the merged tags at once.
      this.index.markWritten(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, target);
      this.loaders.experiences.experienceById.clear(target).prime(target, updated);
    }
    const recorded = new Map<number, Experience>();
    if (orphans.length) {
      const again = await this.storeOrCount(
        orphans.map((i) => documents[i]),
        orphans.map(() => true),
        orphans.map((i) => writeIds[i]),
        // Their ids were checked on the first pass.
        orphans.map(() => false),
      );
      orphans.forEach((i, o) => recorded.set(i, again[o]));
    }
    return { counted, recorded };
  }

  /**
   * The near match (see experience.dedupe.ts) of the batch's new experiences with dedupe on: first among themselves,
   * then with `stored`, the current experiences with the same near key (read with the exact match). Only inputs with
   * the same near key can match, so no vector search is needed: the cosines are of the candidates' stored vectors.
   */
  private async matchNearly(
    documents: ExperienceDocument[],
    dedupe: readonly boolean[],
    into: Array<number | string>,
    stored: readonly ExperienceDocument[],
  ): Promise<void> {
    const threshold = this.deps.config.dedupeThreshold;
    const goal = embeddingKey(ExperienceField.PRIMARY_GOAL);
    const sub = embeddingKey(ExperienceField.SUB_TASK);
    const subTasksMatch = async (a: ExperienceDocument, b: ExperienceDocument, score: () => Promise<number>) =>
      normalizeForDedupe(a.sub_task_description) === normalizeForDedupe(b.sub_task_description) ||
      (nameTheSameThings(a.sub_task_description, b.sub_task_description) && (await score()) >= threshold);
    /** The cosine of `document`'s vector in one space with the stored one of experience `id`. */
    const storedScore = async (field: ExperienceField, document: ExperienceDocument, id: string) => {
      const vector = fromStoredVector(document.embeddings?.[embeddingKey(field)]);
      const [score] = vector ? await this.index.vectorScores(EXPERIENCE_SPACES[field].name, vector, [id]) : [null];
      return score ?? -1;
    };
    const storedByNearKey = new Map<string, ExperienceDocument[]>();
    for (const document of stored)
      storedByNearKey.set(document.near_key!, [...(storedByNearKey.get(document.near_key!) ?? []), document]);
    const firstByNearKey = new Map<string, number>();
    for (const [i, document] of documents.entries()) {
      if (!dedupe[i] || into[i] !== i) continue;
      const first = firstByNearKey.get(document.near_key!);
      const other = first === undefined ? undefined : documents[first];
      if (
        other &&
        cosine(document.embeddings?.[goal], other.embeddings?.[goal]) >= threshold &&
        (await subTasksMatch(document, other, async () => cosine(document.embeddings?.[sub], other.embeddings?.[sub])))
      ) {
        into[i] = first!;
        continue;
      }
      for (const candidate of storedByNearKey.get(document.near_key!) ?? []) {
        if (
          sameScope(document, candidate) &&
          nameTheSameThings(document.primary_goal_description, candidate.primary_goal_description) &&
          (await storedScore(ExperienceField.PRIMARY_GOAL, document, candidate.experience_id)) >= threshold &&
          (await subTasksMatch(document, candidate, () =>
            storedScore(ExperienceField.SUB_TASK, document, candidate.experience_id),
          ))
        ) {
          into[i] = candidate.experience_id;
          break;
        }
      }
      if (into[i] === i && first === undefined) firstByNearKey.set(document.near_key!, i);
    }
  }

  /**
   * Embeds the given fields of each document (one embedder call for all of them) into its `embeddings` object and
   * labels it with the current model; fields without text get no vector.
   */
  private async embedInto(
    documents: ExperienceDocument[],
    fields: readonly (readonly ExperienceField[])[],
  ): Promise<void> {
    const texts: string[] = [];
    const slots = documents.map((document, i) =>
      fields[i].map((field) => {
        const text = embeddableText(document, field);
        return text === null ? -1 : texts.push(text) - 1;
      }),
    );
    const vectors = texts.length ? await this.deps.embedder.embed(texts) : [];
    documents.forEach((document, i) => {
      document.embeddings ??= {};
      fields[i].forEach((field, f) => {
        const slot = slots[i][f];
        if (slot !== -1) document.embeddings![embeddingKey(field)] = toStoredVector(vectors[slot]);
      });
      document.embedding_model = this.deps.embedder.signature;
    });
  }

  /** Puts the document's vectors of `fields` into the search index (a field without a vector is removed). */
  private indexFields(document: ExperienceDocument, fields: readonly ExperienceField[]): void {
    for (const field of fields) {
      const vector = fromStoredVector(document.embeddings?.[embeddingKey(field)]);
      const text = embeddableText(document, field);
      if (vector && text !== null)
        this.index.upsert(EXPERIENCE_SPACES[field].name, document.experience_id, vector, text);
      else this.index.remove(EXPERIENCE_SPACES[field].name, document.experience_id);
    }
  }

  /**
   * Applies a partial update. Embeddable fields whose text changed are re-embedded; when the stored vectors are of
   * another (or an unrecorded) model, all of them are, so a document never mixes models.
   */
  async update(id: string, input: UpdateExperienceInput): Promise<Experience> {
    const changes = experienceChanges(input, 'input');
    const current = await this.getOrFail(id);
    const modelIsCurrent =
      current.embedding_model != null && sameEmbeddingModel(current.embedding_model, this.deps.embedder.signature);
    const next = { ...current, ...changes.set } as ExperienceDocument;
    for (const path of changes.unset) delete (next as unknown as Document)[path];
    // A changed goal, sub-task, agent or outcome is another memory for deduplication.
    const key = dedupeKey(next);
    if (key !== current.dedupe_key) changes.set.dedupe_key = key;
    const near = nearKey(next);
    if (near !== current.near_key) changes.set.near_key = near;
    const touched = EXPERIENCE_FIELDS.filter((field) => !modelIsCurrent || next[field] !== current[field]);
    if (touched.length) {
      const embedded = { ...next, embeddings: {} } as ExperienceDocument;
      await this.embedInto([embedded], [touched]);
      for (const field of touched) {
        const vector = embedded.embeddings![embeddingKey(field)];
        if (vector) changes.set[`embeddings.${embeddingKey(field)}`] = vector;
        else changes.unset.push(`embeddings.${embeddingKey(field)}`);
      }
      changes.set.embedding_model = this.deps.embedder.signature;
    }
    const updated = await this.repository.update(id, changes.set, changes.unset);
    if (!updated) throw notFound(id);
    const changed = changedFields(input, current, updated);
    if (changed.length) await this.events.record(event(updated, { event: 'updated', fields: changed }));
    if (touched.length) {
      const vectors = Object.fromEntries(
        touched.map((field) => [
          embeddingKey(field),
          changes.set[`embeddings.${embeddingKey(field)}`] as number[] | undefined,
        ]),
      );
      this.indexFields({ ...updated, embeddings: vectors }, touched);
    }
    // Filtered searches see the new tags, outcome or agent at once (not only when the change stream brings them).
    this.index.markWritten(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, id);
    this.loaders.experiences.experienceById.clear(id).prime(id, updated);
    this.loaders.experiences.experienceVectorsById.clear(id);
    return toExperience(updated);
  }

  /** Merges signals into `feedback_signals` (key by key; other keys are kept). */
  /**
   * Merges feedback into an experience and counts it for the ranking. Counted feedback is not retry-safe by nature: with
   * an `idempotencyKey`, a retry is counted once.
   */
  async addFeedback(id: string, signals: FeedbackSignalsInput, idempotencyKey?: string | null): Promise<Experience> {
    const document = feedbackDocument(signals, 'signals');
    if (Object.keys(document).length === 0) throw new ValidationError('signals must set at least one key.', 'signals');
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'addExperienceFeedback',
      input: { id, signals: document },
      plan: () => ({ writeId: idempotencyKey == null ? null : randomUUID() }),
      perform: async ({ writeId }, resumed, done) => {
        const updated = await this.repository.mergeFeedback(id, document, 'signals', writeId);
        if (!updated) throw resumed ? deletedSince() : notFound(id);
        // The next search ranks it by this feedback (not only once the change stream brings the write).
        this.index.markWritten(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, id);
        // A call that finished before recorded its event; a resumed one may have, and one more is harmless.
        if (!done) await this.events.record(event(updated, { event: 'feedback' }));
        this.loaders.experiences.experienceById.clear(id).prime(id, updated);
        return toExperience(updated);
      },
    });
  }

  /** Deletes the experience and its vectors from the search index; returns what was deleted. */
  async delete(id: string): Promise<Experience> {
    const deleted = await this.repository.delete(id);
    if (!deleted) throw notFound(id);
    for (const field of EXPERIENCE_FIELDS) this.index.remove(EXPERIENCE_SPACES[field].name, id);
    this.loaders.experiences.experienceById.clear(id);
    this.loaders.experiences.experienceVectorsById.clear(id);
    return toExperience(deleted);
  }

  /** The stored vectors of an experience. */
  async embeddings(id: string): Promise<ExperienceEmbeddings | null> {
    const row = await this.loaders.experiences.experienceVectorsById.load(id);
    return row && toExperienceEmbeddings(row.embeddings);
  }

  /**
   * Experiences matching `query`, best first, one per memory (see collapseSameMemory): when copies of a memory fill
   * part of the page, the search runs again for twice as many (up to MAX_SEARCH_LIMIT) to fill it. Without copies
   * the added cost is a hash of each hit's normalised goal and sub-task, and those fields in the read.
   */
  async search(args: SearchExperiencesArgs, stored: string[] | null = null): Promise<ExperienceSearchHit[]> {
    // A partial read takes each hit's stored dedupe key (see withIdentities for documents written without one).
    const fields = stored && [...new Set([...stored, 'dedupe_key'])];
    let wanted = args.limit;
    let hits = await this.withIdentities(await this.searchOnce(args, fields), fields);
    let page = collapseSameMemory(hits, args.limit);
    while (page.length < args.limit && hits.length === wanted && wanted < MAX_SEARCH_LIMIT) {
      wanted = Math.min(wanted * 2, MAX_SEARCH_LIMIT);
      hits = await this.withIdentities(await this.searchOnce({ ...args, limit: wanted }, fields), fields);
      page = collapseSameMemory(hits, args.limit);
    }
    return page;
  }

  /**
   * The hits, each experience carrying its dedupe key: read as `fields`, a document written before the key was stored
   * has it computed from its identity fields, read for those documents only (whole documents hold them already).
   */
  private async withIdentities<T extends { experience: Experience }>(hits: T[], fields: string[] | null): Promise<T[]> {
    if (!fields) return hits;
    const keyless = hits.filter((hit) => typeof hit.experience.stored?.dedupeKey !== 'string');
    if (!keyless.length) return hits;
    const ids = keyless.map((hit) => hit.experience.experienceId);
    const documents = await this.repository.findByIds(ids, ['experience_id', ...DEDUPE_IDENTITY_FIELDS]);
    const keys = new Map(documents.map((document) => [document.experience_id, dedupeKey(document)]));
    for (const hit of keyless) {
      const { experience } = hit;
      // Deleted meanwhile: its own identity, so that it collapses with nothing.
      const key = keys.get(experience.experienceId) ?? `id:${experience.experienceId}`;
      experience.stored = { ...experience.stored, dedupeKey: key };
    }
    return hits;
  }

  /**
   * One search, copies of a memory included. Per document, the vector score is the best cosine over the requested
   * fields (`matchedField` names it) and the keyword score the best BM25 over them; HYBRID fuses both. The filter
   * is applied inside each space's search, before the limit.
   *
   * VECTOR and KEYWORD take the top `limit` of each field's space: a document in the overall top `limit` by its best
   * field is in that field's top `limit`. HYBRID takes the top k of each space by each part (as Atlas hybrid search
   * and other engines fuse candidate lists), then scores every candidate's two parts in every field, so each fused
   * score is exact and a document found by one part only still gets its other part. A document in none of the lists
   * is not considered: proving that none could rank (growing k until its bound falls below the last result, the
   * threshold algorithm) cost 4 rounds up to k = 1280 on near-duplicate texts, p50 60 ms at 100k experiences.
   *
   * `stored`: the stored fields the response needs of each experience (see `experienceFields`); null reads them all.
   */
  private async searchOnce(args: SearchExperiencesArgs, stored: string[] | null): Promise<ExperienceSearchHit[]> {
    const query = args.query.trim();
    if (!query) throw new ValidationError('query must not be blank.', 'query');
    checkLimit(args.limit, 'limit');
    if (args.minScore != null && !Number.isFinite(args.minScore))
      throw new ValidationError('minScore must be a number.', 'minScore');
    const rank: Rank = { weights: rankingWeights(args.ranking), diversity: diversityOf(args.diversity) };
    const filter = experienceFilterQuery(args.filter);
    const read = stored && [...stored, ...VALIDITY_STORED];
    if (args.asOf || args.includeSuperseded) {
      const explicit = bothFilters(filter, experienceValidity(args, new Date()));
      return (await this.searchWith(query, args, rank, explicit, read, null)).hits;
    }
    // Current memories only, without a filter on the search (the fastest path): the hits' documents are read anyway,
    // so the ones not current are dropped then; only when that leaves the page short is it searched again with one.
    const now = new Date();
    const first = await this.searchWith(query, args, rank, filter, read, now);
    if (!first.dropped || first.hits.length >= args.limit) return first.hits;
    const around = await this.searchWith(
      query,
      args,
      rank,
      bothFilters(filter, currentAround(EXPERIENCE_VALIDITY, now)),
      read,
      now,
    );
    if (!around.dropped || around.hits.length >= args.limit) return around.hits;
    // Memories whose validity starts or ends within the minute `currentAround` rounds to took places on the page: the
    // exact filter then (resolved for this search alone), so a page is never short while current matches exist.
    return (
      await this.searchWith(query, args, rank, bothFilters(filter, currentAt(EXPERIENCE_VALIDITY, now)), read, now)
    ).hits;
  }

  /**
   * One search with `filter` applied inside each space; with `now`, hits not current then are dropped (and counted).
   */
  private async searchWith(
    query: string,
    args: SearchExperiencesArgs,
    rank: Rank,
    filter: Document,
    stored: string[] | null,
    now: Date | null,
  ): Promise<{ hits: ExperienceSearchHit[]; dropped: number }> {
    const fields = args.fields?.length ? [...new Set(args.fields)] : [...EXPERIENCE_FIELDS];
    const minScore = args.minScore ?? undefined;
    const spaces = fields.map((field) => EXPERIENCE_SPACES[field].name);
    const best = (lists: Array<Array<{ id: string; score: number } | null>>) => bestPerDocument(fields, lists);

    const k = Math.max(CANDIDATE_POOL, args.limit);
    if (args.mode === SearchMode.KEYWORD) {
      const lists = await Promise.all(
        spaces.map((space) => this.index.searchKeyword(space, { text: query, k, filter })),
      );
      const keywordBest = topOfSide(best(lists), k);
      const ranked = await this.ranked(
        CandidatePool.scored(fuse([fusionList('keyword', [...keywordBest].map(listed))], { minScore })),
        rank,
        args.limit,
        now,
      );
      return this.hits(ranked, new Map(), keywordBest, stored, now);
    }
    if (args.mode === SearchMode.VECTOR) {
      const vector = await this.queryVector(query);
      const lists = await Promise.all(spaces.map((space) => this.index.searchVector(space, { vector, k, filter })));
      const vectorBest = topOfSide(best(lists), k);
      const ranked = await this.ranked(
        CandidatePool.scored(fuse([fusionList('vector', [...vectorBest].map(listed))], { minScore })),
        rank,
        args.limit,
        now,
      );
      return this.hits(ranked, vectorBest, new Map(), stored, now);
    }
    const searchVectors = (vector: Float32Array) =>
      Promise.all(spaces.map((space) => this.index.searchVector(space, { vector, k, filter })));
    let vector: Float32Array;
    let vectorLists: VectorHit[][];
    let keywordLists: KeywordHit[][];
    let keywordFloors: Array<number | undefined> = [];
    if (isEmptyFilter(filter)) {
      // BM25 needs no vector: it ranks while the query is embedded (a round trip to the embedding cache at least), and
      // while the graph workers walk once the vector is there.
      const embedded = this.queryVector(query);
      [vectorLists, { lists: keywordLists, floors: keywordFloors }] = await Promise.all([
        embedded.then(searchVectors),
        this.keywordListsBetweenIo(spaces, query, k),
      ]);
      vector = await embedded;
    } else {
      // Run together, the eight searches share one resolution of the filter (a database query).
      vector = await this.queryVector(query);
      [vectorLists, keywordLists] = await Promise.all([
        searchVectors(vector),
        Promise.all(spaces.map((space) => this.index.searchKeyword(space, { text: query, k, filter }))),
      ]);
    }
    // The pool: each side's top k documents (by their best field), each scored exactly on both parts in every field
    // as far as the page needs (see hybridPool).
    const { pool, vectorBest, keywordBest } = hybridPool({
      fields,
      ids: [...new Set([...topOfSide(best(vectorLists), k).keys(), ...topOfSide(best(keywordLists), k).keys()])],
      k,
      vectorLists,
      keywordLists,
      keywordFloors,
      scoreVectors: async (s, ids) =>
        (await this.index.vectorScores(spaces[s], vector, ids)).map((score) => (score === null ? null : { score })),
      scoreKeywords: (s, ids) => this.index.keywordScores(spaces[s], query, ids),
      fuse: (lists) => fuse([fusionList('vector', lists.vector), fusionList('keyword', lists.keyword)], { minScore }),
    });
    return this.hits(await this.ranked(pool, rank, args.limit, now), vectorBest, keywordBest, stored, now);
  }

  /**
   * The BM25 top k of each space (no filter), one space at a time with a turn of the event loop before each, so that
   * round trips in flight (the query's embedding) go on between them. Once k documents have a best score, a document
   * scoring below the k-th cannot enter the side's top k: each later space may leave those out (its `floor`, returned
   * for the pool's bounds).
   */
  private async keywordListsBetweenIo(
    spaces: string[],
    query: string,
    k: number,
  ): Promise<{ lists: KeywordHit[][]; floors: Array<number | undefined> }> {
    const lists: KeywordHit[][] = [];
    const floors: Array<number | undefined> = [];
    const best = new Map<string, number>();
    for (const space of spaces) {
      await new Promise((resolve) => setImmediate(resolve));
      const floor = best.size >= k ? kthLargest([...best.values()], k) : undefined;
      const list = await this.index.searchKeyword(space, { text: query, k, floor });
      for (const hit of list) if (!(hit.score <= (best.get(hit.id) ?? -Infinity))) best.set(hit.id, hit.score);
      lists.push(list);
      floors.push(floor);
    }
    return { lists, floors };
  }

  private async queryVector(query: string): Promise<Float32Array> {
    await this.vectorModels.assertVectorsCurrent(EXPERIENCES_REEMBED_TARGET);
    return this.deps.search.queryVectors.get(query, () => this.deps.embedder.embedQuery(query));
  }

  /**
   * The best `limit` of the pool (best relevance first) once ranked: relevance times the signals' factors, read from
   * the candidates' stored ranking fields (cached by the index; none when every signal is off); with diversity,
   * reordered by maximal marginal relevance over the top CANDIDATE_POOL by their primary goals' stored vectors (read
   * for those alone). With `now`, documents not current then are dropped (and counted) here.
   *
   * The pool is ranked whole, but scored and read in at most two steps: a factor never lifts a score above its
   * relevance, so once the best RANKING_FIRST_READ candidates are ranked, a candidate whose relevance is at most the
   * `limit`-th score cannot enter the page, and is neither scored exactly (see CandidatePool) nor read.
   */
  private async ranked(
    pool: CandidatePool,
    rank: Rank,
    limit: number,
    now: Date | null,
    batched = false,
  ): Promise<{ ranked: RankedHit[]; dropped: number }> {
    const signalsOff = relevanceOnly(rank.weights);
    if (signalsOff && !rank.diversity) return { ranked: (await pool.take(limit)).map(neutral), dropped: 0 };
    const at = (now ?? new Date()).getTime();
    let dropped = 0;
    const ranked: RankedHit[] = [];
    const byScore = (a: RankedHit, b: RankedHit) =>
      b.factors.score - a.factors.score || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    // Batched: through the request's loader (whole documents), so that the `similar` of every item of a list is
    // ranked from one read. Else the ranking's fields alone, which the index keeps between searches.
    const read = async (ids: string[]): Promise<Map<string, RankedFacts>> => {
      if (!batched) return this.index.storedValues(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, ids, RANKED);
      const facts = new Map<string, RankedFacts>();
      for (const document of await this.loaders.experiences.experienceById.loadMany(ids))
        if (document && !(document instanceof Error)) facts.set(document.experience_id, rankedFacts(document));
      return facts;
    };
    const rankAll = async (hits: FusedHit[]) => {
      const facts = await read(hits.map((hit) => hit.id));
      for (const hit of hits) {
        const fact = facts.get(hit.id);
        // Deleted between the search and the read.
        if (!fact) continue;
        if (now && !isCurrentAt(EXPERIENCE_VALIDITY, fact.validity, now)) {
          dropped++;
          continue;
        }
        ranked.push(
          signalsOff ? neutral(hit) : { ...hit, factors: rankingFactors(hit.score, fact.signals, rank.weights, at) },
        );
      }
      ranked.sort(byScore);
    };
    // Diversity weighs every candidate against the others, and a batched read is one for all: all of them are read.
    await rankAll(
      rank.diversity || batched ? await pool.all() : await pool.take(Math.max(RANKING_FIRST_READ, limit * 3)),
    );
    const bar = ranked.length >= limit ? ranked[limit - 1].factors.score : -Infinity;
    const rest = await pool.above(bar);
    if (rest.length) await rankAll(rest);
    if (!rank.diversity) return { ranked: ranked.slice(0, limit), dropped };
    const window = ranked.slice(0, CANDIDATE_POOL);
    const ids = window.map((hit) => hit.id);
    const goalVectors = batched
      ? (await this.loaders.experiences.experienceVectorsById.loadMany(ids)).map((row) =>
          row && !(row instanceof Error)
            ? (row.embeddings?.[embeddingKey(ExperienceField.PRIMARY_GOAL)] ?? null)
            : null,
        )
      : await this.repository.findByIds(ids, ['experience_id', DIVERSITY_VECTOR]).then((rows) => {
          const byId = new Map(rows.map((row) => [row.experience_id, row]));
          return ids.map((id) => byId.get(id)?.embeddings?.[embeddingKey(ExperienceField.PRIMARY_GOAL)] ?? null);
        });
    const vectors = new Map(ids.map((id, i) => [id, goalVectors[i]]));
    const order = maximalMarginalRelevance(
      window.map((hit) => hit.factors.score),
      (i, j) => cosineOf(vectors.get(window[i].id), vectors.get(window[j].id)),
      rank.diversity,
      limit,
    );
    return { ranked: order.map((i) => window[i]), dropped };
  }

  /**
   * The ranked hits with their experiences (loaded in one read: only the `stored` fields when given), their parts,
   * factors and the field that matched best.
   */
  private async hits(
    { ranked: fused, dropped: droppedBefore }: { ranked: RankedHit[]; dropped: number },
    vectorBest: Map<string, Best>,
    keywordBest: Map<string, Best>,
    stored: string[] | null,
    now: Date | null,
  ): Promise<{ hits: ExperienceSearchHit[]; dropped: number }> {
    const ids = fused.map((hit) => hit.id);
    let documents: Array<ExperienceDocument | null | Error>;
    if (stored) {
      // Partial documents: not for the request's loader, which answers other reads of the same experiences.
      const found = new Map(
        (await this.repository.findByIds(ids, stored)).map((document) => [document.experience_id, document]),
      );
      documents = ids.map((id) => found.get(id) ?? null);
    } else {
      documents = await this.loaders.experiences.experienceById.loadMany(ids);
    }
    let dropped = droppedBefore;
    const hits = fused.flatMap((hit, i) => {
      const document = documents[i];
      // Deleted between the search and the read.
      if (!document || document instanceof Error) return [];
      if (now && !isCurrent(document, now)) {
        dropped++;
        return [];
      }
      const matchedField = (vectorBest.get(hit.id) ?? keywordBest.get(hit.id))!.field;
      const matchedText = document[matchedField];
      return [
        {
          experience: toExperience(document),
          ...hit.factors,
          vectorScore: hit.parts.vector ?? null,
          keywordScore: hit.parts.keyword ?? null,
          matchedField,
          // A read without the text (not selected, see searchedExperienceFields) never asks.
          matchedTextCut: typeof matchedText === 'string' && this.deps.embedder.cutsText(matchedText),
        },
      ];
    });
    return { hits, dropped };
  }

  /**
   * Experiences whose primary goal is closest to this one's (itself excluded), best first: current ones unless
   * `validity` asks otherwise (as searchExperiences reads them).
   */
  async similar(
    experience: Experience,
    limit: number,
    validity: ValidityArgs = {},
    ranking: { ranking?: RankingInput | null; diversity?: number | null } = {},
  ): Promise<ExperienceSearchHit[]> {
    checkLimit(limit, 'limit');
    const rank: Rank = { weights: rankingWeights(ranking.ranking), diversity: diversityOf(ranking.diversity) };
    // Ranked by signals or diversity: over the closest max(4 × limit, 20), read whole through the request's loader (one
    // read for the `similar` of every item of a list).
    const pool = relevanceOnly(rank.weights) && !rank.diversity ? 0 : Math.max(limit * SIMILAR_POOL_PER_RESULT, 20);
    await this.vectorModels.assertVectorsCurrent(EXPERIENCES_REEMBED_TARGET);
    const stored = await this.loaders.experiences.experienceVectorsById.load(experience.experienceId);
    const vector =
      fromStoredVector(stored?.embeddings?.[embeddingKey(ExperienceField.PRIMARY_GOAL)]) ??
      (await this.deps.embedder.embedOne(experience.primaryGoalDescription));
    const self = memoryIdentity(experience);
    const page = async (filter: Document, now: Date | null) => {
      // One more than asked, then itself (and its copies: the same memory) dropped: cheaper than a filter, which costs
      // a database query per search. Copies that fill part of the page make it look again for twice as many.
      let k = Math.max(limit, pool) + 1;
      let found = await this.similarWith(experience.experienceId, vector, k, filter, now, rank);
      let hits = collapseSameMemory(found.hits, limit, [self]);
      while (hits.length < limit && found.hits.length + found.dropped === k - 1 && k <= MAX_SEARCH_LIMIT) {
        k *= 2;
        found = await this.similarWith(experience.experienceId, vector, k, filter, now, rank);
        hits = collapseSameMemory(found.hits, limit, [self]);
      }
      return { hits, dropped: found.dropped };
    };
    if (validity.asOf || validity.includeSuperseded)
      return (await page(experienceValidity(validity, new Date()), null)).hits;
    // As in `search`: unfiltered first, then filtered only when dropping the ones not current left the list short.
    const now = new Date();
    const first = await page({}, now);
    if (!first.dropped || first.hits.length >= limit) return first.hits;
    const around = await page(currentAround(EXPERIENCE_VALIDITY, now), now);
    if (!around.dropped || around.hits.length >= limit) return around.hits;
    return (await page(currentAt(EXPERIENCE_VALIDITY, now), now)).hits;
  }

  /** The `k - 1` experiences whose primary goal is closest to `vector` but `self`, within `filter`; see `hits`. */
  private async similarWith(
    self: string,
    vector: Float32Array,
    k: number,
    filter: Document,
    now: Date | null,
    rank: Rank,
  ): Promise<{ hits: ExperienceSearchHit[]; dropped: number }> {
    const matches = await this.index.searchVector(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, {
      vector,
      k,
      ...(isEmptyFilter(filter) ? {} : { filter }),
    });
    const pool = matches
      .filter((match) => match.id !== self)
      .slice(0, k - 1)
      .map((match) => ({ id: match.id, score: match.score, parts: { vector: match.score }, field: null }));
    const { ranked: others, dropped: droppedEarly } = await this.ranked(
      CandidatePool.scored(pool),
      rank,
      k - 1,
      now,
      true,
    );
    const documents = await this.loaders.experiences.experienceById.loadMany(others.map((match) => match.id));
    let dropped = droppedEarly;
    const hits = others.flatMap((match, i) => {
      const document = documents[i];
      if (!document || document instanceof Error) return [];
      if (now && !isCurrent(document, now)) {
        dropped++;
        return [];
      }
      return [
        {
          experience: toExperience(document),
          ...match.factors,
          vectorScore: match.score,
          keywordScore: null,
          matchedField: ExperienceField.PRIMARY_GOAL,
          matchedTextCut: this.deps.embedder.cutsText(document.primary_goal_description ?? ''),
        },
      ];
    });
    return { hits, dropped };
  }
}

/** The stored fields a search reads of each hit, besides those the answer needs, to drop the ones not current. */
const VALIDITY_STORED = [
  EXPERIENCE_VALIDITY.validFrom,
  EXPERIENCE_VALIDITY.validUntil,
  EXPERIENCE_VALIDITY.supersededBy,
  EXPERIENCE_VALIDITY.expiresAt,
];

/** What a search needs of each candidate it ranks (see `ranked`): its signals, and its validity fields when it has any. */
interface RankedFacts {
  signals: RankingSignals;
  validity: Record<string, unknown>;
}

/** The validity of the (most) memories that have none set. */
const OPEN_ENDED: Record<string, unknown> = Object.freeze({});

function rankedFacts(document: ExperienceDocument): RankedFacts {
  const stored = document as unknown as Record<string, unknown>;
  const set = VALIDITY_STORED.filter((field) => stored[field] != null);
  return {
    signals: experienceSignals(document),
    validity: set.length ? Object.fromEntries(set.map((field) => [field, stored[field]])) : OPEN_ENDED,
  };
}

/** The ranking's reader of StoredValues: the stored fields of RankedFacts. */
const RANKED = {
  name: 'experience-ranking',
  fields: [...RANKING_STORED, ...VALIDITY_STORED],
  compact: (document: Document) => rankedFacts(document as ExperienceDocument),
};

function isCurrent(document: ExperienceDocument, now: Date): boolean {
  return isCurrentAt(EXPERIENCE_VALIDITY, document as unknown as Record<string, unknown>, now);
}

/** The validity filter of a read of experiences (see `validityQuery`). */
function experienceValidity(args: ValidityArgs, now: Date): Document {
  return validityQuery(EXPERIENCE_VALIDITY, args, now, experienceRecordedBy);
}

/** A history event of the experience, with its scope (user, agent, session) copied. */
function event(
  document: ExperienceDocument,
  what: Pick<MemoryEventInput, 'event'> & Partial<MemoryEventInput>,
): MemoryEventInput {
  return {
    kind: 'experience',
    memory_id: document.experience_id,
    ...experienceScope(document as unknown as Document),
    ...what,
  };
}
