import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The rule of src/modules: each collection is written (and read) by exactly one repository, its feature's. Checked on
 * the sources, so a new file or call that obtains a collection elsewhere fails here before it ships.
 */
const MODULES = path.resolve(__dirname, '../../src/modules');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

const files = sourceFiles(MODULES).map((file) => ({
  name: path.relative(MODULES, file).split(path.sep).join('/'),
  source: ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true),
}));

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

/** The features' `*_COLLECTION` constants (in `<feature>/<feature>.document.ts`): constant name → collection name. */
const declared = new Map<string, string>();
for (const { name, source } of files.filter((file) => /^[^/]+\/[^/]+\.document\.ts$/.test(file.name))) {
  visit(source, (node) => {
    if (!ts.isVariableDeclaration(node) || !ts.isIdentifier(node.name) || !node.name.text.endsWith('_COLLECTION'))
      return;
    if (!node.initializer || !ts.isStringLiteral(node.initializer))
      throw new Error(`${name}: ${node.name.text} is not a string literal`);
    declared.set(node.name.text, node.initializer.text);
  });
}

/** The collection an argument names: a declared constant or its string; null when it is computed. */
function named(argument: ts.Expression): string | null {
  if (ts.isIdentifier(argument)) return declared.get(argument.text) ?? null;
  if (ts.isStringLiteralLike(argument) && [...declared.values()].includes(argument.text)) return argument.text;
  return null;
}

interface CollectionUse {
  file: string;
  /** `file:line: code`, for failure messages. */
  at: string;
  /** The collection obtained; null when the call computes it (it could be any). */
  collection: string | null;
}

/**
 * Every place under src/modules that obtains a collection: a `.collection(…)` / `.collection<T>(…)` call, or any other
 * call given a declared collection (e.g. `findDocuments(db, TASKS_COLLECTION, …)` of src/db/bson-reader).
 */
const uses: CollectionUse[] = files.flatMap(({ name, source }) => {
  const found: CollectionUse[] = [];
  visit(source, (node) => {
    if (!ts.isCallExpression(node)) return;
    const callee = node.expression;
    const isCollectionCall = ts.isPropertyAccessExpression(callee) && callee.name.text === 'collection';
    const collections = isCollectionCall
      ? [node.arguments[0] ? named(node.arguments[0]) : null]
      : node.arguments.flatMap((argument) =>
          ts.isIdentifier(argument) && declared.has(argument.text) ? [declared.get(argument.text)!] : [],
        );
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const at = `${name}:${line}: ${node.getText().replace(/\s+/g, ' ').slice(0, 100)}`;
    for (const collection of collections) found.push({ file: name, at, collection });
  });
  return found;
});

const isRepository = (file: string) => file.endsWith('.repository.ts');

describe('each collection is obtained by exactly one repository', () => {
  it('finds the declared collections and the places that obtain them', () => {
    expect([...declared.values()]).toEqual(
      expect.arrayContaining(['eat_agent_experiences', 'tasks', 'plan_patterns', 'reembed_jobs']),
    );
    expect(uses.length).toBeGreaterThanOrEqual(declared.size);
  });

  it('no file under src/modules but a repository obtains a collection', () => {
    expect(uses.filter((use) => !isRepository(use.file)).map((use) => use.at)).toEqual([]);
  });

  it('every collection a repository obtains is a declared one, named (not computed)', () => {
    expect(uses.filter((use) => use.collection === null).map((use) => use.at)).toEqual([]);
  });

  it('every declared collection is obtained by one repository file', () => {
    const owners = new Map<string, Set<string>>(
      [...declared.values()].map((collection) => [collection, new Set<string>()]),
    );
    for (const use of uses)
      if (use.collection !== null && isRepository(use.file)) owners.get(use.collection)!.add(use.file);
    const shared = [...owners]
      .filter(([, repositories]) => repositories.size !== 1)
      .map(([collection, repositories]) => ({ collection, repositories: [...repositories] }));
    expect(shared).toEqual([]);
  });
});
