// `npm run test:fleet`: the fleet test (three replicas of the image behind nginx on PostgreSQL),
// apart from `npm test` because it builds the image and runs containers for a few minutes.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/fleet/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
