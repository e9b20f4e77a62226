import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, visit, type DefinitionNode, type FragmentDefinitionNode } from 'graphql';

/**
 * Loads test/operations/<file> (the documents graphql-codegen types) and returns `op(name)`: the named
 * operation with the fragments it uses, ready to execute. Tests thereby run exactly the committed documents.
 */
export function operationsFrom(file: string): (name: string) => string {
  const document = parse(readFileSync(path.join(__dirname, '../support/operations', file), 'utf8'));
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return (name) => {
    const operation = document.definitions.find(
      (definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.name?.value === name,
    );
    if (!operation) throw new Error(`No operation ${name} in ${file}`);
    const used = new Map<string, DefinitionNode>();
    const collect = (node: DefinitionNode) =>
      visit(node, {
        FragmentSpread(spread) {
          const fragment = fragments.get(spread.name.value);
          if (fragment && !used.has(fragment.name.value)) {
            used.set(fragment.name.value, fragment);
            collect(fragment);
          }
        },
      });
    collect(operation);
    return [operation, ...used.values()].map((definition) => print(definition)).join('\n\n');
  };
}
