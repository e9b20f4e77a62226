import { ObjectId, type Db, type Document } from 'mongodb';
import type { AppDeps } from '../../app';
import { NotFoundError, ValidationError } from '../../errors';
import { sameEmbeddingModel } from '../../embeddings/model-check';
import { fromStoredVector, toStoredVector } from '../../embeddings/vectors';
import { HYBRID_WEIGHTS, fuse, type FusedHit, type FusionList } from '../../search/fusion';
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
  isCurrentAt,
  validityQuery,
  type ValidityArgs,
} from '../validity/validity.filter';
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

/**
 * HYBRID's candidates per space and part: the top max(2 × limit, 20) by vector and by keyword, ~100 documents for a
 * limit of 10 over 4 fields; each costs two completions (its other part in every field).
 */
const HYBRID_CANDIDATES_PER_RESULT = 2;
const HYBRID_MIN_CANDIDATES = 20;

/** What a recording of experiences will write, fixed before writing (see `storeOnce`). */
interface ExperiencePlan {
  ids: string[];
  objectIds: ObjectId[];
  now: Date;
}

/** A document's best score in one part of a search, and the field that gave it. */
interface Best {
  score: number;
  field: ExperienceField;
}

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

/**
 * Each of `ids`' scores in one space, in order (null: none): from the space's own `hits` or the scores known `before`
 * when there, else from `score`, called once with the others.
 */
async function completed<T extends { id: string }>(
  ids: string[],
  hits: T[],
  score: (missing: string[]) => Promise<Array<T | null>>,
  before?: ReadonlyMap<string, T | null>,
): Promise<Array<T | null>> {
  const found = new Map<string, T | null>(before);
  for (const hit of hits) found.set(hit.id, hit);
  const missing = ids.filter((id) => !found.has(id));
  const scored = await score(missing);
  missing.forEach((id, i) => found.set(id, scored[i]));
  return ids.map((id) => found.get(id) ?? null);
}

