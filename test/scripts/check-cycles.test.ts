// The import-circle check of `npm run check` (scripts/check-cycles.ts) on small projects written
// for the test: it names a circle of any kind of import, and passes a project without one.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterEach, describe, expect, it } from "vitest";
import { findCircles, importGraph } from "../../scripts/check-cycles";

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
};
let dir: string;

function project(files: Record<string, string>): string[] {
  dir = mkdtempSync(join(tmpdir(), "cycles-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return Object.keys(files).map((name) => join(dir, name));
}

const circlesOf = (files: Record<string, string>) => {
  const paths = project(files);
  return findCircles(importGraph(paths, options)).map((circle) =>
    circle.map((file) => file.slice(dir.length + 1)).sort(),
  );
};

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("check-cycles", () => {
  it("passes a project whose imports form no circle", () => {
    expect(
      circlesOf({
        "a.ts": 'import { b } from "./b";',
        "b.ts": 'import { c } from "./c";',
        "c.ts": "export const c = 1;",
      }),
    ).toEqual([]);
  });

  it("names a circle made of type-only and dynamic imports", () => {
    const circles = circlesOf({
      "a.ts": 'import type { B } from "./b";',
      "b.ts": 'export const load = () => import("./c");',
      "c.ts": 'export { a } from "./a";',
      "d.ts": 'import "./a";',
    });
    expect(circles).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });
});
