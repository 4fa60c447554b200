// The entry of the start-up snapshot that test/bench/snapshot.ts studies (not shipped: README ›
// Performance says why). Node's snapshot builder runs this once: every module the stdio server
// loads before its first answer is evaluated here, into the heap the blob keeps. A start from the
// blob then runs only the command itself, as the launcher would after loading the bundle.
import { startupSnapshot } from "node:v8";
import "../../src/catalogue";
import "../../src/config";
import "../../src/runtime";
import "../../src/selection";
import "../../src/server";
import "../../src/stdio";
import "../../tools";
import { resetHeapSizeFlags } from "../../src/v8-flags";

startupSnapshot.setDeserializeMainFunction(() => {
  resetHeapSizeFlags();
  require("../../src/cli");
});
