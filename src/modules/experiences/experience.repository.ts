import {
  MongoBulkWriteError,
  MongoServerError,
  ObjectId,
  type Collection,
  type Db,
  type Document,
  type Filter,
} from 'mongodb';
import { findDocuments } from '../../db/bson-reader';
import { ConflictError, ValidationError, isDuplicateKeyError } from '../../errors';
import type { SortKey } from '../shared/connection';
import { checkScopeId } from '../shared/user-scope';
import type { VectorDocuments } from '../shared/reembed-target';
import { vectorDocuments, type VectorLayout } from '../shared/vector-documents';
import type { ExperienceFilter } from './experience.input';
import { EXPERIENCES_COLLECTION, type ExperienceDocument } from './experience.document';
import { feedbackStatsIncrement } from './experience.ranking';
import type { ChangeFeed, ChangeFollower } from '../../db/change-follower';
import { EXPERIENCE_VALIDITY, currentAt, experienceScope, isCurrentAt, restoreEnd } from '../shared/validity.filter';
import type { MemoryEnd, MemoryState } from '../shared/validity.filter';

/** What the lifecycle reads of an experience: its validity and the scope its events copy. */
const STATE_FIELDS = {
  _id: 0,
  experience_id: 1,
  valid_from: 1,
  valid_until: 1,
  superseded_by: 1,
  ended_reason: 1,
  // Past it the experience is no longer current (supersede checks its replacement by these fields).
  expires_at: 1,
  user_id: 1,
  initiating_agent_id: 1,
  session_id: 1,
} as const;

/** An experience's lifecycle state from its stored fields. */
function experienceState(document: Document): MemoryState {
  return {
    id: document.experience_id as string,
    stored: document,
    scope: experienceScope(document),
  };
}

/** `asOf`: recorded by then, read from the `_id` (an ObjectId holds its creation second; other ids never match). */
export function experienceRecordedBy(asOf: Date): Filter<ExperienceDocument> {
  return { _id: { $lt: ObjectId.createFromTime(Math.floor(asOf.getTime() / 1000) + 1) } };
}
import type { MemoryScope } from '../shared/memory-scope';
import { MAX_APPLIED_WRITES, markApplied, notApplied } from '../shared/idempotency';

/**
 * Reads leave the vectors out (4 × hundreds of floats per document) unless asked for, and the bookkeeping of keyed
 * occurrences (up to MAX_APPLIED_WRITES ids).
 */
const WITHOUT_VECTORS = { projection: { embeddings: 0, appliedWrites: 0 } } as const;

function onlyFields(fields: string[]): Document {
  return { _id: 0, ...Object.fromEntries(fields.map((field) => [field, 1])) };
}

/** Translates a GraphQL filter into a MongoDB filter; shared by lists, counts and search (applied before the limit). */
export function experienceFilterQuery(filter: ExperienceFilter | null | undefined): Filter<ExperienceDocument> {
  const query: Document = {};
  if (!filter) return query;
  if (filter.initiatingAgentId != null) query.initiating_agent_id = filter.initiatingAgentId;
  if (filter.workflowId != null) query.workflow_id = filter.workflowId;
  if (filter.sessionId != null) query.session_id = filter.sessionId;
  if (filter.userId != null) query.user_id = checkScopeId(filter.userId, 'filter.userId');
  if (filter.outcomes?.length) query.final_outcome = { $in: filter.outcomes };
  const tagConditions: Document[] = [];
  if (filter.tagsAny?.length) tagConditions.push({ tags: { $in: filter.tagsAny } });
  if (filter.tagsAll?.length) tagConditions.push({ tags: { $all: filter.tagsAll } });
  if (tagConditions.length === 1) Object.assign(query, tagConditions[0]);
  if (tagConditions.length === 2) query.$and = tagConditions;
  if (filter.component != null) query.involved_components = filter.component;
  if (filter.since != null || filter.until != null) {
    query.timestamp = {
      ...(filter.since != null ? { $gte: filter.since } : {}),
      ...(filter.until != null ? { $lt: filter.until } : {}),
    };
  }
  return query;
}

