// Preloaded with `node -r` by test/protocol/stdio.test.ts: at the process's first write to stdout
// (its first answer), lists on stderr the Node built-in modules loaded by then, as one line
// `builtins-at-first-answer: name name …`.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  process.stdout.write = write;
  const builtins = process.moduleLoadList
    .filter((entry) => entry.startsWith("NativeModule "))
    .map((entry) => entry.slice("NativeModule ".length));
  process.stderr.write(`builtins-at-first-answer: ${builtins.join(" ")}\n`);
  return write(...args);
};
