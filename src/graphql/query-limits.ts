import {
  getNamedType,
  isCompositeType,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { QueryLimitError } from '../errors';

/** The bounds every operation is checked against before it runs (config.ts: MAX_QUERY_*). */
export interface QueryLimits {
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

/**
 * What one field costs beyond 1: `maxSize` bounds its size argument (`first`, `last` or `limit`) when the value is a
 * variable (unknown when validating); `search` marks a field that runs a vector/keyword search.
 */
export interface FieldCost {
  maxSize?: number;
  search?: boolean;
}

/** Declares a field's {@link FieldCost} on its resolver (read back from the schema field's extensions). */
export function Cost(cost: FieldCost): MethodDecorator & PropertyDecorator {
  return Extensions({ cost });
}

/** The size argument of a sized field without a declared maxSize (connections: `first`/`last` up to 500). */
const DEFAULT_MAX_SIZE = 500;
const SIZE_ARGUMENTS = ['first', 'last', 'limit'];
/** What a search costs before its hits: it reads candidates, embeds the text and fuses scores. */
export const SEARCH_COST = 10;

/**
 * The measures of one operation, fragments expanded. A field costs 1, plus its children times its size (its `first`,
 * `last` or `limit`: the literal, else the maximum for a variable, else the argument's default); a search costs
 * SEARCH_COST plus its size. Introspection fields (`__schema`, `__type`) and everything below them do not count towards
 * depth: they read only the schema, and clients' introspection queries nest `ofType` deeper than any read. Walking stops once `stopAfter` fields were visited (a fragment spread repeatedly can expand
 * exponentially); `cost` is then a lower bound, above the limit.
 */
export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  stopAfter = Number.POSITIVE_INFINITY,
): { depth: number; aliases: number; cost: number } {
  let aliases = 0;
  let depth = 0;
  let visited = 0;
  const expanding = new Set<string>();

  const selectionCost = (
    selectionSet: SelectionSetNode,
    type: GraphQLCompositeType | undefined,
    level: number,
    introspecting = false,
  ): number => {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (visited > stopAfter) return cost;
      if (selection.kind === Kind.FIELD) {
        visited++;
        if (selection.alias) aliases++;
        const name = selection.name.value;
        const introspection = introspecting || name.startsWith('__');
        const fieldLevel = introspection ? level : level + 1;
        depth = Math.max(depth, fieldLevel);
        const field = type && 'getFields' in type ? type.getFields()[name] : undefined;
        const size = field ? sizeOf(field, selection.arguments ?? []) : 1;
        const fieldCost = field?.extensions.cost as FieldCost | undefined;
        const own = fieldCost?.search ? SEARCH_COST + size : 1;
        let children = 0;
        if (selection.selectionSet) {
          const named = field ? getNamedType(field.type) : undefined;
          const childType = isCompositeType(named) ? named : undefined;
          children = selectionCost(selection.selectionSet, childType, fieldLevel, introspection);
        }
        cost += own + size * children;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition && schema.getType(selection.typeCondition.name.value);
        const inner = condition && isCompositeType(condition) ? condition : type;
        cost += selectionCost(selection.selectionSet, inner, level, introspecting);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // A cycle is NoFragmentCyclesRule's to report; here it only must not recurse forever.
        if (!fragment || expanding.has(name)) continue;
        expanding.add(name);
        const condition = schema.getType(fragment.typeCondition.name.value);
        cost += selectionCost(
          fragment.selectionSet,
          isCompositeType(condition) ? condition : type,
          level,
          introspecting,
        );
        expanding.delete(name);
      }
    }
    return cost;
  };

  const root = schema.getRootType(operation.operation) ?? undefined;
  const cost = selectionCost(operation.selectionSet, root, 0);
  return { depth, aliases, cost };
}

/** The list size a sized field may return: literal argument, else maxSize for a variable, else the default. */
function sizeOf(
  field: GraphQLField<unknown, unknown>,
  args: readonly { name: { value: string }; value: ValueNode }[],
): number {
  const sized = field.args.find((arg) => SIZE_ARGUMENTS.includes(arg.name));
  if (!sized) return 1;
  const max = (field.extensions.cost as FieldCost | undefined)?.maxSize ?? DEFAULT_MAX_SIZE;
  // Several size arguments (messages' first and last): the largest given decides.
  let size: number | undefined;
  for (const arg of args) {
    if (!SIZE_ARGUMENTS.includes(arg.name.value)) continue;
    const value = literalSize(arg.value, max);
    size = Math.max(size ?? 0, value);
  }
  if (size === undefined) size = typeof sized.defaultValue === 'number' ? sized.defaultValue : max;
  // Out-of-range sizes are refused by the resolver before any work; they are costed as the bound.
  return Math.max(1, Math.min(size, max));
}

/** An integer literal as given; a variable (or anything else) as the maximum the resolver accepts. */
function literalSize(value: ValueNode, max: number): number {
  return value.kind === Kind.INT ? Number(value.value) : max;
}

/** One validation rule measuring each operation against `limits`, reporting the first limit exceeded. */
function queryLimitsRule(limits: QueryLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    return {
      OperationDefinition(operation) {
        const { depth, aliases, cost } = measureOperation(context.getSchema(), operation, fragments, limits.maxCost);
        const name = operation.name ? ` ${operation.name.value}` : '';
        if (depth > limits.maxDepth) {
          context.reportError(
            new QueryLimitError(
              `Operation${name} is nested ${depth} fields deep; at most ${limits.maxDepth} are allowed.`,
              'QUERY_TOO_DEEP',
              depth,
              limits.maxDepth,
            ),
          );
        } else if (aliases > limits.maxAliases) {
          context.reportError(
            new QueryLimitError(
              `Operation${name} has ${aliases} aliases; at most ${limits.maxAliases} are allowed.`,
              'TOO_MANY_ALIASES',
              aliases,
              limits.maxAliases,
            ),
          );
        } else if (cost > limits.maxCost) {
          context.reportError(
            new QueryLimitError(
              `Operation${name} costs ${cost} (fields times list sizes, searches extra); at most ${limits.maxCost} is allowed.`,
              'QUERY_TOO_COMPLEX',
              cost,
              limits.maxCost,
            ),
          );
        }
        return false;
      },
    };
  };
}

/**
 * The parse options and validation rules that enforce `limits`: Apollo and the fast path both parse and validate
 * with exactly these, so an operation is refused the same way whichever path answers it.
 */
export function queryLimitChecks(limits: QueryLimits): {
  parseOptions: ParseOptions;
  validationRules: ValidationRule[];
} {
  return { parseOptions: { maxTokens: limits.maxTokens }, validationRules: [queryLimitsRule(limits)] };
}
