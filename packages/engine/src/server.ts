import { chmod, rm } from 'node:fs/promises';
import net from 'node:net';
import { ConnectionAuth, type ScramCredential } from './auth';
import { CloseConnection, Engine, OP_QUERY_COMMANDS, opQueryHello } from './commands';
import type { EngineLog } from './durability';
import { CommandError, ErrorCode } from './errors';
import {
  FrameReader,
  OpCode,
  ProtocolError,
  RefusedMessage,
  encodeMsgReply,
  encodeOpReply,
  parseFrame,
  type Request,
} from './wire';

/** A listening wire-protocol server over an Engine. */
export interface WireServer {
  /** The TCP listener's address, when one was asked for. */
  tcp?: { host: string; port: number };
  /** The Unix domain socket it listens on, when one was asked for and could be created. */
  socketPath?: string;
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

/** Where to listen and the limits every connection is held to (see EngineOptions). */
export interface ListenOptions {
  tcp?: { host: string; port: number };
  socketPath?: string;
  frameTimeoutMs: number;
  maxConnections: number;
  idleTimeoutMs: number;
  /** When set, a connection must authenticate with SCRAM-SHA-256 as this user before anything but the handshake. */
  credential?: ScramCredential;
}

/**
 * Serves the MongoDB wire protocol on TCP and/or the Unix domain socket `socketPath` (a stale socket file there is
 * replaced; the socket is made 0600). Each connection handles its messages in order; a malformed or oversized
 * message, a frame not completed within `frameTimeoutMs`, or `idleTimeoutMs` without a message closes that
 * connection only; past `maxConnections` open ones, a new connection is closed at once. Nothing thrown escapes a
 * socket handler.
 */
export async function listen(engine: Engine, options: ListenOptions, log: EngineLog): Promise<WireServer> {
  const sockets = new Set<net.Socket>();
  let nextConnectionId = 1;

  const serve = (socket: net.Socket): void => {
    if (sockets.size >= options.maxConnections) {
      log(`embedded engine: refusing a connection: ${sockets.size} open, the limit is ${options.maxConnections}`);
      socket.destroy();
      return;
    }
    const connectionId = nextConnectionId++;
    sockets.add(socket);
    socket.setNoDelay(true);
    const reader = new FrameReader();
    const auth = new ConnectionAuth(options.credential);
    let queue = Promise.resolve();
    let inFlight = 0;
    // Started by a frame's first bytes, not moved by later ones: a client trickling a frame must still finish it.
    let frameDeadline: NodeJS.Timeout | undefined;

    const drop = (reason: string, level: 'info' | 'error' = 'info'): void => {
      log(`embedded engine: closing connection ${connectionId}: ${reason}`, level);
      socket.destroy();
    };

    // A command in flight (a change stream's awaiting getMore) is not idleness; its reply restarts the clock.
    socket.setTimeout(options.idleTimeoutMs, () => {
      if (inFlight === 0) drop(`idle for ${options.idleTimeoutMs} ms`);
    });

    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = reader.push(chunk);
      } catch (error) {
        drop((error as Error).message);
        return;
      }
      if (reader.pending && !frameDeadline) {
        frameDeadline = setTimeout(
          () => drop(`a message was not completed within ${options.frameTimeoutMs} ms`),
          options.frameTimeoutMs,
        );
      } else if (!reader.pending && frameDeadline) {
        clearTimeout(frameDeadline);
        frameDeadline = undefined;
      }
      for (const frame of frames) {
        inFlight++;
        queue = queue.then(async () => {
          try {
            if (socket.destroyed) return;
            const reply = await respond(engine, parseFrame(frame), connectionId, auth);
            if (reply && !socket.destroyed) {
              socket.cork();
              for (const part of reply) socket.write(part);
              socket.uncork();
            }
          } catch (error) {
            if (error instanceof RefusedMessage) {
              if (error.moreToCome || socket.destroyed) return;
              const encode = error.opCode === OpCode.QUERY ? encodeOpReply : encodeMsgReply;
              socket.cork();
              for (const part of encode(error.requestId, error.reply)) socket.write(part);
              socket.uncork();
            } else if (error instanceof ProtocolError || error instanceof CloseConnection) drop(error.message);
            else drop(`internal error: ${(error as Error).stack ?? String(error)}`, 'error');
          } finally {
            inFlight--;
          }
        });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(frameDeadline);
      sockets.delete(socket);
    });
  };

  const start = (server: net.Server, bind: (ready: () => void) => void): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      bind(() => {
        server.off('error', reject);
        server.on('error', (error) => log(`embedded engine: server error: ${error.message}`, 'error'));
        resolve();
      });
    });
  const stop = (server: net.Server): Promise<void> => new Promise((done) => server.close(() => done()));

  let tcp: net.Server | undefined;
  if (options.tcp) {
    const { host, port } = options.tcp;
    tcp = net.createServer(serve);
    await start(tcp, (ready) => tcp!.listen(port, host, ready));
  }
  let local: net.Server | undefined;
  const { socketPath } = options;
  if (socketPath) {
    try {
      await rm(socketPath, { force: true });
      local = net.createServer(serve);
      await start(local, (ready) => local!.listen(socketPath, ready));
      await chmod(socketPath, 0o600);
    } catch (error) {
      if (local?.listening) await stop(local);
      local = undefined;
      if (!tcp) throw error;
      log(`embedded engine: not listening on ${socketPath} (${(error as Error).message}); clients use TCP`);
    }
  }
  return {
    tcp: tcp && options.tcp ? { host: options.tcp.host, port: (tcp.address() as net.AddressInfo).port } : undefined,
    socketPath: local ? socketPath : undefined,
    close: async () => {
      const closed = Promise.all([tcp ? stop(tcp) : undefined, local ? stop(local) : undefined]);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

async function respond(
  engine: Engine,
  request: Request,
  connectionId: number,
  auth: ConnectionAuth,
): Promise<Uint8Array[] | undefined> {
  if (request.kind === 'query') {
    const name = Object.keys(request.query)[0] ?? '';
    if (request.collection.endsWith('.$cmd') && OP_QUERY_COMMANDS.has(name)) {
      return encodeOpReply(request.requestId, {
        ...opQueryHello(name, connectionId),
        ...auth.helloFields(request.query),
      });
    }
    const error = new CommandError(
      ErrorCode.UnsupportedOpQueryCommand,
      `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
    );
    return encodeOpReply(request.requestId, error.toReply());
  }
  const name = Object.keys(request.command)[0] ?? '';
  const db = typeof request.command.$db === 'string' ? request.command.$db : '';
  let reply = auth.refusal(name) ?? auth.answer(name, request.command, db);
  if (!reply) {
    reply = await engine.execute(request.command, connectionId);
    if (OP_QUERY_COMMANDS.has(name) && reply.ok === 1) reply = { ...reply, ...auth.helloFields(request.command) };
  }
  if (request.moreToCome) return undefined;
  try {
    return encodeMsgReply(request.requestId, reply);
  } catch (error) {
    const failure = new CommandError(
      ErrorCode.BSONObjectTooLarge,
      `reply could not be encoded: ${(error as Error).message}`,
    );
    return encodeMsgReply(request.requestId, failure.toReply());
  }
}
