import { OPERATOR_NODE_ENV } from './production-env';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, loadConfig, loadDotEnv } from './config';
import { createLogger } from './logger';
import { redact } from './redact';

/**
 * `npm run mcp`: the MCP server over stdio, for clients that spawn a process. It relays each message to the /mcp
 * endpoint of HINDSIGHT_URL (or of a Hindsight it starts in this process on DATA_DIR, loopback only), with
 * HINDSIGHT_API_KEY as the bearer key: the tools, roles and tenants are the HTTP endpoint's, with no second
 * implementation. stdout carries the protocol only; logs go to stderr.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig({ ...process.env, NODE_ENV: OPERATOR_NODE_ENV });
  let base = config.hindsightUrl;
  let stopEmbedded: () => Promise<void> = async () => undefined;
  if (!base) {
    const logger = createLogger(config.logLevel, (line) => process.stderr.write(line + '\n'));
    // Loaded only here: a relay to HINDSIGHT_URL starts without the server's modules.
    const { startHindsight } = await import('./main');
    const running = await startHindsight({ ...config, host: '127.0.0.1', port: 0 }, logger);
    base = running.url;
    stopEmbedded = running.stop;
  }
  const endpoint = new URL('/mcp', base);
  const key = config.hindsightApiKey;
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  const local = new StdioServerTransport();

  remote.onmessage = (message) => {
    // The client transport sends the negotiated version on later requests, as the SDK's Client would tell it.
    const version = 'result' in message ? message.result.protocolVersion : undefined;
    if (typeof version === 'string') remote.setProtocolVersion(version);
    void local.send(message);
  };
  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: unknown) => {
      // A request must get an answer, or the client waits for ever: unreachable server, refused key.
      if (!('method' in message) || !('id' in message)) return;
      const reason = redact(error instanceof Error ? error.message : String(error));
      void local.send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InternalError, message: `Hindsight at ${endpoint.origin}: ${reason}` },
      });
    });
  };
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void remote
      .close()
      .then(() => stopEmbedded())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  local.onclose = stop;
  process.stdin.once('end', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await remote.start();
  await local.start();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message = error instanceof ConfigError ? `Configuration error: ${error.message}` : String(error);
    process.stderr.write(`Hindsight MCP failed to start: ${redact(message)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  });
}
