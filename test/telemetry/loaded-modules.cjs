// Preloaded with `node -r` by test/telemetry/off.test.ts: as the process exits, lists on stderr every module file it loaded through require, as `loaded-modules: ["path", …]`.
process.on("exit", () => {
  process.stderr.write(`loaded-modules: ${JSON.stringify(Object.keys(require.cache))}\n`);
});
