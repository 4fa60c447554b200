// Preloaded with `node -r` by test/auth/lazy.test.ts: at exit, lists on stderr the packages
// loaded from node_modules and the build's own parts loaded apart (`parts-mcp.oauth.js`), as one
// line `modules-at-exit: name name …`.
process.on("exit", () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) names.add(match[1]);
    const apart = /(parts-mcp\.[a-z]+\.js)$/.exec(file);
    if (apart) names.add(apart[1]);
  }
  process.stderr.write(`modules-at-exit: ${[...names].join(" ")}\n`);
});
