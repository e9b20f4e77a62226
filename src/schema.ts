import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { ServerInfoResolver } from './modules/system/server-info.resolver';

/** Every resolver class of the API; a feature adds its resolvers here. */
export const resolvers = [ServerInfoResolver] as const;

/** Builds the executable schema from the type-graphql classes (class-validator validation on). */
export function buildAppSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [...resolvers],
    validate: { forbidUnknownValues: false },
  });
}

export const SCHEMA_HEADER = '# Generated from the type-graphql classes by `npm run schema:emit`. Do not edit.\n\n';

/** The SDL committed as schema/schema.graphql: sorted, with a generated-file header. */
export function renderSchema(schema: GraphQLSchema): string {
  return SCHEMA_HEADER + printSchema(lexicographicSortSchema(schema)) + '\n';
}
