import { existsSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { ValidationError } from '../../errors';
import { DataDirBackup } from './backup.type';

@Resolver()
export class BackupResolver {
  @Authorized('admin')
  @Mutation(() => DataDirBackup, {
    description:
      "Admin: writes a consistent copy of the embedded engine's data, at one instant, into `directory` (an absolute " +
      'path that does not exist yet, on the server); a server started on it has every write acknowledged before.',
  })
  async backupDataDir(@Arg('directory') directory: string, @Ctx() { deps }: Context): Promise<DataDirBackup> {
    // An external database has its own backup tools; only the embedded engine answers createBackup.
    if (deps.database.kind !== 'EMBEDDED')
      throw new ValidationError('backupDataDir needs the embedded engine; back up an external MongoDB with its tools.');
    if (!isAbsolute(directory)) throw new ValidationError('directory must be an absolute path.', 'directory');
    if (existsSync(directory)) throw new ValidationError('directory already exists; name a new one.', 'directory');
    if (!existsSync(dirname(directory)))
      throw new ValidationError('the parent of directory does not exist on the server.', 'directory');
    const result = await deps.database.client.db('admin').command({ createBackup: 1, backupDir: directory });
    return { directory, files: result.files as string[] };
  }
}
