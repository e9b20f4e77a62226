import type { ConnectionCheckedInEvent, ConnectionCheckedOutEvent, MongoClient } from 'mongodb';
import { databaseCommandDuration } from './metrics';

/**
 * Times each database command `client` sends, from its connection pool's events: a command checks a connection out
 * once and in again when its reply is read, and the driver emits these events anyway. Command monitoring
 * (monitorCommands) would name the commands, but deserializes every reply a second time for its events (+30–50% of
 * the driver's CPU on reads), so it stays off. Returns a function that stops timing.
 */
export function timeDatabaseCommands(client: MongoClient): () => void {
  // Connection ids are per pool (one pool per server): keyed by the pool's address, then the id.
  const checkedOut = new Map<string, Map<number | string, number>>();
  const out = (event: ConnectionCheckedOutEvent) => {
    let pool = checkedOut.get(event.address);
    if (!pool) checkedOut.set(event.address, (pool = new Map()));
    pool.set(event.connectionId, performance.now());
  };
  const back = (event: ConnectionCheckedInEvent) => {
    const pool = checkedOut.get(event.address);
    const since = pool?.get(event.connectionId);
    if (since === undefined) return;
    pool!.delete(event.connectionId);
    databaseCommandDuration.observe((performance.now() - since) / 1000);
  };
  client.on('connectionCheckedOut', out);
  client.on('connectionCheckedIn', back);
  return () => {
    client.off('connectionCheckedOut', out);
    client.off('connectionCheckedIn', back);
  };
}
