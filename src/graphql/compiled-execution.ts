import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import {
  execute,
  getNamedType,
  GraphQLError,
  isInputObjectType,
  isNonNullType,
  printSchema,
  typeFromAST,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Logger } from '../logger';

/**
 * graphql-jit's errors leave `extensions` undefined when the thrown error has none, and Apollo's error formatting
 * reads `extensions.code` (it then answered "Internal server error" without calling formatError). Rebuilt as
 * graphql-js builds a resolver's error: the thrown error's extensions (a NotFoundError's code), path and
 * originalError (which the formatter unwraps for the log).
 */
export function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
  // graphql-jit keeps locations without the AST nodes they came from.
  (rebuilt as { locations: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}

/**
 * True when a variable of the operation is (or holds) an input object with a non-null field that has a default
 * (`thinking: String! = ""`). graphql-jit (0.8) reports such a field, when omitted, as "not provided", with a message
 * that prints the whole input (100–140 ms for a 12 MB text), and the request then ran again through graphql-js, which
 * takes the default: such operations go to graphql-js directly.
 */
function takesDefaultedNonNullFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): boolean {
  const operation = document.definitions.find(
    (definition) =>
      definition.kind === 'OperationDefinition' &&
      (operationName === undefined || definition.name?.value === operationName),
  );
  if (operation?.kind !== 'OperationDefinition') return false;
  const seen = new Set<string>();
  const pending: GraphQLInputType[] = [];
  for (const variable of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, variable.type);
    if (type) pending.push(type as GraphQLInputType);
  }
  while (pending.length) {
    const type = getNamedType(pending.pop()!);
    if (!isInputObjectType(type) || seen.has(type.name)) continue;
    seen.add(type.name);
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) && field.defaultValue !== undefined) return true;
      pending.push(field.type);
    }
  }
  return false;
}

/** Apollo's gateway hook: the one documented way to replace graphql-js execution while Apollo keeps the rest. */
type Gateway = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;

/**
 * Compiles the operation `operationName` of a validated document with graphql-jit: a function specialised for its
 * selection set. Null when the document's text is longer than `maxChars` (compiling grows with the document: a 33 KB
 * query held the thread 6–10 s, and every distinct text compiles anew) or, logged, when graphql-jit cannot compile it;
 * the caller then runs it through graphql-js.
 */
export function compileOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  logger: Logger,
  maxChars: number,
): CompiledQuery | null {
  // Apollo and the fast path parse with locations, so the document's end is its text's length.
  if ((document.loc?.end ?? Number.POSITIVE_INFINITY) > maxChars) return null;
  if (takesDefaultedNonNullFields(schema, document, operationName)) return null;
  try {
    // Stacks are never sent (resolver errors keep their own for the log), so none is captured for the wrappers.
    const result = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    if (isCompiledQuery(result)) return result;
    logger.warn('operation not compiled, executed by graphql-js', {
      operationName,
      errors: result.errors?.map((error) => error.message),
    });
  } catch (error) {
    logger.warn('operation not compiled, executed by graphql-js', {
      operationName,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return null;
}

/**
 * Executes operations with graphql-jit instead of graphql-js: each operation is compiled once into a function
 * specialised for its selection set (measured on the shared engine: server CPU per request of a page of 50
 * experiences with their sessions 3.5–4.0 → 2.2–2.9 ms, of a session with its messages 1.0–1.3 → 1.0 ms). Apollo
 * still parses, validates, caches documents, runs plugins and formats errors; this only runs the validated operation.
 * Handed to Apollo as `gateway` with the local schema.
 *
 * Compiled operations are kept per parsed document (Apollo's document store hands the same DocumentNode for a
 * repeated query string), so they are bounded by that store and dropped with its entries. Whatever graphql-jit
 * cannot compile, and requests whose variables do not coerce, run through graphql-js as before.
 */
export function compiledExecution(schema: GraphQLSchema, logger: Logger, maxCompiledChars: number): Gateway {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  const compiledFor = (document: DocumentNode, operationName: string | undefined): CompiledQuery | null => {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let query = byName.get(key);
    if (query === undefined)
      byName.set(key, (query = compileOperation(schema, document, operationName, logger, maxCompiledChars)));
    return query;
  };

  const executor: Executor = async ({ document, operation, request, context }) => {
    const interpret = () =>
      execute({
        schema,
        document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue: context,
      }) as Promise<ExecutionResult> | ExecutionResult;
    // No operation resolved (unknown or missing name): graphql-js words the error Apollo expects; nothing is cached
    // for names that match nothing.
    if (!operation) return interpret();
    const query = compiledFor(document, request.operationName);
    if (!query) return interpret();
    const result = await query.query(undefined, context, request.variables);
    // Only variables that do not coerce leave `data` undefined. graphql-jit reports them without the variable's AST
    // node, from which Apollo derives BAD_USER_INPUT and status 400; graphql-js coerces them again (nothing has run)
    // and reports them as before.
    if (result.data === undefined) return interpret();
    return result.errors ? { data: result.data, errors: result.errors.map(asGraphQLJsError) } : result;
  };

  let onLoad: Parameters<Gateway['onSchemaLoadOrUpdate']>[0] | undefined;
  return {
    onSchemaLoadOrUpdate(callback) {
      onLoad = callback;
      return () => {
        onLoad = undefined;
      };
    },
    async load() {
      // Apollo derives its schema data from this call, which must happen before load resolves.
      onLoad?.({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return { executor };
    },
    async stop() {},
  };
}
