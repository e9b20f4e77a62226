/**
 * The lifecycle's target as a property: over seeded random records, supersessions, retirements, expiries and
 * forgettings of experiences and insights, no list, search mode, `experience`/`node`, `similar`, MCP tool or
 * subscription returns a memory that is not current unless asked, and the lists return exactly the current ones.
 * LIFECYCLE_SEED=n replays a run (only what falls in the ±300 ms around a TTL expiry may differ).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'graphql';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Caller } from '../../../src/auth/caller';
import { createTestApp, type TestApp } from '../../support/app';
import { mcpClient, toolValue } from '../../support/mcp';
import { seededRandom } from '../../support/vectors';
import { subscribe, waitUntil, wsClient } from '../../support/subscriptions';

const SEED = Number(process.env.LIFECYCLE_SEED ?? 41);
const OPERATIONS = 1000;
const DAY = 86_400_000;
/** Around a TTL expiry the server's clock and the request's duration make either answer right. */
const UNKNOWN_MS = 300;
const WORDS = ['pallet', 'crate', 'dock', 'label', 'scanner', 'forklift', 'invoice', 'gate'];
const USERS = ['user-a', 'user-b', 'user-c'];
const AGENTS = ['agent-1', 'agent-2', 'agent-3'];
const AGENT_TYPES = ['PLANNER', 'EXECUTOR', 'THOUGHT'];
const INSIGHT_TYPES = ['PATTERNS', 'WARNINGS', 'OPTIMIZATIONS'];
const OUTCOMES = ['SUCCESS', 'FAILURE'];
const KEY = 'hs_lifecycle_property_admin';
const ADMIN: Caller = { role: 'admin', tenant: 'alpha', keyId: 'lifecycle-property' };

/** A memory as the model knows it. */
interface Memory {
  kind: 'experience' | 'insight';
  id: string;
  nodeId: string;
  userId: string | null;
  agentId: string | null;
  agentType: string | null;
  /** Recorded outside its validity (validUntil past, validFrom tomorrow): never current. */
  invalid: boolean;
  ended: boolean;
  forgotten: boolean;
  /** When the server set its expiresAt (recordTime + 1 s), as a window of client time; null: no TTL. */
  expiry: { from: number; to: number } | null;
  /** What recording it again sends (the same memory). */
  input: Record<string, unknown>;
}

/** Whether a memory is current during a request sent at `r0` and answered at `r1`: yes, no, or either. */
type Standing = 'yes' | 'no' | 'maybe';

function standing(memory: Memory, r0: number, r1: number): Standing {
  if (memory.forgotten || memory.invalid || memory.ended) return 'no';
  if (!memory.expiry) return 'yes';
  if (r0 > memory.expiry.to + UNKNOWN_MS) return 'no';
  if (r1 < memory.expiry.from - UNKNOWN_MS) return 'yes';
  return 'maybe';
}

/** Whether a memory is still stored (for `includeSuperseded` reads): an expired one may be deleted any time. */
function stored(memory: Memory, r1: number): Standing {
  if (memory.forgotten) return 'no';
  if (memory.expiry && r1 >= memory.expiry.from - UNKNOWN_MS) return 'maybe';
  return 'yes';
}

let app: TestApp;
let url: string;
let dataDir: string;
let mcp: Client;

