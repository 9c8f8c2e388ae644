import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * `local/no-import-cycles`: no file may reach itself again through its imports, type-only imports
 * included (docs/decisions/0022-feature-boundaries-enforced-by-lint.md). import/no-cycle skips
 * `import type`, so a cycle such as "app.ts imports the features, the features import AppDeps from
 * app.ts" passed lint; this rule sees every import TypeScript sees.
 *
 * The graph covers the files of the nearest tsconfig.json, read with TypeScript's own scanner
 * (ts.preProcessFile: import, import type, export … from, import()) and resolved with TypeScript's
 * module resolution and that tsconfig's options. Strongly connected components of that graph are
 * the cycles; an import is reported when it points into its own file's component.
 */

/** A graph is rebuilt when older than this, so a long-running editor sees edits. */
const MAX_AGE_MS = 2_000;
const graphs = new Map();

function buildGraph(tsconfigPath) {
  const { config, error } = ts.readConfigFile(tsconfigPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const root = path.dirname(tsconfigPath);
  const { fileNames, options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const files = new Set(fileNames.map((f) => path.resolve(f)));
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const resolve = (specifier, fromFile) => {
    const found = ts.resolveModuleName(specifier, fromFile, options, ts.sys, cache).resolvedModule;
    if (!found || found.isExternalLibraryImport) return undefined;
    const file = path.resolve(found.resolvedFileName);
    return files.has(file) ? file : undefined;
  };

  const edges = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const { fileName } of importedFiles) {
      const target = resolve(fileName, file);
      if (target) targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  return { builtAt: Date.now(), resolve, edges, componentOf: stronglyConnected(edges) };
}

/** Tarjan's algorithm: file → component id, for components that are cycles (size > 1 or a self-import). */
function stronglyConnected(edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const componentOf = new Map();
  let next = 0;
  let components = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || (edges.get(file) ?? []).includes(file)) {
      components++;
      for (const m of members) componentOf.set(m, components);
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return componentOf;
}

/** The shortest way back from `start` to `goal` inside their cycle, for the message. */
function pathBack(graph, start, goal) {
  const component = graph.componentOf.get(goal);
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === goal) break;
    for (const target of graph.edges.get(file) ?? []) {
      if (previous.has(target) || graph.componentOf.get(target) !== component) continue;
      previous.set(target, file);
      queue.push(target);
    }
  }
  const steps = [];
  for (let file = goal; file !== undefined; file = previous.get(file)) steps.unshift(file);
  return steps;
}

function graphFor(filename) {
  const tsconfigPath = ts.findConfigFile(path.dirname(filename), ts.sys.fileExists, 'tsconfig.json');
  if (!tsconfigPath) return undefined;
  let graph = graphs.get(tsconfigPath);
  if (!graph || Date.now() - graph.builtAt > MAX_AGE_MS) {
    graph = buildGraph(tsconfigPath);
    graphs.set(tsconfigPath, graph);
  }
  return graph;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included' },
    schema: [],
    messages: {
      cycle:
        'Import cycle (type-only imports count too): {{path}}. Move what both sides need to a module both can import.',
    },
  },
  create(context) {
    const filename = path.resolve(context.filename);
    const graph = graphFor(filename);
    if (!graph?.componentOf.has(filename)) return {};
    const component = graph.componentOf.get(filename);
    const root = context.cwd;
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const target = graph.resolve(specifier, filename);
      if (!target || graph.componentOf.get(target) !== component) return;
      const steps = [filename, ...(target === filename ? [filename] : pathBack(graph, target, filename))];
      context.report({
        node,
        messageId: 'cycle',
        data: { path: steps.map((f) => path.relative(root, f)).join(' → ') },
      });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      TSImportType: (node) => check(node, node.argument?.literal?.value),
    };
  },
};
