/**
 * The benchmark's baseline (`node dist/bench/baseline-server.js`, MONGODB_URI required): a minimal `node:http`
 * handler serving the benchmark's plain-read operations with the driver directly: per route the fewest commands
 * reading just the fields the GraphQL operation selects (the same filters, sorts and indexes), then
 * `JSON.stringify`. No GraphQL, no validation, no DataLoader, no repository layer. The GraphQL server's req/s
 * divided by this one's is the GraphQL overhead. GET /metrics answers like the server's.
 */
import 'reflect-metadata';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient, type Document } from 'mongodb';
import { databaseNameFor } from '../src/db/connection';
import { EXPERIENCES_COLLECTION } from '../src/modules/experiences/experience.document';
import { SESSIONS_COLLECTION } from '../src/modules/sessions/session.document';
import { TOOL_PERFORMANCE_COLLECTION, type ToolPerformanceDocument } from '../src/modules/tools/tool.document';
import { toToolPerformance } from '../src/modules/tools/tool.service';

const LAST_MESSAGES = 20;
const SESSIONS_PAGE = 20;
const EXPERIENCES_PAGE = 50;

const MESSAGES = { $ifNull: ['$$a.v.messages', []] };
/** Each agent of a session as `{ agent_id, message_count, ...extra }`, computed in the database. */
const agents = (extra: Document): Document => ({
  $map: {
    input: { $objectToArray: { $ifNull: ['$agents', {}] } },
    as: 'a',
    in: { agent_id: '$$a.k', message_count: { $size: MESSAGES }, ...extra },
  },
});
const MESSAGE_FIELDS = {
  message_id: '$$m.message_id',
  role: '$$m.role',
  content: '$$m.content',
  created_at: '$$m.created_at',
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is required: the baseline reads the database the benchmark seeded.');
  const client = await MongoClient.connect(uri, { ignoreUndefined: true });
  const db = client.db(databaseNameFor(uri, process.env.MONGODB_DB));
  const sessions = db.collection<{ _id: string }>(SESSIONS_COLLECTION);
  const experiences = db.collection(EXPERIENCES_COLLECTION);
  const tools = db.collection<ToolPerformanceDocument>(TOOL_PERFORMANCE_COLLECTION);
  let requests = 0;
  let inFlight = 0;
  let databaseCommands = 0;
  // Counted as the server counts them (src/http/routes.ts): one pool checkout per command.
  client.on('connectionCheckedOut', () => databaseCommands++);

  const routes: Record<string, (query: URLSearchParams) => Promise<unknown>> = {
    async '/session'(query) {
      const [session] = await sessions
        .aggregate([
          { $match: { _id: query.get('id') ?? '' } },
          {
            $project: {
              session_type: 1,
              created_at: 1,
              updated_at: 1,
              metadata: 1,
              agents: agents({
                model: '$$a.v.agent_data.model',
                messages: { $map: { input: { $slice: [MESSAGES, -LAST_MESSAGES] }, as: 'm', in: MESSAGE_FIELDS } },
              }),
            },
          },
        ])
        .toArray();
      return session ?? null;
    },
    async '/sessions'(query) {
      const rows = await sessions
        .aggregate([
          { $match: { updated_at: { $lt: new Date(query.get('before') ?? '') } } },
          { $sort: { updated_at: -1, _id: -1 } },
          { $limit: SESSIONS_PAGE + 1 },
          {
            $project: {
              session_type: 1,
              updated_at: 1,
              agents: agents({
                last_message: {
                  $arrayElemAt: [{ $map: { input: { $slice: [MESSAGES, -1] }, as: 'm', in: MESSAGE_FIELDS } }, -1],
                },
              }),
            },
          },
        ])
        .toArray();
      return { sessions: rows.slice(0, SESSIONS_PAGE), hasNextPage: rows.length > SESSIONS_PAGE };
    },
    async '/experiences'(query) {
      const rows = await experiences
        .find(
          { timestamp: { $lt: new Date(query.get('until') ?? '') } },
          {
            projection: {
              _id: 0,
              experience_id: 1,
              primary_goal_description: 1,
              final_outcome: 1,
              timestamp: 1,
              session_id: 1,
            },
          },
        )
        .sort({ timestamp: -1, experience_id: -1 })
        .limit(EXPERIENCES_PAGE)
        .toArray();
      const ids = [...new Set(rows.map((row) => row.session_id).filter((id): id is string => typeof id === 'string'))];
      const found = await sessions
        .find({ _id: { $in: ids } }, { projection: { session_type: 1, updated_at: 1 } })
        .toArray();
      const byId = new Map(found.map((session) => [session._id, session]));
      return rows.map((row) => ({ ...row, session: byId.get(row.session_id) ?? null }));
    },
    async '/tool'(query) {
      const name = query.get('name') ?? '';
      return toToolPerformance(name, await tools.findOne({ toolName: name }), query.get('context'));
    },
  };

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/metrics') {
      // The server's series that bench/load.ts reads, in the Prometheus text format.
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(
        [
          `hindsight_graphql_requests_total ${requests}`,
          `hindsight_graphql_requests_in_flight ${inFlight}`,
          `hindsight_database_command_duration_seconds_count ${databaseCommands}`,
          `process_resident_memory_bytes ${process.memoryUsage().rss}`,
          '',
        ].join('\n'),
      );
      return;
    }
    const route = routes[url.pathname];
    if (!route) {
      send(res, 404, { error: `No route ${url.pathname}` });
      return;
    }
    requests++;
    inFlight++;
    route(url.searchParams)
      .then(
        (body) => send(res, body === null ? 404 : 200, body),
        (error: unknown) => send(res, 500, { error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => inFlight--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stop = () => {
    server.close();
    server.closeAllConnections();
    client.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`Baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`Baseline failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
