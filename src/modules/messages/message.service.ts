import type { Db, Document } from 'mongodb';
import type { AppDeps } from '../../app';
import { HYBRID_WEIGHTS, fuse, type FusedHit } from '../../search/fusion';
import type { KeywordHit, VectorHit } from '../../search/search-index';
import { SearchMode } from '../experiences/experience.input';
import { SessionRepository } from '../sessions/session.repository';
import { Message } from '../sessions/session.type';
import { messageKey } from './message.document';
import { MessageIndexRepository, type StoredEntry } from './message.repository';
import type { MessageSearchFilter } from './message.input';
import { MESSAGE_SPACE } from './message.spaces';
import { checkMessageContext, checkMessageLimit, checkMessageQuery, messageFilterQuery } from './message.validation';

/** What `MessageSearchService.search` takes: `searchMessages`'s arguments (defaults: HYBRID, 10 hits, no context). */
export interface MessageSearchRequest {
  query: string;
  filter?: MessageSearchFilter | null;
  mode?: SearchMode | null;
  limit?: number | null;
  /** Neighbouring messages of the same agent returned before and after each hit. */
  context?: number | null;
}

/** One hit: the message as stored now, where it lives, how it scored, and its neighbours (oldest first). */
export interface MessageSearchResult {
  /** `<sessionId>/<agentId>/<messageId>`. */
  id: string;
  sessionId: string;
  agentId: string;
  message: Message;
  /** The fused score in [0, 1]. */
  score: number;
  vectorScore: number | null;
  keywordScore: number | null;
  before: Message[];
  after: Message[];
}

/** Candidates taken from each part per hit wanted (HYBRID), and at least. */
const HYBRID_CANDIDATES_PER_RESULT = 2;
const HYBRID_MIN_CANDIDATES = 20;
/** A hit scores above 0: a message with no query word and a cosine ≤ 0 has nothing to do with the query. */
const ANY_MATCH = Number.MIN_VALUE;

/**
 * `searchMessages`: hybrid (or vector, or keyword) search over the text parts of the sessions' messages, through
 * the `messages.text` search space over `message_index` (kept current by MessageIndexer). Each search first waits
 * for the index to hold every write this process reported before it (read-your-writes), then reads the hits' messages
 * from the sessions themselves: a message gone meanwhile (its session deleted or expired) is not returned, and a
 * redacted one shows its redaction.
 */
export class MessageSearchService {
  constructor(
    private readonly db: Db,
    private readonly deps: Pick<AppDeps, 'search' | 'embedder' | 'messageIndex'>,
  ) {}

  /** Hits best first; BAD_USER_INPUT naming `query`, `limit`, `context` or the filter's field. */
  async search(request: MessageSearchRequest): Promise<MessageSearchResult[]> {
    const query = checkMessageQuery(request.query);
    const limit = checkMessageLimit(request.limit);
    const context = checkMessageContext(request.context);
    const filter = messageFilterQuery(request.filter);
    const mode = request.mode ?? SearchMode.HYBRID;
    await this.deps.messageIndex.forDb(this.db).ready();
    // A hit whose session is gone since it was indexed is dropped: a few more are asked for than shown.
    const fused = await this.ranked(query, mode, filter, limit + Math.ceil(limit / 4));
    return this.withMessages(fused, limit, context);
  }

  private get index() {
    return this.deps.search.forDb(this.db);
  }

  private queryVector(query: string): Promise<Float32Array> {
    return this.deps.search.queryVectors.get(query, () => this.deps.embedder.embedQuery(query));
  }