/**
 * The experiences of a forget scope: the user's (and those recorded in the user's sessions, `sessionIds`), the
 * session's, or those the agent initiated.
 */
function scopeQuery({ kind, value }: MemoryScope, sessionIds: readonly string[]): Filter<ExperienceDocument> {
  if (kind === 'userId') {
    const own = { user_id: value } as Filter<ExperienceDocument>;
    return sessionIds.length ? { $or: [own, { session_id: { $in: [...sessionIds] } }] } : own;
  }
  return kind === 'sessionId' ? { session_id: value } : { initiating_agent_id: value };
}

/** CONFLICT for an experience_id that is taken (undefined: some id of a batch). */
export function duplicateExperience(id: string | undefined): ConflictError {
  return new ConflictError(
    `An experience with experienceId ${id === undefined ? 'of this batch' : JSON.stringify(id)} already exists.`,
    {
      ...(id === undefined ? {} : { experienceId: id }),
    },
  );
}

/** The only code touching `eat_agent_experiences`. */
export class ExperienceRepository {
  private readonly collection: Collection<ExperienceDocument>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<ExperienceDocument>(EXPERIENCES_COLLECTION);
  }

  /** The documents as re-embedding sees them, laid out as the feature's `ReembedTarget` says. */
  vectorDocuments(layout: VectorLayout): VectorDocuments {
    return vectorDocuments(this.collection, layout);
  }

  /** Ids among `ids` that are already taken. */
  async existingIds(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.collection
      .find({ experience_id: { $in: ids } }, { projection: { _id: 0, experience_id: 1 } })
      .toArray();
    return rows.map((row) => row.experience_id);
  }

  /** Those of `objectIds` that are stored. */
  async existingObjectIds(objectIds: ObjectId[]): Promise<ObjectId[]> {
    const rows = await this.collection.find({ _id: { $in: objectIds } }, { projection: { _id: 1 } }).toArray();
    return rows.map((row) => row._id!);
  }

  /**
   * Inserts all documents or none: on a duplicate id (a race with another writer) the documents of this batch that
   * were inserted are removed again and CONFLICT names the id.
   */
  async insertAll(docs: ExperienceDocument[]): Promise<void> {
    for (const doc of docs) doc._id ??= new ObjectId();
    try {
      await this.collection.insertMany(docs, { ordered: true });
    } catch (error) {
      // All or nothing: whatever stopped the ordered insert part way (a duplicate, a failed write), the documents before
      // it are removed. Only ours: the ids are this batch's own, and a duplicate's document was not inserted by us.
      const failed = error instanceof MongoBulkWriteError ? [error.writeErrors].flat()[0]?.index : undefined;
      const inserted = failed === undefined ? docs : docs.slice(0, failed);
      if (inserted.length) await this.collection.deleteMany({ _id: { $in: inserted.map((doc) => doc._id!) } });
      if (!isDuplicateKeyError(error)) throw error;
      const at = failed ?? (docs.length === 1 ? 0 : undefined);
      throw duplicateExperience(at === undefined ? undefined : docs[at]?.experience_id);
    }
  }

  /** Documents by id, without vectors (only `fields` when given), in no particular order. */
  findByIds(ids: readonly string[], fields: string[] | null = null): Promise<ExperienceDocument[]> {
    return findDocuments<ExperienceDocument>(
      this.db,
      EXPERIENCES_COLLECTION,
      { experience_id: { $in: [...ids] } },
      {
        projection: fields ? onlyFields(fields) : WITHOUT_VECTORS.projection,
      },
    );
  }

  /** The stored vectors and their model, by id. */
  findVectorsByIds(
    ids: readonly string[],
  ): Promise<Pick<ExperienceDocument, 'experience_id' | 'embeddings' | 'embedding_model'>[]> {
    return this.collection
      .find(
        { experience_id: { $in: [...ids] } },
        { projection: { _id: 0, experience_id: 1, embeddings: 1, embedding_model: 1 } },
      )
      .toArray();
  }

  /** One keyset page (rows after `after`, in `sort` order), without vectors; only `fields` when given. */
  findPage(
    filter: Filter<ExperienceDocument>,
    after: Document | null,
    sort: SortKey[],
    limit: number,
    fields: string[] | null = null,
  ): Promise<ExperienceDocument[]> {
    const query = after ? { $and: [filter, after] } : filter;
    return findDocuments<ExperienceDocument>(this.db, EXPERIENCES_COLLECTION, query, {
      projection: fields ? onlyFields(fields) : WITHOUT_VECTORS.projection,
      sort: Object.fromEntries(sort.map((key) => [key.field, key.direction])),
      limit,
    });
  }

  count(filter: Filter<ExperienceDocument>): Promise<number> {
    return this.collection.countDocuments(filter);
  }

  /**
   * Applies `$set`/`$unset` to one experience; returns it after the update (without vectors), or null when absent.
   * An update that would take the document past 16 MB is BAD_USER_INPUT naming `field`, and writes nothing.
   */
  update(id: string, set: Document, unset: string[], field = 'input'): Promise<ExperienceDocument | null> {
    const update: Document = {};
    if (Object.keys(set).length) update.$set = set;
    if (unset.length) update.$unset = Object.fromEntries(unset.map((path) => [path, '']));
    return this.collection
      .findOneAndUpdate({ experience_id: id }, update, { returnDocument: 'after', ...WITHOUT_VECTORS })
      .catch((error: unknown) => refuseTooLarge(error, field));
  }

  /**
   * Merges `signals` into `feedback_signals` key by key and counts them in `feedback_stats` (experience.ranking.ts) in
   * one atomic update; when the stored value is not an object (absent or null) it becomes `signals`. With `writeId`
   * (a keyed call), an update that applied it before is not applied again (see `notApplied`): the experience is
   * returned as it is. Returns the experience after the update, or null when absent. Signals that would take the
   * document past 16 MB are BAD_USER_INPUT naming `field`, and nothing is written.
   */
  async mergeFeedback(
    id: string,
    signals: Record<string, unknown>,
    field = 'signals',
    writeId: string | null = null,
  ): Promise<ExperienceDocument | null> {
    const once = writeId === null ? {} : notApplied(writeId);
    const mark =
      writeId === null ? {} : { $push: { appliedWrites: { $each: [writeId], $slice: -MAX_APPLIED_WRITES } } };
    const merged = await this.collection
      .findOneAndUpdate(
        { experience_id: id, feedback_signals: { $type: 'object' }, ...once },
        {
          $set: Object.fromEntries(Object.entries(signals).map(([key, value]) => [`feedback_signals.${key}`, value])),
          $inc: feedbackStatsIncrement(signals),
          ...mark,
        },
        { returnDocument: 'after', ...WITHOUT_VECTORS },
      )
      .catch((error: unknown) => refuseTooLarge(error, field));
    if (merged) return merged;
    const replaced = await this.collection
      .findOneAndUpdate(
        { experience_id: id, feedback_signals: { $not: { $type: 'object' } }, ...once },
        { $set: { feedback_signals: signals }, $inc: feedbackStatsIncrement(signals), ...mark },
        { returnDocument: 'after', ...WITHOUT_VECTORS },
      )
      .catch((error: unknown) => refuseTooLarge(error, field));
    if (replaced) return replaced;
    if (writeId !== null) {
      const applied = await this.collection.findOne({ experience_id: id, appliedWrites: writeId }, WITHOUT_VECTORS);
      if (applied) return applied;
    }
    // Lost a race with a writer that just created the object: merge into it.
    return (await this.collection.countDocuments({ experience_id: id }, { limit: 1 }))
      ? this.mergeFeedback(id, signals, field, writeId)
      : null;
  }

  /**
   * The experiences current at `now` with one of the dedupe keys or near keys (experience.dedupe.ts), oldest first (the
   * first recorded stands), without vectors.
   */
  findCurrentDuplicates(nearKeys: readonly string[], now: Date): Promise<ExperienceDocument[]> {
    // One equality read on near_key, served by its index alone: an exact duplicate's goal has the same words, so its
    // near_key is the same too. (An `$or` with dedupe_key, a validity filter or a sort made the engine walk the
    // timestamp index over the whole collection on every recording.)
    if (!nearKeys.length) return Promise.resolve([]);
    return findDocuments<ExperienceDocument>(
      this.db,
      EXPERIENCES_COLLECTION,
      { near_key: { $in: [...nearKeys] } },
      WITHOUT_VECTORS,
    ).then((found) =>
      found
        .filter((document) => isCurrentAt(EXPERIENCE_VALIDITY, document as unknown as Document, now))
        // The oldest first (the memory a duplicate counts into), as the stored order of the list.
        .sort(
          (a, b) =>
            new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime() ||
            (a.experience_id < b.experience_id ? -1 : a.experience_id > b.experience_id ? 1 : 0),
        ),
    );
  }

  /**
   * Counts `count` more occurrences of a current experience in one atomic update: `occurrences` (missing = 1) grows,
   * `last_seen_at` becomes `now`, `tags` gain the new ones (in order, no repeats). With `writeIds` (keyed
   * recordings), they are marked applied and an update that applied them before is not applied again. Returns the
   * experience after it, or null when it is gone or no longer current.
   */
  async countOccurrences(
    id: string,
    count: number,
    tags: readonly string[],
    now: Date,
    writeIds: readonly string[],
  ): Promise<ExperienceDocument | null> {
    const stored = { $ifNull: ['$tags', []] };
    const pipeline: Document[] = [
      {
        $set: {
          occurrences: { $add: [{ $ifNull: ['$occurrences', 1] }, count] },
          last_seen_at: now,
          tags: {
            $concatArrays: [
              stored,
              { $filter: { input: { $literal: [...tags] }, as: 'tag', cond: { $not: [{ $in: ['$$tag', stored] }] } } },
            ],
          },
        },
      },
      ...writeIds.map(markApplied),
    ];
    const filter: Document = { experience_id: id, ...currentAt(EXPERIENCE_VALIDITY, now) };
    if (writeIds.length) filter.$and = [...(filter.$and as Document[]), ...writeIds.map(notApplied)];
    const updated = await this.collection.findOneAndUpdate(filter, pipeline, {
      returnDocument: 'after',
      ...WITHOUT_VECTORS,
    });
    if (updated || !writeIds.length) return updated;
    // Applied before: a retry of the same keyed recording.
    return this.collection.findOne({ experience_id: id, appliedWrites: writeIds[0] }, WITHOUT_VECTORS);
  }

  /** The experiences that keyed recordings `writeIds` were counted into (see countOccurrences), without vectors. */
  findByAppliedWrites(writeIds: readonly string[]): Promise<ExperienceDocument[]> {
    return this.collection.find({ appliedWrites: { $in: [...writeIds] } }, { projection: { embeddings: 0 } }).toArray();
  }

  /** Deletes one experience; returns it (without vectors), or null when absent. */
  delete(id: string): Promise<ExperienceDocument | null> {
    return this.collection.findOneAndDelete({ experience_id: id }, WITHOUT_VECTORS);
  }

  /** The lifecycle states of the experiences of `ids` that exist, in any order. */
  async states(ids: readonly string[]): Promise<MemoryState[]> {
    const rows = await this.collection
      .find({ experience_id: { $in: [...ids] } }, { projection: STATE_FIELDS })
      .toArray();
    return rows.map(experienceState);
  }

  /**
   * Ends the experience if it is current at `end.at` (one conditional update, so of two concurrent ends one wins):
   * sets valid_until to `end.at`, the reason and, for a supersede, the replacement. Returns it after the update
   * (without vectors), or null when it was not current (or does not exist).
   */
  endIfCurrent(id: string, end: MemoryEnd): Promise<ExperienceDocument | null> {
    return this.collection.findOneAndUpdate(
      { experience_id: id, ...currentAt(EXPERIENCE_VALIDITY, end.at) },
      {
        $set: {
          valid_until: end.at,
          ended_reason: end.reason,
          ...(end.supersededBy !== null ? { superseded_by: end.supersededBy } : {}),
        },
      },
      { returnDocument: 'after', ...WITHOUT_VECTORS },
    );
  }

  /** Undoes `endIfCurrent` (when the replacement ended meanwhile), restoring what the experience stored before. */
  async undoEnd(id: string, end: MemoryEnd, before: MemoryState): Promise<void> {
    await this.collection.updateOne(
      { experience_id: id, valid_until: end.at, superseded_by: end.supersededBy },
      restoreEnd(EXPERIENCE_VALIDITY, before.stored),
    );
  }

  /** The experiences that `ids` replaced (superseded_by one of them), oldest first. */
  findSupersededBy(ids: readonly string[]): Promise<ExperienceDocument[]> {
    return findDocuments<ExperienceDocument>(
      this.db,
      EXPERIENCES_COLLECTION,
      { superseded_by: { $in: [...ids] } },
      { projection: WITHOUT_VECTORS.projection, sort: { valid_until: 1, experience_id: 1 } },
    );
  }

  /** This collection's change feed, shared by every subscriber of this database (src/db/change-follower.ts). */
  followChanges(changes: ChangeFollower): Promise<ChangeFeed> {
    return changes.follow(this.db, EXPERIENCES_COLLECTION);
  }

  /** The ids of the experiences of a forget scope (a user's: with those recorded in `sessionIds`, the user's sessions). */
  async idsByScope(scope: MemoryScope, sessionIds: readonly string[] = []): Promise<string[]> {
    const rows = await this.collection
      .find(scopeQuery(scope, sessionIds), { projection: { _id: 0, experience_id: 1 } })
      .toArray();
    return rows.map((row) => row.experience_id);
  }

  /** Deletes the experiences of a forget scope (one deleteMany); returns how many. */
  async forgetScope(scope: MemoryScope, sessionIds: readonly string[] = []): Promise<number> {
    return (await this.collection.deleteMany(scopeQuery(scope, sessionIds))).deletedCount;
  }

  /**
   * The experienceId of the document stored under `_id` when it passes `filter` and is current at `now` (as
   * `experiences(filter)` reads it).
   */
  async experienceIdIfMatching(id: unknown, filter: ExperienceFilter | null, now: Date): Promise<string | null> {
    const found = await this.collection.findOne(
      { $and: [{ _id: id as never }, experienceFilterQuery(filter), currentAt(EXPERIENCE_VALIDITY, now)] },
      { projection: { experience_id: 1 } },
    );
    return found?.experience_id ?? null;
  }
}

/** Server codes for a write that would take a document past MongoDB's 16 MB limit (update, insert). */
const TOO_LARGE_CODES = new Set([10334, 17419, 17420]);

/** A write the server refused for the document's size becomes BAD_USER_INPUT naming `field`; anything else is rethrown. */
function refuseTooLarge(error: unknown, field: string): never {
  if (error instanceof MongoServerError && TOO_LARGE_CODES.has(Number(error.code))) {
    throw new ValidationError(`The experience document would exceed MongoDB's 16 MB limit.`, field);
  }
  throw error;
}
