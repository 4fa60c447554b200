import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withToolsTable } from "../scripts/readme-tools";
import { repoRoot } from "./support/mcp-server";

describe("README", () => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");

  it("has the tool table the registry generates (run `npm run docs` after changing a tool)", () => {
    expect(readme).toBe(withToolsTable(readme));
  });

  it("gives the quick start and the test command", () => {
    for (const command of ["npm install", "npm start", "npm test", "npm run api"])
      expect(readme).toContain(command);
  });
});
