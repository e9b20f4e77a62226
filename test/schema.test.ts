import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildAppSchema, renderSchema } from '../src/schema';

describe('schema/schema.graphql', () => {
  it('matches the schema emitted from the type-graphql classes (run `npm run schema:emit` when this fails)', async () => {
    const committed = readFileSync(path.resolve(__dirname, '../schema/schema.graphql'), 'utf8');
    expect(committed).toBe(renderSchema(await buildAppSchema()));
  });
});
