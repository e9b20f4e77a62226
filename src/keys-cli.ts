import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadDotEnv } from './config';
import { silentLogger } from './logger';
import { connectDatabase } from './db/connection';
import { DEFAULT_TENANT } from './auth/caller';
import { checkKeyScope, KeyStore } from './auth/keys';
import { runningServerPid } from './auth/server-pid';

const USAGE = `Usage: npm run keys -- <command>
  create --role reader|writer|admin [--tenant NAME]   prints the new key once
  list                                                ids, roles, tenants, dates (never keys)
  revoke ID                                           revokes at once here, within 10 s in a running server`;

class UsageError extends Error {}

/** `npm run keys`: manages the stored API keys in the database the server uses (MONGODB_URI, else DATA_DIR). */
async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, tenant: { type: 'string', default: DEFAULT_TENANT } },
  });
  const [command, id] = positionals;
  if (!['create', 'list', 'revoke'].includes(command ?? '')) throw new UsageError(USAGE);
  const problem = command === 'create' ? checkKeyScope(values.role, values.tenant) : null;
  if (problem) throw new UsageError(`create: ${problem}`);
  if (command === 'revoke' && !id) throw new UsageError('revoke needs the key id (see list)');
  loadDotEnv();
  const config = loadConfig();
  if (!config.mongodbUri) {
    const pid = runningServerPid(config.dataDir);
    if (pid !== null) {
      throw new UsageError(
        `A Hindsight server (pid ${pid}) is running on DATA_DIR=${config.dataDir}; its embedded engine cannot be ` +
          'opened twice. Manage keys through its admin GraphQL operations (createApiKey, apiKeys, revokeApiKey), ' +
          'or stop it first.',
      );
    }
  }
  const connection = await connectDatabase(config, silentLogger);
  try {
    const keys = new KeyStore(connection.db, []);
    if (command === 'create') {
      const { key, info } = await keys.create(values.role as never, values.tenant!);
      process.stderr.write(`Created key ${info.id} (role ${info.role}, tenant ${info.tenant}); it is shown once:\n`);
      process.stdout.write(`${key}\n`);
    } else if (command === 'list') {
      for (const info of await keys.list()) {
        const state = info.revokedAt ? `revoked ${info.revokedAt.toISOString()}` : 'active';
        process.stdout.write(
          `${info.id}  ${info.role.padEnd(6)}  ${info.tenant}  created ${info.createdAt.toISOString()}  ${state}\n`,
        );
      }
    } else {
      const info = await keys.revoke(id);
      if (!info) throw new UsageError(`No key with id ${id}.`);
      process.stdout.write(`Revoked ${info.id} (role ${info.role}, tenant ${info.tenant}).\n`);
    }
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof UsageError || error instanceof ConfigError;
  process.stderr.write(`${known ? (error as Error).message : error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(known ? 2 : 1);
});
