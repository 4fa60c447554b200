import { configDefaults, defineConfig } from "vitest/config";

/** The suite-wide secret scan: reads what every other test file's servers wrote, so it runs last. */
const SECRET_SCAN = "test/reliability/secrets.scan.test.ts";

export default defineConfig({
  test: {
    pool: "forks",
    // Most test files wait on child processes and sockets, not the CPU: two workers on a 2-core
    // machine (vitest's default there is one) halve the wall time.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "tests",
          include: ["test/**/*.test.ts"],
          // The fleet test runs apart (npm run test:fleet, test/fleet/vitest.config.ts).
          exclude: [...configDefaults.exclude, SECRET_SCAN, "test/fleet/**"],
          // Empties .test-logs/ before the run.
          globalSetup: ["test/reliability/global-setup.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "secret-scan",
          include: [SECRET_SCAN],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
