// Fails when the project's TypeScript files import each other in a circle (`npm run check` runs
// it): a circle means no file of it can be read, tested or moved without the others. Every kind
// of import counts: value, type-only, re-export and dynamic `import()`.
//
//   tsx scripts/check-cycles.ts [tsconfig.json]
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** The project's files and compiler options, as tsconfig.json names them. */
function readProject(configPath: string): { files: string[]; options: ts.CompilerOptions } {
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath));
  return { files: parsed.fileNames.map((file) => resolve(file)), options: parsed.options };
}

/** For each project file, the project files it imports (dependencies outside it are left out). */
export function importGraph(files: readonly string[], options: ts.CompilerOptions): Map<string, string[]> {
  const inProject = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = ts.sys.readFile(file) ?? "";
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule;
      const target = resolved && resolve(resolved.resolvedFileName);
      if (target && target !== file && inProject.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The circles of `graph`: its strongly connected components of more than one file (Tarjan). */
export function findCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.reverse());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** One path around a circle, from its first file back to it: `a.ts → b.ts → a.ts`. */
function pathAround(circle: readonly string[], graph: Map<string, string[]>): string[] {
  const members = new Set(circle);
  const start = circle[0] as string;
  // Breadth-first from start's imports back to start, inside the circle only.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const next of graph.get(file) ?? []) {
      if (!members.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      if (next === start) queue.length = 0;
      else queue.push(next);
    }
  }
  const path = [start];
  for (let file = cameFrom.get(start); file && file !== start; file = cameFrom.get(file)) path.push(file);
  return [start, ...path.slice(1).reverse(), start];
}

function main(): void {
  const configPath = resolve(root, process.argv[2] ?? "tsconfig.json");
  const { files, options } = readProject(configPath);
  const graph = importGraph(files, options);
  const circles = findCircles(graph);
  const name = (file: string) => relative(root, file);
  if (circles.length === 0) {
    console.log(`No import circle among ${files.length} files.`);
    return;
  }
  for (const circle of circles) {
    console.error(
      `Import circle of ${circle.length} files: ${pathAround(circle, graph).map(name).join(" → ")}`,
    );
    if (circle.length > 2) console.error(`  all of them: ${circle.map(name).join(", ")}`);
  }
  process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) main();
