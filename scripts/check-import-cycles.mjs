// Fails when TypeScript modules under the given roots import each other in a cycle (type-only imports included:
// a cycle of types still ties two modules' designs together). Usage: node scripts/check-import-cycles.mjs src packages/engine/src
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const roots = process.argv.slice(2);
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return file.endsWith('.ts') && !file.endsWith('.d.ts') ? [file] : [];
  });
}

function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

const graph = new Map();
for (const file of roots.flatMap((root) => sourceFiles(path.resolve(root)))) {
  const imports = new Set();
  for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
    const target = resolve(file, match[1] ?? match[2]);
    if (target) imports.add(target);
  }
  graph.set(file, imports);
}

// Tarjan's strongly connected components: every component of more than one node is a cycle.
function cyclesOf(edges) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  function visit(node) {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

// Feature folders (src/modules/<feature>) must not depend on each other in a cycle either.
const featureOf = (file) => /[/\\]modules[/\\]([^/\\]+)[/\\]/.exec(path.relative(process.cwd(), file))?.[1];
const features = new Map();
for (const [file, imports] of graph) {
  const feature = featureOf(file);
  if (!feature) continue;
  if (!features.has(feature)) features.set(feature, new Set());
  for (const target of imports) {
    const other = featureOf(target);
    if (other && other !== feature) features.get(feature).add(other);
  }
}

const relative = (file) => path.relative(process.cwd(), file);
const cycles = [
  ...cyclesOf(graph).map((cycle) => cycle.map(relative)),
  ...cyclesOf(features).map((cycle) => cycle.map((feature) => `feature ${feature}`)),
];

if (cycles.length > 0) {
  console.error(`Import cycles (${cycles.length}):`);
  for (const cycle of cycles) console.error(`- ${cycle.join(' ↔ ')}`);
  process.exit(1);
}
console.log(`No import cycles among ${graph.size} modules.`);
