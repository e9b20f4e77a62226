import type { Snapshot, SnapshotLocation, SnapshotManifest, SnapshotStorage } from '@strands-agents/sdk';
import { HindsightClient, HindsightError, type HindsightConnection } from './client.js';
import { AgentDataDocument, DeleteSessionDocument, UpsertAgentDocument } from './generated/graphql.js';
import { SessionCreator } from './sessions.js';

export interface HindsightSnapshotStorageConfig extends HindsightConnection {
  /** The end user of the sessions this storage creates (Hindsight's Session.userId, which `forget` erases by). */
  userId?: string;
}

/** agent_data field of the latest snapshot; an immutable one's is `strands_snapshot_<its UUID v7>`. */
const SNAPSHOT_FIELD = 'strands_snapshot_';
const LATEST_FIELD = `${SNAPSHOT_FIELD}latest`;
const MANIFEST_FIELD = 'strands_manifest';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const SCHEMA_VERSION = '1.0';

/**
 * The Hindsight agent holding a location's snapshots: the SDK's agent id itself (so the snapshots sit beside the
 * messages a HindsightMemoryStore with that sessionId and agentId appends), `multiAgent:<id>` for an orchestrator
 * (the SDK's ids never contain a colon).
 */
function agentIdOf(location: SnapshotLocation): string {
  return location.scope === 'agent' ? location.scopeId : `${location.scope}:${location.scopeId}`;
}

/**
 * A Strands `SnapshotStorage` kept in Hindsight's session store: SDK session `<id>` is Hindsight session `<id>`
 * (created on first save), and each snapshot is a JSON string in its agent's `agent_data` (`strands_snapshot_latest`,
 * `strands_snapshot_<uuid>` for immutable ones, `strands_manifest`). Only existing GraphQL operations are used:
 * `createSession`, `upsertAgent` (one field per write, so concurrent saves of one agent do not overwrite each other),
 * `session { agent { agentData { raw } } }` and `deleteSession` (an admin key's). Snapshots live inside the session
 * document, so they go with it (deleteSession, forget, TTL) and share its 16 MB.
 */
export class HindsightSnapshotStorage implements SnapshotStorage {
  private readonly client: HindsightClient;
  private readonly sessions: SessionCreator;

  constructor(config: HindsightSnapshotStorageConfig) {
    this.client = new HindsightClient(config);
    this.sessions = new SessionCreator(this.client, config.userId);
  }

  async saveSnapshot(params: {
    location: SnapshotLocation;
    snapshotId: string;
    isLatest: boolean;
    snapshot: Snapshot;
  }): Promise<void> {
    if (!params.isLatest && !UUID_V7.test(params.snapshotId)) {
      throw new TypeError(`snapshotId must be a UUID v7 (got ${JSON.stringify(params.snapshotId)}).`);
    }
    const field = params.isLatest ? LATEST_FIELD : `${SNAPSHOT_FIELD}${params.snapshotId}`;
    await this.write(params.location, field, JSON.stringify(params.snapshot));
  }

  async loadSnapshot(params: { location: SnapshotLocation; snapshotId?: string }): Promise<Snapshot | null> {
    const field = params.snapshotId === undefined ? LATEST_FIELD : `${SNAPSHOT_FIELD}${params.snapshotId}`;
    const stored = (await this.agentData(params.location))?.[field];
    return typeof stored === 'string' ? (JSON.parse(stored) as Snapshot) : null;
  }

  async listSnapshotIds(params: {
    location: SnapshotLocation;
    limit?: number;
    startAfter?: string;
  }): Promise<string[]> {
    if (params.limit !== undefined && params.limit <= 0) return [];
    const data = (await this.agentData(params.location)) ?? {};
    const ids = Object.keys(data)
      .filter((key) => key.startsWith(SNAPSHOT_FIELD))
      .map((key) => key.slice(SNAPSHOT_FIELD.length))
      .filter((id) => UUID_V7.test(id) && (params.startAfter === undefined || id > params.startAfter))
      .sort();
    return params.limit === undefined ? ids : ids.slice(0, params.limit);
  }

  /** Deletes the Hindsight session (its agents, messages and snapshots); one that does not exist is no error. */
  async deleteSession(params: { sessionId: string }): Promise<void> {
    try {
      await this.client.request(DeleteSessionDocument, { id: params.sessionId });
    } catch (error) {
      if (!(error instanceof HindsightError && error.code === 'NOT_FOUND')) throw error;
    } finally {
      this.sessions.forget(params.sessionId);
    }
  }

  async loadManifest(params: { location: SnapshotLocation }): Promise<SnapshotManifest> {
    const stored = (await this.agentData(params.location))?.[MANIFEST_FIELD];
    return typeof stored === 'string'
      ? (JSON.parse(stored) as SnapshotManifest)
      : { schemaVersion: SCHEMA_VERSION, updatedAt: new Date().toISOString() };
  }

  async saveManifest(params: { location: SnapshotLocation; manifest: SnapshotManifest }): Promise<void> {
    await this.write(params.location, MANIFEST_FIELD, JSON.stringify(params.manifest));
  }

  /** Sets one agent_data field; the session is created when it is not there (yet, or any more). */
  private async write(location: SnapshotLocation, field: string, value: string): Promise<void> {
    const variables = {
      sessionId: location.sessionId,
      input: { agentId: agentIdOf(location), agentData: { [field]: value } },
    };
    try {
      await this.client.request(UpsertAgentDocument, variables);
    } catch (error) {
      if (!(error instanceof HindsightError && error.code === 'NOT_FOUND')) throw error;
      this.sessions.forget(location.sessionId);
      await this.sessions.ensure(location.sessionId);
      await this.client.request(UpsertAgentDocument, variables);
    }
  }

  /** The agent's stored agent_data; null when the session or the agent does not exist. */
  private async agentData(location: SnapshotLocation): Promise<Record<string, unknown> | null> {
    try {
      const { session } = await this.client.request(AgentDataDocument, {
        sessionId: location.sessionId,
        agentId: agentIdOf(location),
      });
      return session.agent?.agentData.raw ?? null;
    } catch (error) {
      if (error instanceof HindsightError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }
}
