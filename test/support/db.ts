import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { URI_VARIABLE } from './target';

export interface TestDatabase {
  client: MongoClient;
  db: Db;
  uri: string;
  /** Commands the client sent since the last `reset()` (command monitoring), for batching tests. */
  commands: CommandLog;
  /** Drops this file's database and closes the client. */
  close(): Promise<void>;
}

export class CommandLog {
  readonly events: CommandStartedEvent[] = [];

  record(event: CommandStartedEvent): void {
    this.events.push(event);
  }

  reset(): void {
    this.events.length = 0;
  }

  /** Commands of one name (e.g. `find`, `aggregate`) sent to one collection, or all of them. */
  count(commandName?: string, collection?: string): number {
    return this.events.filter(
      (event) =>
        (!commandName || event.commandName === commandName) &&
        (!collection || event.command[event.commandName] === collection),
    ).length;
  }
}

const IGNORED_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo']);

/**
 * Logs the commands a client created with `monitorCommands: true` sends, leaving out handshakes and pings, and the
 * reads of the change streams the app keeps open in the background (search following, subscriptions): the `getMore`s
 * and `killCursors` of their cursors come at any moment, not from the operation a test counts (their opening
 * `aggregate` is logged).
 */
export function monitorCommands(client: MongoClient): CommandLog {
  const commands = new CommandLog();
  const streamOpenings = new Set<number>();
  const streamCursors = new Set<string>();
  const cursorOf = (event: CommandStartedEvent): string | null => {
    const cursor = event.commandName === 'getMore' ? event.command.getMore : event.command.cursors?.[0];
    return cursor === undefined ? null : String(cursor);
  };
  client.on('commandStarted', (event) => {
    if (IGNORED_COMMANDS.has(event.commandName)) return;
    if (event.commandName === 'aggregate' && event.command.pipeline?.[0]?.$changeStream) {
      streamOpenings.add(event.requestId);
    }
    if (event.commandName === 'getMore' || event.commandName === 'killCursors') {
      const cursor = cursorOf(event);
      if (cursor !== null && streamCursors.has(cursor)) return;
    }
    commands.record(event);
  });
  client.on('commandSucceeded', (event) => {
    if (!streamOpenings.delete(event.requestId)) return;
    const cursor = (event.reply as { cursor?: { id?: unknown } }).cursor?.id;
    if (cursor !== undefined) streamCursors.add(String(cursor));
  });
  client.on('commandFailed', (event) => streamOpenings.delete(event.requestId));
  return commands;
}

/** A fresh, uniquely named database on the run's test server (embedded engine or mongod), or on the server at `uri`. */
export async function openTestDatabase(uri = process.env[URI_VARIABLE]): Promise<TestDatabase> {
  if (!uri)
    throw new Error(`${URI_VARIABLE} is not set: run the tests through jest (globalSetup starts the database).`);
  const client = new MongoClient(uri, { monitorCommands: true, ignoreUndefined: true });
  const commands = monitorCommands(client);
  await client.connect();
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const db = client.db(name);
  return {
    client,
    db,
    uri,
    commands,
    async close() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}
