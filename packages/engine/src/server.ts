import { rm } from 'node:fs/promises';
import net from 'node:net';
import { CloseConnection, Engine, OP_QUERY_COMMANDS, opQueryHello } from './commands';
import { CommandError, ErrorCode } from './errors';
import { FrameReader, ProtocolError, encodeMsgReply, encodeOpReply, parseFrame, type Request } from './wire';

/** A listening wire-protocol server over an Engine. */
export interface WireServer {
  host: string;
  port: number;
  /** The Unix domain socket it also listens on, when one was asked for and could be created. */
  socketPath?: string;
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

/**
 * Serves the MongoDB wire protocol on `host:port`, and on the Unix domain socket `socketPath` when given (a
 * round trip through it costs less CPU than TCP loopback; a stale socket file there is replaced). Each
 * connection handles its messages in order; a malformed or oversized message closes that connection only,
 * and nothing thrown escapes a socket handler.
 */
export async function listen(
  engine: Engine,
  host: string,
  port: number,
  log: (line: string) => void,
  socketPath?: string,
): Promise<WireServer> {
  const sockets = new Set<net.Socket>();
  let nextConnectionId = 1;

  const serve = (socket: net.Socket): void => {
    const connectionId = nextConnectionId++;
    sockets.add(socket);
    socket.setNoDelay(true);
    const reader = new FrameReader();
    let queue = Promise.resolve();

    const drop = (reason: string): void => {
      log(`embedded engine: closing connection ${connectionId}: ${reason}`);
      socket.destroy();
    };

    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = reader.push(chunk);
      } catch (error) {
        drop((error as Error).message);
        return;
      }
      for (const frame of frames) {
        queue = queue.then(async () => {
          if (socket.destroyed) return;
          try {
            const reply = await respond(engine, parseFrame(frame), connectionId);
            if (reply && !socket.destroyed) {
              socket.cork();
              for (const part of reply) socket.write(part);
              socket.uncork();
            }
          } catch (error) {
            drop(
              error instanceof ProtocolError || error instanceof CloseConnection
                ? error.message
                : `internal error: ${(error as Error).stack ?? String(error)}`,
            );
          }
        });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };

  const start = (server: net.Server, bind: (ready: () => void) => void): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      bind(() => {
        server.off('error', reject);
        server.on('error', (error) => log(`embedded engine: server error: ${error.message}`));
        resolve();
      });
    });
  const stop = (server: net.Server): Promise<void> => new Promise((done) => server.close(() => done()));

  const tcp = net.createServer(serve);
  await start(tcp, (ready) => tcp.listen(port, host, ready));
  let local: net.Server | undefined;
  if (socketPath) {
    try {
      await rm(socketPath, { force: true });
      local = net.createServer(serve);
      await start(local, (ready) => local!.listen(socketPath, ready));
    } catch (error) {
      log(`embedded engine: not listening on ${socketPath} (${(error as Error).message}); clients use TCP`);
      local = undefined;
    }
  }
  return {
    host,
    port: (tcp.address() as net.AddressInfo).port,
    socketPath: local ? socketPath : undefined,
    close: async () => {
      const closed = Promise.all([stop(tcp), local ? stop(local) : undefined]);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

async function respond(engine: Engine, request: Request, connectionId: number): Promise<Uint8Array[] | undefined> {
  if (request.kind === 'query') {
    const name = Object.keys(request.query)[0] ?? '';
    if (request.collection.endsWith('.$cmd') && OP_QUERY_COMMANDS.has(name)) {
      return encodeOpReply(request.requestId, opQueryHello(name, connectionId));
    }
    const error = new CommandError(
      ErrorCode.UnsupportedOpQueryCommand,
      `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
    );
    return encodeOpReply(request.requestId, error.toReply());
  }
  const reply = await engine.execute(request.command, connectionId);
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
