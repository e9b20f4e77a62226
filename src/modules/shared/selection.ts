import {
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';

/**
 * What an operation selects below a field, for reads that fetch only what the response returns. Fragments and
 * inline fragments are expanded; `@skip`/`@include` are ignored, so a read may fetch more than is returned but
 * never less.
 */

/** Selected fields by name (all the nodes selecting each, aliases merged). */
export type Selection = Map<string, FieldNode[]>;

type Fragments = GraphQLResolveInfo['fragments'];

function collect(
  set: SelectionSetNode | undefined,
  fragments: Fragments,
  into: Selection,
  seen: Set<FragmentDefinitionNode>,
): void {
  for (const selection of set?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      const nodes = into.get(selection.name.value);
      if (nodes) nodes.push(selection);
      else into.set(selection.name.value, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collect(selection.selectionSet, fragments, into, seen);
    } else {
      const fragment = fragments[selection.name.value];
      if (fragment && !seen.has(fragment)) {
        seen.add(fragment);
        collect(fragment.selectionSet, fragments, into, seen);
      }
    }
  }
}

/** The fields selected under `nodes` (the nodes of one field, e.g. `info.fieldNodes`). */
export function subfields(nodes: readonly FieldNode[], fragments: Fragments): Selection {
  const selection: Selection = new Map();
  for (const node of nodes) collect(node.selectionSet, fragments, selection, new Set());
  return selection;
}

/** The nodes of the field at `path` below the resolved field, e.g. `['edges', 'node']` of a connection. */
export function fieldNodesAt(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>,
  path: readonly string[],
): FieldNode[] {
  let nodes: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) nodes = subfields(nodes, info.fragments).get(name) ?? [];
  return [...nodes];
}