  private async ranked(query: string, mode: SearchMode, filter: Document, limit: number): Promise<FusedHit[]> {
    const space = MESSAGE_SPACE.name;
    if (mode === SearchMode.KEYWORD) {
      const hits = await this.index.searchKeyword(space, { text: query, k: limit, filter });
      return fuse([{ name: 'keyword', weight: 1, hits }], { limit, minScore: ANY_MATCH });
    }
    if (mode === SearchMode.VECTOR) {
      const hits = await this.index.searchVector(space, { vector: await this.queryVector(query), k: limit, filter });
      return fuse([{ name: 'vector', weight: 1, hits }], { limit, minScore: ANY_MATCH });
    }
    const k = Math.max(limit * HYBRID_CANDIDATES_PER_RESULT, HYBRID_MIN_CANDIDATES);
    const [vector, keywordHits] = await Promise.all([
      this.queryVector(query),
      this.index.searchKeyword(space, { text: query, k, filter }),
    ]);
    const vectorHits = await this.index.searchVector(space, { vector, k, filter });
    // Every candidate gets both parts: those found by one part alone are scored by the other.
    const byVector = new Set(vectorHits.map((hit) => hit.id));
    const byKeyword = new Set(keywordHits.map((hit) => hit.id));
    const vectorMissing = keywordHits.filter((hit) => !byVector.has(hit.id)).map((hit) => hit.id);
    const keywordMissing = vectorHits.filter((hit) => !byKeyword.has(hit.id)).map((hit) => hit.id);
    const [vectorScores, keywordScores] = await Promise.all([
      this.index.vectorScores(space, vector, vectorMissing),
      this.index.keywordScores(space, query, keywordMissing),
    ]);
    const vectors: VectorHit[] = [
      ...vectorHits,
      ...vectorMissing.flatMap((id, i) => (vectorScores[i] === null ? [] : [{ id, score: vectorScores[i]! }])),
    ];
    const keywords: Array<Pick<KeywordHit, 'id' | 'score'>> = [
      ...keywordHits,
      ...keywordScores.flatMap((hit) => (hit ? [hit] : [])),
    ];
    return fuse(
      [
        { name: 'vector', weight: HYBRID_WEIGHTS.vector, hits: vectors },
        { name: 'keyword', weight: HYBRID_WEIGHTS.keyword, hits: keywords },
      ],
      { limit, minScore: ANY_MATCH },
    );
  }

  /**
   * The hits' messages and neighbours, read from their index entries (which keep each message as stored); a hit whose
   * session no longer exists (or has expired) is dropped.
   */
  private async withMessages(fused: FusedHit[], limit: number, context: number): Promise<MessageSearchResult[]> {
    const entries = new MessageIndexRepository(this.db);
    const hits = await entries.findByKeys(fused.map((hit) => hit.id));
    const live = await new SessionRepository(this.db).existing([...new Set(hits.map((hit) => hit.session_id))]);
    const byKey = new Map<string, StoredEntry>(hits.map((entry) => [entry._id, entry]));
    const kept = fused.filter((hit) => live.has(byKey.get(hit.id)?.session_id ?? '')).slice(0, limit);
    const neighbours = new Map<string, StoredEntry>();
    if (context > 0) {
      const keys: string[] = [];
      for (const hit of kept) {
        const entry = byKey.get(hit.id)!;
        for (let id = entry.message_id - context; id <= entry.message_id + context; id++)
          if (id !== entry.message_id) keys.push(messageKey(entry.session_id, entry.agent_id, id));
      }
      for (const entry of await entries.findByKeys(keys)) neighbours.set(entry._id, entry);
    }
    return kept.map((hit) => {
      const entry = byKey.get(hit.id)!;
      const source = { sessionId: entry.session_id, agentId: entry.agent_id };
      const around = (from: number, to: number) => {
        const found: Message[] = [];
        for (let id = from; id <= to; id++) {
          const neighbour = neighbours.get(messageKey(source.sessionId, source.agentId, id));
          if (neighbour) found.push(Message.fromDocument(neighbour.stored, source));
        }
        return found;
      };
      return {
        id: hit.id,
        ...source,
        message: Message.fromDocument(entry.stored, source),
        score: hit.score,
        vectorScore: hit.parts.vector ?? null,
        keywordScore: hit.parts.keyword ?? null,
        before: context ? around(entry.message_id - context, entry.message_id - 1) : [],
        after: context ? around(entry.message_id + 1, entry.message_id + context) : [],
      };
    });
  }
}