function fusionList(name: keyof typeof HYBRID_WEIGHTS, best: Map<string, Best>): FusionList {
  return {
    name,
    weight: HYBRID_WEIGHTS[name],
    hits: [...best].map(([id, { score, field }]) => ({ id, score, field })),
  };
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
    caller: Pick<Caller, 'keyId'>,
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
    const filter = bothFilters(experienceFilterQuery(args.filter), experienceValidity(args, new Date()));
    const direction = args.orderBy?.direction ?? ExperienceOrderDirection.DESC;
    const sort: SortKey[] = [
      { field: args.orderBy?.field ?? 'timestamp', direction },
      { field: 'experience_id', direction },
    ];
    return forwardPage({
      first: args.first,
      after: args.after,
      sort,
      fetch: (after, order, limit) =>
        this.repository.findPage(filter, after, order, limit, fields && [...fields, ...sort.map((key) => key.field)]),
      count: () => this.repository.count(filter),
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
        if (!resumed) return this.store(documents);
        const present = new Set((await this.repository.existingObjectIds(plan.objectIds)).map(String));
        const missing = documents.filter((document) => !present.has(String(document._id)));
        if (done && missing.length) throw deletedSince();
        await this.store(missing);
        const stored = new Map((await this.repository.findByIds(plan.ids)).map((doc) => [doc.experience_id, doc]));
        return plan.ids.map((id) => toExperience(stored.get(id)!));
      },
    });
  }

  private async store(documents: ExperienceDocument[]): Promise<Experience[]> {
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
    const taken = await this.repository.existingIds(ids);
    // Checked before embedding so that a duplicate costs no embedding; the unique index still decides a race.
    if (taken.length) throw duplicateExperience(taken[0]);
    await this.embedInto(
      documents,
      documents.map(() => EXPERIENCE_FIELDS),
    );
    await this.repository.insertAll(documents);
    await this.events.record(...documents.map((document) => event(document, { event: 'created' })));
    for (const document of documents) {
      this.indexFields(document, EXPERIENCE_FIELDS);
      const { embeddings: _vectors, ...stored } = document;
      this.loaders.experiences.experienceById.prime(document.experience_id, stored);
    }
    return documents.map(toExperience);
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
  async addFeedback(id: string, signals: FeedbackSignalsInput): Promise<Experience> {
    const document = feedbackDocument(signals, 'signals');
    if (Object.keys(document).length === 0) throw new ValidationError('signals must set at least one key.', 'signals');
    const updated = await this.repository.mergeFeedback(id, document);
    if (!updated) throw notFound(id);
    await this.events.record(event(updated, { event: 'feedback' }));
    this.loaders.experiences.experienceById.clear(id).prime(id, updated);
    return toExperience(updated);
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
   * Experiences matching `query`, best first. Per document, the vector score is the best cosine over the requested
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
  async search(args: SearchExperiencesArgs, stored: string[] | null = null): Promise<ExperienceSearchHit[]> {
    const query = args.query.trim();
    if (!query) throw new ValidationError('query must not be blank.', 'query');
    checkLimit(args.limit, 'limit');
    if (args.minScore != null && !Number.isFinite(args.minScore))
      throw new ValidationError('minScore must be a number.', 'minScore');
    const filter = experienceFilterQuery(args.filter);
    const read = stored && [...stored, ...VALIDITY_STORED];
    if (args.asOf || args.includeSuperseded) {
      const explicit = bothFilters(filter, experienceValidity(args, new Date()));
      return (await this.searchWith(query, args, explicit, read, null)).hits;
    }
    // Current memories only, without a filter on the search (the fastest path): the hits' documents are read anyway,
    // so the ones not current are dropped then; only when that leaves the page short is it searched again with one.
    const now = new Date();
    const first = await this.searchWith(query, args, filter, read, now);
    if (!first.dropped || first.hits.length >= args.limit) return first.hits;
    const around = await this.searchWith(
      query,
      args,
      bothFilters(filter, currentAround(EXPERIENCE_VALIDITY, now)),
      read,
      now,
    );
    if (!around.dropped || around.hits.length >= args.limit) return around.hits;
    // Memories whose validity starts or ends within the minute `currentAround` rounds to took places on the page: the
    // exact filter then (resolved for this search alone), so a page is never short while current matches exist.
    return (await this.searchWith(query, args, bothFilters(filter, currentAt(EXPERIENCE_VALIDITY, now)), read, now))
      .hits;
  }

  /**
   * One search with `filter` applied inside each space; with `now`, hits not current then are dropped (and counted).
   */
  private async searchWith(
    query: string,
    args: SearchExperiencesArgs,
    filter: Document,
    stored: string[] | null,
    now: Date | null,
  ): Promise<{ hits: ExperienceSearchHit[]; dropped: number }> {
    const fields = args.fields?.length ? [...new Set(args.fields)] : [...EXPERIENCE_FIELDS];
    const minScore = args.minScore ?? undefined;
    const spaces = fields.map((field) => EXPERIENCE_SPACES[field].name);
    const best = (lists: Array<Array<{ id: string; score: number } | null>>) => bestPerDocument(fields, lists);

    if (args.mode === SearchMode.KEYWORD) {
      const lists = await Promise.all(
        spaces.map((space) => this.index.searchKeyword(space, { text: query, k: args.limit, filter })),
      );
      const keywordBest = best(lists);
      return this.hits(
        fuse([fusionList('keyword', keywordBest)], { limit: args.limit, minScore }),
        new Map(),
        keywordBest,
        stored,
        now,
      );
    }
    if (args.mode === SearchMode.VECTOR) {
      const vector = await this.queryVector(query);
      const lists = await Promise.all(
        spaces.map((space) => this.index.searchVector(space, { vector, k: args.limit, filter })),
      );
      const vectorBest = best(lists);
      return this.hits(
        fuse([fusionList('vector', vectorBest)], { limit: args.limit, minScore }),
        vectorBest,
        new Map(),
        stored,
        now,
      );
    }
    const k = Math.max(args.limit * HYBRID_CANDIDATES_PER_RESULT, HYBRID_MIN_CANDIDATES);
    const searchVectors = (vector: Float32Array) =>
      Promise.all(spaces.map((space) => this.index.searchVector(space, { vector, k, filter })));
    const scoreVectors = (space: string, vector: Float32Array, ids: string[]) =>
      this.index
        .vectorScores(space, vector, ids)
        .then((scores) => scores.map((score, i) => (score === null ? null : { id: ids[i], score })));
    let vector: Float32Array;
    let vectorLists: VectorHit[][];
    let keywordLists: KeywordHit[][];
    let scoredEarly: Array<Map<string, VectorHit | null>> | undefined;
    if (isEmptyFilter(filter)) {
      // BM25 needs no vector: it ranks while the query is embedded (a round trip to the embedding cache at least), and
      // while the graph workers walk once the vector is there; then, still during the walks, its candidates get their
      // vector parts in every space.
      const embedded = this.queryVector(query);
      const keywordsFirst = async () => {
        const lists = await this.keywordListsBetweenIo(spaces, query, k);
        const ids = [...new Set(lists.flat().map((hit) => hit.id))];
        const scored = await Promise.all(spaces.map(async (space) => scoreVectors(space, await embedded, ids)));
        return { lists, scored: scored.map((scores) => new Map(ids.map((id, i) => [id, scores[i]]))) };
      };
      [vectorLists, { lists: keywordLists, scored: scoredEarly }] = await Promise.all([
        embedded.then(searchVectors),
        keywordsFirst(),
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
    const ids = [...new Set([...vectorLists.flat(), ...keywordLists.flat()].map((hit) => hit.id))];
    // Each candidate's parts in every space: a space's own hits are scored already, the others are completed.
    const [vectorScores, keywordScores] = await Promise.all([
      Promise.all(
        spaces.map((space, s) =>
          completed(ids, vectorLists[s], (missing) => scoreVectors(space, vector, missing), scoredEarly?.[s]),
        ),
      ),
      Promise.all(
        spaces.map((space, s) =>
          completed(ids, keywordLists[s], (missing) => this.index.keywordScores(space, query, missing)),
        ),
      ),
    ]);
    const vectorBest = best(vectorScores);
    const keywordBest = best(keywordScores);
    const fused = fuse([fusionList('vector', vectorBest), fusionList('keyword', keywordBest)], {
      limit: args.limit,
      minScore,
    });
    return this.hits(fused, vectorBest, keywordBest, stored, now);
  }

  /**
   * The BM25 top k of each space (no filter), one space at a time with a turn of the event loop before each, so that
   * round trips in flight (the query's embedding) go on between them.
   */
  private async keywordListsBetweenIo(spaces: string[], query: string, k: number): Promise<KeywordHit[][]> {
    const lists: KeywordHit[][] = [];
    for (const space of spaces) {
      await new Promise((resolve) => setImmediate(resolve));
      lists.push(await this.index.searchKeyword(space, { text: query, k }));
    }
    return lists;
  }

  private async queryVector(query: string): Promise<Float32Array> {
    await this.vectorModels.assertVectorsCurrent(EXPERIENCES_REEMBED_TARGET);
    return this.deps.search.queryVectors.get(query, () => this.deps.embedder.embedOne(query));
  }

  /**
   * The fused hits with their experiences (loaded in one read: only the `stored` fields when given), their parts and
   * the field that matched best.
   */
  private async hits(
    fused: FusedHit[],
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
    let dropped = 0;
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
          score: hit.score,
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
  async similar(experience: Experience, limit: number, validity: ValidityArgs = {}): Promise<ExperienceSearchHit[]> {
    checkLimit(limit, 'limit');
    await this.vectorModels.assertVectorsCurrent(EXPERIENCES_REEMBED_TARGET);
    const stored = await this.loaders.experiences.experienceVectorsById.load(experience.experienceId);
    const vector =
      fromStoredVector(stored?.embeddings?.[embeddingKey(ExperienceField.PRIMARY_GOAL)]) ??
      (await this.deps.embedder.embedOne(experience.primaryGoalDescription));
    if (validity.asOf || validity.includeSuperseded) {
      const filter = experienceValidity(validity, new Date());
      return (await this.similarWith(experience.experienceId, vector, limit, filter, null)).hits;
    }
    // As in `search`: unfiltered first, then filtered only when dropping the ones not current left the list short.
    const now = new Date();
    const first = await this.similarWith(experience.experienceId, vector, limit, {}, now);
    if (!first.dropped || first.hits.length >= limit) return first.hits;
    const around = await this.similarWith(
      experience.experienceId,
      vector,
      limit,
      currentAround(EXPERIENCE_VALIDITY, now),
      now,
    );
    if (!around.dropped || around.hits.length >= limit) return around.hits;
    return (await this.similarWith(experience.experienceId, vector, limit, currentAt(EXPERIENCE_VALIDITY, now), now))
      .hits;
  }

  private async similarWith(
    self: string,
    vector: Float32Array,
    limit: number,
    filter: Document,
    now: Date | null,
  ): Promise<{ hits: ExperienceSearchHit[]; dropped: number }> {
    // One more than asked, then itself dropped: cheaper than a filter, which costs a database query per search.
    const matches = await this.index.searchVector(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, {
      vector,
      k: limit + 1,
      ...(isEmptyFilter(filter) ? {} : { filter }),
    });
    const others = matches.filter((match) => match.id !== self).slice(0, limit);
    const documents = await this.loaders.experiences.experienceById.loadMany(others.map((match) => match.id));
    let dropped = 0;
    const hits = others.flatMap((match, i) => {
      const document = documents[i];
      if (!document || document instanceof Error) return [];
      if (now && !isCurrent(document, now)) {
        dropped++;
        return [];
      }
      const score = match.score;
      return [
        {
          experience: toExperience(document),
          score,
          vectorScore: score,
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
  const stored = document as unknown as Record<string, unknown>;
  return {
    kind: 'experience',
    memory_id: document.experience_id,
    user_id: typeof stored.user_id === 'string' ? stored.user_id : null,
    agent_id: document.initiating_agent_id ?? null,
    session_id: document.session_id ?? null,
    ...what,
  };
}
