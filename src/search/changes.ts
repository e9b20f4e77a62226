import type { ChangeStreamDocument, Collection, Document, ResumeToken } from 'mongodb';

/** Where a collection's change stream stands: every write before it is reflected by whatever was read after it. */
export type ChangePosition = ResumeToken;

/** What changed in a collection after a position (see {@link changesSince}). */
export interface Changes {
  /** `_id`s of the documents inserted, updated or replaced, each time with whether it was the insert (a document can be listed more than once). */
  written: Array<{ id: unknown; inserted: boolean }>;
  /** `_id`s of the documents deleted (an event gives nothing else: which ids they held, the document keys tell). */
  deleted: unknown[];
  /** The position after the last change read: documents read from now on reflect all of them. */
  position: ChangePosition;
}

/** Only what a catch-up needs from an event: never the full document (it may carry four 384-d vectors). */
const EVENT_FIELDS = [{ $project: { operationType: 1, documentKey: 1 } }];

/**
 * The current position of `collection`'s change stream, or null where the deployment has none (a standalone mongod)
 * or it failed. Taken before reading a collection, it marks what that read is sure to reflect.
 */
export async function currentPosition(collection: Collection): Promise<ChangePosition | null> {
  const stream = collection.watch(EVENT_FIELDS, { maxAwaitTimeMS: 1 });
  try {
    // The first (empty or not) batch carries the position; any event in it happened after the stream opened.
    await stream.tryNext();
    return stream.resumeToken ?? null;
  } catch {
    return null;
  } finally {
    await stream.close().catch(() => undefined);
  }
}

/**
 * The writes to `collection` after `position`, read from its change stream until it has no more; null when they
 * cannot be had that way (no change streams, history no longer kept, a position from another deployment, a drop or
 * rename of the collection) or when there are more than `max` of them: the caller then compares the whole
 * collection instead.
 */
export async function changesSince(
  collection: Collection,
  position: ChangePosition,
  max: number,
): Promise<Changes | null> {
  // One batch can hold every event worth following (they are small): each round trip waits for the restoring thread.
  const stream = collection.watch<Document, ChangeStreamDocument>(EVENT_FIELDS, {
    startAfter: position,
    maxAwaitTimeMS: 1,
    batchSize: max + 1,
  });
  const written: Changes['written'] = [];
  const deleted: unknown[] = [];
  try {
    for (let count = 0; ; count++) {
      const event = await stream.tryNext();
      if (!event) break;
      if (count >= max) return null;
      switch (event.operationType) {
        case 'insert':
        case 'update':
        case 'replace':
          written.push({ id: event.documentKey._id, inserted: event.operationType === 'insert' });
          break;
        case 'delete':
          deleted.push(event.documentKey._id);
          break;
        default:
          // drop, rename, dropDatabase, invalidate: the collection as the snapshot knew it is gone.
          return null;
      }
    }
    const after = stream.resumeToken;
    return after ? { written, deleted, position: after } : null;
  } catch {
    return null;
  } finally {
    await stream.close().catch(() => undefined);
  }
}
