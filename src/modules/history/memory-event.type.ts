import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { MemoryEventDocument, MemoryEventType as StoredEventType } from './memory-event.document';

/** What happened to a memory; stored as the lowercase names. */
export enum MemoryEventType {
  CREATED = 'created',
  UPDATED = 'updated',
  FEEDBACK = 'feedback',
  DEDUPLICATED = 'deduplicated',
  SUPERSEDED = 'superseded',
  RETIRED = 'retired',
  EXPIRED = 'expired',
}
registerEnumType(MemoryEventType, {
  name: 'MemoryEventType',
  description:
    'CREATED, UPDATED (fields names what changed), FEEDBACK, DEDUPLICATED (recorded again: one more occurrence), ' +
    'SUPERSEDED (relatedId: the replacement), RETIRED, EXPIRED (validUntil passed with no supersede or retire).',
});

@ObjectType({ simpleResolvers: true, description: "One event of a memory's history." })
export class MemoryEvent {
  @Field(() => MemoryEventType)
  type!: MemoryEventType;

  @Field()
  at!: Date;

  @Field(() => String, {
    nullable: true,
    description: "The caller's API key id; null: anonymous or derived (EXPIRED).",
  })
  keyId!: string | null;

  @Field(() => [String], { nullable: true, description: 'UPDATED: the fields that changed (GraphQL names).' })
  fields!: string[] | null;

  @Field(() => ID, { nullable: true, description: 'SUPERSEDED: the id of the replacement.' })
  relatedId!: string | null;

  @Field(() => String, { nullable: true, description: 'SUPERSEDED / RETIRED: the reason given.' })
  reason!: string | null;
}

const EVENT_TYPES = new Set<string>(Object.values(MemoryEventType));

/**
 * A memory's events in GraphQL shape, oldest first, with the `expired` event derived on read: a memory whose
 * `validUntil` passed without a supersede or retire shows one at `validUntil`. A memory that keeps its recording in
 * its own document (`recorded`: experiences) gets its `created` event from there, first.
 */
export function toHistory(
  events: readonly MemoryEventDocument[],
  validUntil: Date | null,
  now: Date,
  recorded: { at: Date; keyId: string | null } | null = null,
): MemoryEvent[] {
  const stored = events
    .filter((event) => EVENT_TYPES.has(event.event))
    .map((event) => ({
      type: event.event as StoredEventType as MemoryEventType,
      at: event.at,
      keyId: event.key_id ?? null,
      fields: event.fields ?? null,
      relatedId: event.related_id ?? null,
      reason: event.reason ?? null,
    }));
  const history =
    recorded && !stored.some((event) => event.type === MemoryEventType.CREATED)
      ? [
          {
            type: MemoryEventType.CREATED,
            at: recorded.at,
            keyId: recorded.keyId,
            fields: null,
            relatedId: null,
            reason: null,
          },
          ...stored,
        ]
      : stored;
  const ended = history.some(
    (event) => event.type === MemoryEventType.SUPERSEDED || event.type === MemoryEventType.RETIRED,
  );
  if (validUntil && validUntil <= now && !ended) {
    const expired = {
      type: MemoryEventType.EXPIRED,
      at: validUntil,
      keyId: null,
      fields: null,
      relatedId: null,
      reason: null,
    };
    const at = history.findIndex((event) => event.at > validUntil);
    history.splice(at === -1 ? history.length : at, 0, expired);
  }
  return history;
}
