// Preloaded with `node -r` by test/auth/lazy.test.ts: at exit, lists on stderr the packages
// loaded from node_modules, as one line `modules-at-exit: name name …`.
process.on("exit", () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) names.add(match[1]);
  }
  process.stderr.write(`modules-at-exit: ${[...names].join(" ")}\n`);
});
