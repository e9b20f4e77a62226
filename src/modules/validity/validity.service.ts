import type { Db } from 'mongodb';
import type { AppDeps } from '../../app';
import type { Caller } from '../../auth/caller';
import { ConflictError, NotFoundError, ValidationError } from '../../errors';
import { EXPERIENCE_SPACES } from '../experiences/experience.spaces';
import type { ExperienceLoaders } from '../experiences/experience.loaders';
import { ExperienceRepository } from '../experiences/experience.repository';
import { ExperienceField } from '../experiences/experience.document';
import { MemoryEventRepository } from '../history/memory-event.repository';
import type { MemoryKind as StoredKind } from '../history/memory-event.document';
import { toExperience, type Experience } from '../experiences/experience.type';
import { toAgentInsight, type AgentInsight } from '../insights/insight.type';
import type { EndedMemory } from './validity.result';
import { MemoryKind } from '../shared/validity.type';
import { AgentInsightRepository } from '../insights/insight.repository';
import type { AgentInsightDocument } from '../insights/insight.document';
import type { NodeLoaders } from '../nodes/node.loaders';
import type { ExperienceDocument } from '../experiences/experience.document';
import {
  EXPERIENCE_VALIDITY,
  INSIGHT_VALIDITY,
  isCurrentAt,
  type MemoryEnd,
  type MemoryState,
  type ValidityFields,
} from '../shared/validity.filter';

/** Longest supersede or retire reason. */
export const MAX_REASON_LENGTH = 2000;

/** Replacements followed when looking for a cycle (further on, the chain's start is not current: refused anyway). */
const MAX_CHAIN = 1000;

/** What the lifecycle needs of a kind of memory (its repository and names). */
interface MemoryStore<T> {
  kind: StoredKind;
  /** The memory's name in messages ("experience"). */
  noun: string;
  /** The name of the id in error extensions (`experienceId`). */
  idKey: string;
  fields: ValidityFields;
  states(ids: readonly string[]): Promise<MemoryState[]>;
  endIfCurrent(id: string, end: MemoryEnd): Promise<T | null>;
  undoEnd(id: string, end: MemoryEnd, before: MemoryState): Promise<void>;
  /** Called after a successful end: the search index and the request's loaders learn of it. */
  ended(id: string, document: T): void;
}

/**
 * Supersede and retire, for experiences and insights alike: checks (nothing is written when one fails), one
 * conditional update, and the event in `memory_events`.
 */
export class ValidityService {
  private readonly events: MemoryEventRepository;
  private readonly experiences: MemoryStore<ExperienceDocument>;
  private readonly insights: MemoryStore<AgentInsightDocument>;

  constructor(
    db: Db,
    deps: AppDeps,
    loaders: { experiences: ExperienceLoaders; nodes: NodeLoaders },
    caller: Pick<Caller, 'keyId'>,
  ) {
    this.events = new MemoryEventRepository(db, caller);
    const experiences = new ExperienceRepository(db);
    const insights = new AgentInsightRepository(db);
    this.experiences = {
      kind: 'experience',
      noun: 'experience',
      idKey: 'experienceId',
      fields: EXPERIENCE_VALIDITY,
      states: (ids) => experiences.states(ids),
      endIfCurrent: (id, end) => experiences.endIfCurrent(id, end),
      undoEnd: async (id, end, before) => {
        await experiences.undoEnd(id, end, before);
        deps.search.forDb(db).markWritten(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, id);
      },
      ended: (id, document) => {
        // Cached search filters (current memories, a filter on validity) ask about it again at the next search.
        deps.search.forDb(db).markWritten(EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name, id);
        loaders.experiences.experienceById.clear(id).prime(id, document);
      },
    };
    this.insights = {
      kind: 'insight',
      noun: 'insight',
      idKey: 'insightId',
      fields: INSIGHT_VALIDITY,
      states: (ids) => insights.states(ids),
      endIfCurrent: (id, end) => insights.endIfCurrent(id, end),
      undoEnd: (id, end, before) => insights.undoEnd(id, end, before),
      ended: (id, document) => loaders.nodes.insightById.clear(id).prime(id, document),
    };
  }

  async supersedeExperience(id: string, by: string, reason: string | null | undefined): Promise<Experience> {
    return toExperience(await this.supersede(this.experiences, id, by, reason));
  }

  async retireExperience(id: string, reason: string): Promise<Experience> {
    return toExperience(await this.retire(this.experiences, id, reason));
  }

  async supersedeInsight(id: string, by: string, reason: string | null | undefined): Promise<AgentInsight> {
    return toAgentInsight(await this.supersede(this.insights, id, by, reason));
  }

  async retireInsight(id: string, reason: string): Promise<AgentInsight> {
    return toAgentInsight(await this.retire(this.insights, id, reason));
  }

  /** `supersedeMemory`: the experience or insight of `kind`. */
  async supersedeMemory(
    kind: MemoryKind,
    id: string,
    by: string,
    reason: string | null | undefined,
  ): Promise<EndedMemory> {
    return kind === MemoryKind.EXPERIENCE
      ? { kind, experience: await this.supersedeExperience(id, by, reason), insight: null }
      : { kind, experience: null, insight: await this.supersedeInsight(id, by, reason) };
  }

