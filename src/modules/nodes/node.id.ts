import { ValidationError } from '../../errors';
import { isInsightId } from '../insights/insight.repository';

/** The entity types with a global id, and their keys (unique only together, e.g. an agent in a session). */
interface NodeKeys {
  Session: [sessionId: string];
  Agent: [sessionId: string, agentId: string];
  Message: [sessionId: string, agentId: string, messageId: number];
  Feedback: [sessionId: string, index: number];
  Experience: [experienceId: string];
  Task: [taskId: string];
  PlanPattern: [patternId: string];
  Action: [taskId: string, iteration: number];
  ToolCall: [taskId: string, iteration: number, index: number];
  ToolPerformance: [toolName: string, context: string | null];
}

export type NodeType = keyof NodeKeys;

type KeyPart = 'string' | 'number' | 'string or null';

const isKeyPart: Record<KeyPart, (part: unknown) => boolean> = {
  string: (part) => typeof part === 'string',
  number: (part) => Number.isSafeInteger(part),
  'string or null': (part) => part === null || typeof part === 'string',
};

/** The JSON type of each key part, to check decoded ids. */
const KEY_PARTS: { [T in NodeType]: ReadonlyArray<KeyPart> } = {
  Session: ['string'],
  Agent: ['string', 'string'],
  Message: ['string', 'string', 'number'],
  Feedback: ['string', 'number'],
  Experience: ['string'],
  Task: ['string'],
  PlanPattern: ['string'],
  Action: ['string', 'number'],
  ToolCall: ['string', 'number', 'number'],
  ToolPerformance: ['string', 'string or null'],
};

/**
 * A decoded global id: the type and its key. An insight's global id is its `id` (insightId) itself: those ids predate
 * Node, clients already hold them, and their fixed shape sets them apart from the base64url ids.
 */
export type NodeKey =
  { [T in NodeType]: { type: T; key: NodeKeys[T] } }[NodeType] | { type: 'AgentInsight'; key: [insightId: string] };

/** Ids longer than this are never ours (the longest keys are bounded far below it). */
const MAX_ID_CHARS = 2_000;

/**
 * The opaque, stable global id of an entity: base64url of `Type:` and its key parts as a JSON array. Clients treat it
 * as opaque; the server decodes it in `node(id)`.
 */
export function globalId<T extends NodeType>(type: T, ...key: NodeKeys[T]): string {
  return Buffer.from(`${type}:${JSON.stringify(key)}`).toString('base64url');
}

/** Decodes a global id; BAD_USER_INPUT naming `field` when it is not one this server made. */
export function parseGlobalId(id: string, field: string): NodeKey {
  const invalid = () => new ValidationError('Not a node id of this API.', field);
  if (isInsightId(id)) return { type: 'AgentInsight', key: [id] };
  if (id.length > MAX_ID_CHARS) throw invalid();
  const text = Buffer.from(id, 'base64url').toString('utf8');
  // Buffer decoding skips characters outside the alphabet: only the canonical encoding is accepted.
  if (Buffer.from(text).toString('base64url') !== id) throw invalid();
  const colon = text.indexOf(':');
  const type = text.slice(0, colon);
  if (colon < 0 || !Object.hasOwn(KEY_PARTS, type)) throw invalid();
  let key: unknown;
  try {
    key = JSON.parse(text.slice(colon + 1));
  } catch {
    throw invalid();
  }
  const parts = KEY_PARTS[type as NodeType];
  if (!Array.isArray(key) || key.length !== parts.length || key.some((part, index) => !isKeyPart[parts[index]](part))) {
    throw invalid();
  }
  return { type, key } as unknown as NodeKey;
}
