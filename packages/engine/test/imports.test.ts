/** The engine's module graph: no import cycles (type-only imports included), so each module can be read bottom-up. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '..', 'src');

/** Module name (file name without `.ts`) → the sibling modules it imports or re-exports from. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(SRC).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))) {
    const source = readFileSync(path.join(SRC, file), 'utf8');
    const targets = [
      ...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom '\.\/([\w-]+)'/gm),
      ...source.matchAll(/^import '\.\/([\w-]+)'/gm),
      ...source.matchAll(/import\('\.\/([\w-]+)'\)/g),
    ];
    graph.set(file.slice(0, -3), [...new Set(targets.map((match) => match[1]))]);
  }
  return graph;
}

/** Every cycle a depth-first walk meets, each as the path that closes it. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (module: string): void => {
    path.push(module);
    for (const next of graph.get(module) ?? []) {
      if (path.includes(next)) found.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(module);
  };
  for (const module of graph.keys()) if (!done.has(module)) visit(module);
  return found;
}

test('the graph is read from the sources (index imports commands, store imports filter)', () => {
  const graph = importGraph();
  expect(graph.get('index')).toContain('commands');
  expect(graph.get('store')).toContain('filter');
});

test('no module of the engine imports, directly or through others, a module that imports it', () => {
  expect(cycles(importGraph())).toEqual([]);
});