  /** `retireMemory`: the experience or insight of `kind`. */
  async retireMemory(kind: MemoryKind, id: string, reason: string): Promise<EndedMemory> {
    return kind === MemoryKind.EXPERIENCE
      ? { kind, experience: await this.retireExperience(id, reason), insight: null }
      : { kind, experience: null, insight: await this.retireInsight(id, reason) };
  }

  /**
   * Ends `id`, replaced by `by`. BAD_USER_INPUT: `by` is `id`, `by` was (transitively) replaced by `id` (a cycle), or
   * `by` is not current; NOT_FOUND naming `id` or `by`; CONFLICT: `id` is not current (also when a concurrent end
   * won). Nothing is written when any of them fails.
   */
  private async supersede<T>(
    store: MemoryStore<T>,
    id: string,
    by: string,
    reason: string | null | undefined,
  ): Promise<T> {
    const why = checkReason(reason ?? null, false);
    if (id === by) throw new ValidationError(`A ${store.noun} cannot supersede itself.`, 'by');
    const states = new Map((await store.states([id, by])).map((state) => [state.id, state]));
    const memory = states.get(id);
    const replacement = states.get(by);
    if (!memory) throw notFound(store, id, 'id');
    if (!replacement) throw notFound(store, by, 'by');
    await this.refuseCycle(store, replacement, id);
    const now = new Date();
    if (!isCurrentAt(store.fields, memory.stored, now)) throw notCurrent(store, id);
    if (!isCurrentAt(store.fields, replacement.stored, now)) {
      throw new ValidationError(`The replacement ${store.noun} ${JSON.stringify(by)} is not current.`, 'by', {
        [store.idKey]: by,
      });
    }
    const end: MemoryEnd = { at: now, supersededBy: by, reason: why };
    const ended = await store.endIfCurrent(id, end);
    if (!ended) throw notCurrent(store, id);
    // The replacement may have ended meanwhile (even by `id`, a cycle two writers made together): undo rather than
    // leave a memory replaced by one that is not current.
    const [after] = await store.states([by]);
    if (!after || !isCurrentAt(store.fields, after.stored, now)) {
      await store.undoEnd(id, end, memory);
      throw new ConflictError(`The replacement ${store.noun} ${JSON.stringify(by)} ended meanwhile; nothing changed.`, {
        [store.idKey]: by,
      });
    }
    store.ended(id, ended);
    await this.events.record({
      kind: store.kind,
      memory_id: id,
      event: 'superseded',
      at: now,
      related_id: by,
      reason: why,
      ...memory.scope,
    });
    return ended;
  }

  /** Ends `id` with no replacement. NOT_FOUND; CONFLICT when it is not current; BAD_USER_INPUT for a blank reason. */
  private async retire<T>(store: MemoryStore<T>, id: string, reason: string): Promise<T> {
    const why = checkReason(reason, true)!;
    const [memory] = await store.states([id]);
    if (!memory) throw notFound(store, id, 'id');
    const now = new Date();
    const end: MemoryEnd = { at: now, supersededBy: null, reason: why };
    const ended = await store.endIfCurrent(id, end);
    if (!ended) throw notCurrent(store, id);
    store.ended(id, ended);
    await this.events.record({
      kind: store.kind,
      memory_id: id,
      event: 'retired',
      at: now,
      reason: why,
      ...memory.scope,
    });
    return ended;
  }

  /** BAD_USER_INPUT naming `by` when the replacements of `replacement` lead back to `id`. */
  private async refuseCycle<T>(store: MemoryStore<T>, replacement: MemoryState, id: string): Promise<void> {
    const seen = new Set([replacement.id]);
    let next = replacement.stored[store.fields.supersededBy];
    while (typeof next === 'string') {
      if (next === id) {
        throw new ValidationError(
          `${store.noun} ${JSON.stringify(replacement.id)} was replaced by ${JSON.stringify(id)}: superseding it by that one would make a cycle.`,
          'by',
          { [store.idKey]: replacement.id },
        );
      }
      if (seen.has(next) || seen.size >= MAX_CHAIN) return;
      seen.add(next);
      const [state] = await store.states([next]);
      next = state?.stored[store.fields.supersededBy];
    }
  }
}

function checkReason(reason: string | null, required: boolean): string | null {
  const trimmed = reason?.trim() ?? '';
  if (!trimmed) {
    if (required) throw new ValidationError('reason must not be blank.', 'reason');
    return null;
  }
  if (trimmed.length > MAX_REASON_LENGTH)
    throw new ValidationError(`reason must be at most ${MAX_REASON_LENGTH} characters.`, 'reason');
  return trimmed;
}

function notFound<T>(store: MemoryStore<T>, id: string, argument: 'id' | 'by'): NotFoundError {
  return new NotFoundError(`No ${store.noun} with id ${JSON.stringify(id)} (argument ${argument}).`, {
    [store.idKey]: id,
    argument,
  });
}

function notCurrent<T>(store: MemoryStore<T>, id: string): ConflictError {
  return new ConflictError(
    `The ${store.noun} ${JSON.stringify(id)} is not current (already superseded, retired, expired or not valid yet).`,
    { [store.idKey]: id },
  );
}
