/**
 * The benchmark's baseline (`node dist/bench/baseline-server.js`, MONGODB_URI required): a minimal `node:http`
 * handler serving the same plain reads as the benchmark's GraphQL operations with the driver directly — through the
 * features' repositories, so each route sends the database exactly the reads the data needs and nothing else — and
 * `JSON.stringify` of what they return. No GraphQL, no validation, no DataLoader. The ratio of the GraphQL server's
 * req/s to this one's is the GraphQL overhead. GET /metrics answers like the server's.
 */
import 'reflect-metadata';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { databaseNameFor } from '../src/db/connection';
import { ExperienceRepository } from '../src/modules/experiences/experience.repository';
import { SessionRepository, messagePageKey, type SessionSummary } from '../src/modules/sessions/session.repository';
import type { SortKey } from '../src/modules/shared/connection';
import { ToolPerformanceRepository } from '../src/modules/tools/tool.repository';
import { toToolPerformance } from '../src/modules/tools/tool.service';

const LAST_MESSAGES = 20;
const SESSIONS_PAGE = 20;
const EXPERIENCES_PAGE = 50;
const NEWEST_SESSIONS: SortKey[] = [
  { field: 'updated_at', direction: -1 },
  { field: '_id', direction: -1 },
];
const NEWEST_EXPERIENCES: SortKey[] = [
  { field: 'timestamp', direction: -1 },
  { field: 'experience_id', direction: -1 },
];

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is required: the baseline reads the database the benchmark seeded.');
  const client = await MongoClient.connect(uri, { ignoreUndefined: true });
  const db = client.db(databaseNameFor(uri, process.env.MONGODB_DB));
  const sessions = new SessionRepository(db);
  const experiences = new ExperienceRepository(db);
  const tools = new ToolPerformanceRepository(db);
  let requests = 0;
  let databaseCommands = 0;
  // Counted as the server counts them (src/server.ts): one pool checkout per command.
  client.on('connectionCheckedOut', () => databaseCommands++);

  const routes: Record<string, (query: URLSearchParams) => Promise<unknown>> = {
    async '/session'(query) {
      const id = query.get('id') ?? '';
      const [summary] = await sessions.findSummaries([id]);
      if (!summary) return null;
      const pages = await sessions.messagePages(
        summary.agents.map((agent) => ({ sessionId: id, agentId: agent.agent_id })),
        { role: null, afterId: null, beforeId: null, take: -LAST_MESSAGES },
      );
      return {
        ...summary,
        agents: summary.agents.map((agent) => ({
          ...agent,
          messages: pages.get(messagePageKey({ sessionId: id, agentId: agent.agent_id }))?.page.slice(-LAST_MESSAGES) ?? [],
        })),
      };
    },
    async '/sessions'(query) {
      const rows = await sessions.findSummaryPage({ updated_at: { $lt: new Date(query.get('before') ?? '') } }, null, NEWEST_SESSIONS, SESSIONS_PAGE + 1);
      return { sessions: rows.slice(0, SESSIONS_PAGE), hasNextPage: rows.length > SESSIONS_PAGE };
    },
    async '/experiences'(query) {
      const rows = await experiences.findPage({ timestamp: { $lt: new Date(query.get('until') ?? '') } }, null, NEWEST_EXPERIENCES, EXPERIENCES_PAGE);
      const ids = [...new Set(rows.map((row) => row.session_id).filter((id): id is string => typeof id === 'string'))];
      const byId = new Map<string, SessionSummary>((await sessions.findSummaries(ids)).map((summary) => [summary._id, summary]));
      return rows.map((row) => ({ ...row, session: (row.session_id && byId.get(row.session_id)) ?? null }));
    },
    async '/tool'(query) {
      const name = query.get('name') ?? '';
      return toToolPerformance(name, await tools.findByName(name), query.get('context'));
    },
  };

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/metrics') {
      const memory = process.memoryUsage();
      send(res, 200, { graphqlRequests: requests, databaseCommands, rssBytes: memory.rss, heapUsedBytes: memory.heapUsed });
      return;
    }
    const route = routes[url.pathname];
    if (!route) {
      send(res, 404, { error: `No route ${url.pathname}` });
      return;
    }
    requests++;
    route(url.searchParams).then(
      (body) => send(res, body === null ? 404 : 200, body),
      (error: unknown) => send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`Baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
    client.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`Baseline failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
