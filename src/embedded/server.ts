import net from 'node:net';
import { Engine, OP_QUERY_COMMANDS, opQueryHello } from './commands';
import { CommandError, ErrorCode } from './errors';
import { FrameReader, ProtocolError, encodeMsgReply, encodeOpReply, parseFrame, type Request } from './wire';

/** A listening wire-protocol server over an Engine. */
export interface WireServer {
  host: string;
  port: number;
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

/**
 * Serves the MongoDB wire protocol on `host:port`. Each connection handles its messages in order; a
 * malformed or oversized message closes that connection only, and nothing thrown escapes a socket handler.
 */
export function listen(engine: Engine, host: string, port: number, log: (line: string) => void): Promise<WireServer> {
  const sockets = new Set<net.Socket>();
  let nextConnectionId = 1;

  const server = net.createServer((socket) => {
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
            drop(error instanceof ProtocolError ? error.message : `internal error: ${(error as Error).stack ?? String(error)}`);
          }
        });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (error) => log(`embedded engine: server error: ${error.message}`));
      const address = server.address() as net.AddressInfo;
      resolve({
        host,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
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
    const failure = new CommandError(ErrorCode.BSONObjectTooLarge, `reply could not be encoded: ${(error as Error).message}`);
    return encodeMsgReply(request.requestId, failure.toReply());
  }
}
