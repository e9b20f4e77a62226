import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildAppSchema, renderSchema } from '../src/schema';

/** Writes schema/schema.graphql from the type-graphql classes (`npm run schema:emit`). */
async function emitSchema(): Promise<void> {
  const file = path.resolve(__dirname, '../../schema/schema.graphql');
  writeFileSync(file, renderSchema(await buildAppSchema()));
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}

emitSchema().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