beforeAll(async () => {
  // Forgetting rewrites the search snapshots: into a directory of this test's own.
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'lifecycle-property-'));
  app = await createTestApp({ config: { dataDir, apiKeys: [`${KEY}:admin:alpha`] } });
  url = await app.server.listen(0, '127.0.0.1');
  mcp = mcpClient();
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
});
afterAll(async () => {
  await mcp.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it(`after ${OPERATIONS} random lifecycle operations no read returns a memory that is not current unless asked`, async () => {
  const random = seededRandom(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const maybe = <T>(chance: number, value: T): T | undefined => (random() < chance ? value : undefined);
  const run = (query: string, variables?: Record<string, unknown>) => app.run(query, variables, { caller: ADMIN });
  const execute = (query: string, variables?: Record<string, unknown>) =>
    app.execute(query, variables, { caller: ADMIN });

  const memories = new Map<string, Memory>();
  const all = (kind: Memory['kind']) => [...memories.values()].filter((memory) => memory.kind === kind);
  const log: string[] = [];
  const note = (line: string) => {
    log.push(line);
    if (log.length > 25) log.shift();
  };
  const counts = { reads: 0, mcpReads: 0, deduplicated: 0, ended: 0, refused: 0, forgotten: 0, expiredSeen: 0 };

  /** Times a request: [sent, answered] in client time. */
  const timed = async <T>(request: () => Promise<T>): Promise<[T, number, number]> => {
    const r0 = Date.now();
    const result = await request();
    return [result, r0, Date.now()];
  };

  /**
   * `returned` must hold every candidate current throughout the request and nothing but candidates that may be
   * current (`limit`: a full page holds as many as it can, any of them).
   */
  const expectCurrent = (
    what: string,
    returned: string[],
    candidates: Memory[],
    r0: number,
    r1: number,
    limit = Infinity,
  ) => {
    const must = new Set(candidates.filter((m) => standing(m, r0, r1) === 'yes').map((m) => m.id));
    const may = new Set(candidates.filter((m) => standing(m, r0, r1) === 'maybe').map((m) => m.id));
    if (candidates.some((m) => m.expiry && !m.ended && !m.forgotten && standing(m, r0, r1) === 'no'))
      counts.expiredSeen++;
    for (const id of returned)
      if (!must.has(id) && !may.has(id)) {
        const memory = memories.get(id);
        throw new Error(`${what} returned ${id}, which is ${memory ? describe(memory) : 'unknown'}`);
      }
    if (new Set(returned).size !== returned.length) throw new Error(`${what} returned an id twice`);
    if (must.size + may.size <= limit) {
      for (const id of must) if (!returned.includes(id)) throw new Error(`${what} left out current ${id}`);
    } else if (returned.length < Math.min(limit, must.size)) {
      throw new Error(`${what} returned ${returned.length}, fewer than the ${Math.min(limit, must.size)} current`);
    }
  };

  /** With includeSuperseded: every stored memory of the candidates, never a forgotten one. */
  const expectStored = (what: string, returned: string[], candidates: Memory[], r1: number, limit = Infinity) => {
    const must = new Set(candidates.filter((m) => stored(m, r1) === 'yes').map((m) => m.id));
    const may = new Set(candidates.filter((m) => stored(m, r1) === 'maybe').map((m) => m.id));
    for (const id of returned)
      if (!must.has(id) && !may.has(id)) {
        const memory = memories.get(id);
        throw new Error(
          `${what} (includeSuperseded) returned ${id}, which is ${memory ? describe(memory) : 'unknown'}`,
        );
      }
    if (must.size + may.size <= limit)
      for (const id of must) if (!returned.includes(id)) throw new Error(`${what} (includeSuperseded) left out ${id}`);
  };

  const describe = (memory: Memory) =>
    JSON.stringify({
      ...memory,
      input: undefined,
      expiry: memory.expiry && { from: new Date(memory.expiry.from), to: new Date(memory.expiry.to) },
      now: new Date(),
    });

  // Every experience the subscription delivers, and those recorded current.
  const ws = wsClient(url, KEY);
  const feed = subscribe<{ experienceRecorded: { experienceId: string } | null }, Record<string, never>>(
    ws,
    parse(`subscription { experienceRecorded { experienceId } }`),
    {},
  );
  await waitUntil(() => app.server.subscriptions.subscribers === 1);
  const recordedCurrent = new Set<string>();
  let serial = 0;

  const recordExperience = async () => {
    const earlier = all('experience').filter((memory) => !memory.forgotten);
    const repeat = earlier.length > 0 && random() < 0.15 ? pick(earlier) : null;
    serial++;
    const kind = random();
    const validity = repeat
      ? {}
      : kind < 0.1
        ? { validFrom: new Date(Date.now() - 2 * DAY), validUntil: new Date(Date.now() - DAY) }
        : kind < 0.2
          ? { validFrom: new Date(Date.now() + DAY) }
          : kind < 0.32
            ? { ttlSeconds: 1 }
            : {};
    const identity = repeat?.input ?? {
      primaryGoalDescription: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} n${serial}`,
      subTaskDescription: pick(WORDS),
      initiatingAgentId: pick(AGENTS),
      finalOutcome: pick(OUTCOMES),
      ...(random() < 0.8 ? { userId: pick(USERS) } : {}),
    };
    // Without an id of the caller's the server may count it into the same memory recorded before (dedupe).
    const chosenId = random() < 0.3 ? `p-${SEED}-${serial}` : undefined;
    const input = { ...identity, ...validity, ...(chosenId ? { experienceId: chosenId } : {}) };
    note(`recordExperience ${JSON.stringify(input)}${repeat ? ` (repeating ${repeat.id})` : ''}`);
    const [data, t0, t1] = await timed(() =>
      run(`mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId id } }`, {
        input,
      }),
    );
    const { experienceId, id } = data.recordExperience;
    note(`  -> ${experienceId}`);
    const known = memories.get(experienceId);
    if (known) {
      // Deduplicated: the answer is the memory recorded, which must be current.
      counts.deduplicated++;
      if (standing(known, t0, t1) === 'no')
        throw new Error(`recordExperience counted into ${experienceId}, which is ${describe(known)}`);
      return;
    }
    if (chosenId) expect(experienceId).toBe(chosenId);
    memories.set(experienceId, {
      kind: 'experience',
      id: experienceId,
      nodeId: id,
      userId: (identity.userId as string | undefined) ?? null,
      agentId: identity.initiatingAgentId as string,
      agentType: null,
      invalid: 'validUntil' in validity || 'validFrom' in validity,
      ended: false,
      forgotten: false,
      expiry: 'ttlSeconds' in validity ? { from: t0 + 1000, to: t1 + 1000 } : null,
      input: identity,
    });
    if (!('validUntil' in validity || 'validFrom' in validity)) recordedCurrent.add(experienceId);
  };

  const recordInsight = async () => {
    // The same text of one agent type, type and scope is one insight: repeat only those without an expiry (a repeat
    // keeps the stored validity and expiry, unless the insight was forgotten: then it is new).
    const earlier = all('insight').filter((memory) => !memory.expiry);
    const repeat = earlier.length > 0 && random() < 0.15 ? pick(earlier) : null;
    const kind = random();
    const validity = repeat
      ? {}
      : kind < 0.1
        ? { validFrom: new Date(Date.now() - 2 * DAY), validUntil: new Date(Date.now() - DAY) }
        : kind < 0.2
          ? { validFrom: new Date(Date.now() + DAY) }
          : kind < 0.32
            ? { ttlSeconds: 1 }
            : {};
    const identity = repeat?.input ?? {
      agentType: pick(AGENT_TYPES),
      type: pick(INSIGHT_TYPES),
      insight: `${pick(WORDS)} before ${pick(WORDS)}, lesson ${++serial}`,
      ...(random() < 0.7 ? { userId: pick(USERS) } : {}),
      ...(random() < 0.7 ? { agentId: pick(AGENTS) } : {}),
    };
    const input = { ...identity, ...validity };
    note(`recordInsight ${JSON.stringify(input)}${repeat ? ` (repeating ${repeat.id})` : ''}`);
    const [data, t0, t1] = await timed(() =>
      run(`mutation($input: RecordInsightInput!) { recordInsight(input: $input) { id } }`, { input }),
    );
    const id: string = data.recordInsight.id;
    note(`  -> ${id}`);
    const known = memories.get(id);
    if (known && !known.forgotten) {
      expect(known).toBe(repeat);
      counts.deduplicated++;
      return;
    }
    memories.set(id, {
      kind: 'insight',
      id,
      nodeId: id,
      userId: (identity.userId as string | undefined) ?? null,
      agentId: (identity.agentId as string | undefined) ?? null,
      agentType: identity.agentType as string,
      invalid: 'validUntil' in validity || 'validFrom' in validity,
      ended: false,
      forgotten: false,
      expiry: 'ttlSeconds' in validity ? { from: t0 + 1000, to: t1 + 1000 } : null,
      input: identity,
    });
  };

  /**
   * Ends `memory` (`also`: its replacement must be current too): it must succeed when both are current throughout
   * the request, be refused when either is not, and may do either in between.
   */
  const end = async (what: string, request: () => Promise<any>, memory: Memory, also?: Memory) => {
    const [result, t0, t1] = await timed(request);
    note(`  -> ${result.errors ? result.errors[0].extensions?.code : 'ended'}`);
    const standings = [memory, ...(also ? [also] : [])].map((m) => standing(m, t0, t1));
    const allowed: Standing =
      memory === also || standings.includes('no') ? 'no' : standings.every((s) => s === 'yes') ? 'yes' : 'maybe';
    if (result.errors) {
      if (allowed === 'yes') throw new Error(`${what} was refused: ${JSON.stringify(result.errors)}`);
      expect(result.errors[0].extensions?.code).toMatch(/^(BAD_USER_INPUT|CONFLICT|NOT_FOUND)$/);
      counts.refused++;
    } else {
      if (allowed === 'no') throw new Error(`${what} succeeded: ${describe(memory)}, ${also && describe(also)}`);
      memory.ended = true;
      counts.ended++;
    }
  };

  /** Mostly one not forgotten (forgotten ones are only NOT_FOUND). */
  const pickMostlyKept = (candidates: Memory[]) => {
    const kept = candidates.filter((memory) => !memory.forgotten);
    return pick(kept.length && random() < 0.9 ? kept : candidates);
  };

  const supersede = async () => {
    const kind = random() < 0.5 ? 'experience' : 'insight';
    const candidates = all(kind);
    if (candidates.length < 2) return;
    const old = pickMostlyKept(candidates);
    const by = pickMostlyKept(candidates);
    const field = kind === 'experience' ? 'supersedeExperience' : 'supersedeInsight';
    note(`${field} ${old.id} by ${by.id}`);
    await end(
      `${field} ${old.id} by ${by.id}`,
      () =>
        execute(`mutation($id: ID!, $by: ID!) { ${field}(id: $id, by: $by, reason: "property") { __typename } }`, {
          id: old.id,
          by: by.id,
        }),
      old,
      by,
    );
  };

  const retire = async () => {
    const memory = pickMostlyKept([...memories.values()]);
    const field = memory.kind === 'experience' ? 'retireExperience' : 'retireInsight';
    note(`${field} ${memory.id}`);
    await end(
      `${field} ${memory.id}`,
      () => execute(`mutation($id: ID!) { ${field}(id: $id, reason: "property") { __typename } }`, { id: memory.id }),
      memory,
    );
  };

  const forget = async () => {
    const scope = random() < 0.75 ? { userId: pick(USERS) } : { agentId: pick(AGENTS) };
    note(`forget ${JSON.stringify(scope)}`);
    await run(`mutation($scope: ForgetScope!) { forget(scope: $scope) { scope } }`, { scope });
    for (const memory of memories.values())
      if ('userId' in scope ? memory.userId === scope.userId : memory.agentId === scope.agentId)
        memory.forgotten = true;
    counts.forgotten++;
  };

  const listExperiences = async () => {
    const userId = maybe(0.5, pick(USERS));
    const includeSuperseded = random() < 0.3;
    note(`experiences ${JSON.stringify({ userId, includeSuperseded })}`);
    const listed: string[] = [];
    const r0 = Date.now();
    for (let after: string | null = null; ;) {
      const data = await run(
        `query($after: String, $filter: ExperienceFilter, $all: Boolean!) {
          experiences(first: 200, after: $after, filter: $filter, includeSuperseded: $all) {
            edges { node { experienceId } } pageInfo { hasNextPage endCursor }
          }
        }`,
        { after, filter: userId ? { userId } : null, all: includeSuperseded },
      );
      listed.push(...data.experiences.edges.map((edge: any) => edge.node.experienceId));
      if (!data.experiences.pageInfo.hasNextPage) break;
      after = data.experiences.pageInfo.endCursor;
    }
    const candidates = all('experience').filter((memory) => !userId || memory.userId === userId);
    if (includeSuperseded) expectStored('experiences', listed, candidates, Date.now());
    else expectCurrent(`experiences(userId: ${userId})`, listed, candidates, r0, Date.now());
  };

  const insightsArgs = () => ({
    agentType: pick(AGENT_TYPES),
    userId: maybe(0.4, pick(USERS)),
    agentId: maybe(0.3, pick(AGENTS)),
  });
  const insightCandidates = (args: ReturnType<typeof insightsArgs>) =>
    all('insight').filter(
      (memory) =>
        memory.agentType === args.agentType &&
        (!args.userId || memory.userId === args.userId) &&
        (!args.agentId || memory.agentId === args.agentId),
    );

  const listInsights = async () => {
    const args = insightsArgs();
    const includeSuperseded = random() < 0.3;
    note(`agentInsights ${JSON.stringify({ ...args, includeSuperseded })}`);
    const [data, r0, r1] = await timed(() =>
      run(
        `query($agentType: AgentType!, $userId: String, $agentId: String, $all: Boolean!) {
          agentInsights(agentType: $agentType, userId: $userId, agentId: $agentId, includeSuperseded: $all, limit: 100) {
            insights { id }
          }
        }`,
        { ...args, all: includeSuperseded },
      ),
    );
    const listed = data.agentInsights.insights.map((insight: any) => insight.id);
    if (includeSuperseded) expectStored('agentInsights', listed, insightCandidates(args), r1, 100);
    else expectCurrent(`agentInsights(${JSON.stringify(args)})`, listed, insightCandidates(args), r0, r1, 100);
  };

  const search = async () => {
    const mode = pick(['VECTOR', 'KEYWORD', 'HYBRID']);
    const limit = 1 + Math.floor(random() * 10);
    const userId = maybe(0.4, pick(USERS));
    const query = `${pick(WORDS)} ${pick(WORDS)}`;
    const includeSuperseded = random() < 0.15;
    note(`searchExperiences ${JSON.stringify({ mode, limit, userId, query, includeSuperseded })}`);
    const [data, r0, r1] = await timed(() =>
      run(
        `query($query: String!, $mode: SearchMode!, $limit: Int!, $filter: ExperienceFilter, $all: Boolean!) {
          searchExperiences(query: $query, mode: $mode, limit: $limit, filter: $filter, includeSuperseded: $all) {
            experience { experienceId userId }
          }
        }`,
        { query, mode, limit, filter: userId ? { userId } : null, all: includeSuperseded },
      ),
    );
    const hits = data.searchExperiences.map((hit: any) => hit.experience);
    if (includeSuperseded) {
      // Ended ones too, never a forgotten one.
      for (const hit of hits) {
        const memory = memories.get(hit.experienceId);
        if (!memory || stored(memory, r1) === 'no')
          throw new Error(
            `${mode} search (includeSuperseded) returned ${hit.experienceId}: ${memory && describe(memory)}`,
          );
        if (userId) expect(hit.userId).toBe(userId);
      }
      return;
    }
    checkHits(`${mode} search`, hits, r0, r1, userId);
    if (mode === 'VECTOR') {
      // The filters come before the limit: a vector page is full when enough current memories exist (distinct ones:
      // a page never shows two records of the same memory).
      const candidates = all('experience').filter((memory) => !userId || memory.userId === userId);
      const surely = candidates.filter((memory) => standing(memory, r0, r1) === 'yes');
      const distinct = new Set(surely.map((memory) => JSON.stringify(memory.input))).size;
      const possible = candidates.filter((memory) => standing(memory, r0, r1) !== 'no').length;
      expect(hits.length).toBeGreaterThanOrEqual(Math.min(limit, distinct));
      expect(hits.length).toBeLessThanOrEqual(Math.min(limit, possible));
    }
  };

  const checkHits = (
    what: string,
    hits: Array<{ experienceId: string; userId: string | null }>,
    r0: number,
    r1: number,
    userId?: string,
  ) => {
    for (const hit of hits) {
      const memory = memories.get(hit.experienceId);
      if (!memory || standing(memory, r0, r1) === 'no')
        throw new Error(`${what} returned ${hit.experienceId}, which is ${memory ? describe(memory) : 'unknown'}`);
      if (userId) expect(hit.userId).toBe(userId);
    }
  };

  const readExperience = async () => {
    const memory = pickMostlyKept(all('experience'));
    note(`experience/node ${memory.id}`);
    const [data, r0, r1] = await timed(() =>
      run(
        `query($id: ID!, $node: ID!) {
          experience(id: $id) { experienceId similar(limit: 5) { experience { experienceId userId } } }
          kept: experience(id: $id, includeSuperseded: true) { experienceId }
          node(id: $node) { id }
          keptNode: node(id: $node, includeSuperseded: true) { id }
        }`,
        { id: memory.id, node: memory.nodeId },
      ),
    );
    expectOne('experience', data.experience?.experienceId, memory, r0, r1);
    expectOne('node', data.node?.id, memory, r0, r1);
    expectKept('experience', data.kept?.experienceId, memory, r1);
    expectKept('node', data.keptNode?.id, memory, r1);
    if (data.experience)
      checkHits(
        `similar of ${memory.id}`,
        data.experience.similar.map((hit: any) => hit.experience),
        r0,
        r1,
      );
  };

  const readInsightNode = async () => {
    const memory = pickMostlyKept(all('insight'));
    note(`node ${memory.id}`);
    const [data, r0, r1] = await timed(() =>
      run(
        `query($id: ID!) {
          node(id: $id) { id }
          keptNode: node(id: $id, includeSuperseded: true) { id }
        }`,
        { id: memory.id },
      ),
    );
    expectOne('node', data.node?.id, memory, r0, r1);
    expectKept('node', data.keptNode?.id, memory, r1);
  };

  /** A read by id: the memory when current, null when not. */
  const expectOne = (what: string, found: string | undefined, memory: Memory, r0: number, r1: number) => {
    const now = standing(memory, r0, r1);
    if (found !== undefined) expect(found).toBe(what === 'node' ? memory.nodeId : memory.id);
    if (now === 'yes' && found === undefined)
      throw new Error(`${what}(${memory.id}) is null for current ${describe(memory)}`);
    if (now === 'no' && found !== undefined) throw new Error(`${what}(${memory.id}) returned ${describe(memory)}`);
    if (memory.expiry && now === 'no') counts.expiredSeen++;
  };

  /** A read by id with includeSuperseded: the memory unless forgotten (or deleted once expired). */
  const expectKept = (what: string, found: string | undefined, memory: Memory, r1: number) => {
    const kept = stored(memory, r1);
    if (kept === 'yes' && found === undefined) throw new Error(`${what}(${memory.id}, includeSuperseded) is null`);
    if (kept === 'no' && found !== undefined)
      throw new Error(`${what}(${memory.id}, includeSuperseded) returned forgotten ${describe(memory)}`);
  };

  const readThroughMcp = async () => {
    counts.mcpReads++;
    const mode = pick(['VECTOR', 'KEYWORD', 'HYBRID']);
    const userId = maybe(0.5, pick(USERS));
    const query = `${pick(WORDS)} ${pick(WORDS)}`;
    note(`MCP search_experiences ${JSON.stringify({ mode, userId, query })}`);
    const [hits, r0, r1] = await timed(() =>
      toolValue(mcp, 'search_experiences', { query, mode, limit: 10, ...(userId ? { filter: { userId } } : {}) }),
    );
    checkHits(
      `MCP search_experiences (${mode})`,
      hits.map((hit: any) => hit.experience),
      r0,
      r1,
      userId,
    );
    const args = insightsArgs();
    note(`MCP agent_insights ${JSON.stringify(args)}`);
    const [insights, i0, i1] = await timed(() =>
      toolValue(mcp, 'agent_insights', {
        agentType: args.agentType,
        limit: 100,
        ...(args.userId ? { userId: args.userId } : {}),
        ...(args.agentId ? { agentId: args.agentId } : {}),
      }),
    );
    expectCurrent(
      `MCP agent_insights(${JSON.stringify(args)})`,
      insights.insights.map((insight: any) => insight.id),
      insightCandidates(args),
      i0,
      i1,
      100,
    );
  };

  const read = async () => {
    counts.reads++;
    const roll = random();
    if (roll < 0.2) await listExperiences();
    else if (roll < 0.35) await listInsights();
    else if (roll < 0.7) await search();
    else if (roll < 0.85) {
      if (all('experience').length) await readExperience();
    } else if (all('insight').length) await readInsightNode();
    if (counts.reads % 25 === 0) await readThroughMcp();
  };

  let step = 0;
  try {
    for (; step < OPERATIONS; step++) {
      const roll = random();
      if (roll < 0.2 || memories.size < 4) await recordExperience();
      else if (roll < 0.36) await recordInsight();
      else if (roll < 0.48) await supersede();
      else if (roll < 0.56) await retire();
      else if (roll < 0.566) await forget();
      else await read();
    }

    // The subscription: a last current experience shows it has caught up (its feed is in order).
    const last = await run(
      `mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`,
      {
        input: {
          experienceId: 'p-last',
          primaryGoalDescription: 'close the dock',
          subTaskDescription: 'close',
          initiatingAgentId: 'agent-last',
          finalOutcome: 'SUCCESS',
        },
      },
    );
    recordedCurrent.add(last.recordExperience.experienceId);
    const delivered = new Set<string>();
    const deadline = Date.now() + 10_000;
    while (!delivered.has('p-last')) {
      const result = await feed.next(Math.max(1, deadline - Date.now()));
      if (result.data?.experienceRecorded) delivered.add(result.data.experienceRecorded.experienceId);
    }
    for (const id of delivered)
      if (!recordedCurrent.has(id)) throw new Error(`experienceRecorded delivered ${id}, recorded not current`);
    // Every one recorded current and current ever since was current when the feed got to it.
    const now = Date.now();
    for (const id of recordedCurrent) {
      const memory = memories.get(id);
      if (memory && standing(memory, now, now) === 'yes' && !memory.expiry && !delivered.has(id))
        throw new Error(`experienceRecorded did not deliver current ${id}`);
    }
  } catch (error) {
    throw new Error(
      `LIFECYCLE_SEED=${SEED}, operation ${step}: ${(error as Error).message}\nlast operations:\n${log.join('\n')}`,
    );
  } finally {
    feed.unsubscribe();
    await ws.dispose();
  }

  // The run went through every state it claims to cover.
  expect(counts.reads).toBeGreaterThan(350);
  expect(counts.mcpReads).toBeGreaterThanOrEqual(14);
  expect(counts.ended).toBeGreaterThan(40);
  expect(counts.refused).toBeGreaterThan(30);
  expect(counts.forgotten).toBeGreaterThan(0);
  // Insights recorded again (and experiences, once recording counts occurrences).
  expect(counts.deduplicated).toBeGreaterThan(0);
  expect(counts.expiredSeen).toBeGreaterThan(3);
  expect(all('insight').filter((memory) => memory.ended).length).toBeGreaterThan(5);
}, 120_000);
