// Loads the `oauth` mode's libraries with require (ES modules included, as Node 20.19+ allows):
// the bundle runs in a vm.Script, where import() has no loader, and a default export reached
// through the bundler's interop would not be the module's own.
import { createRequire } from "node:module";

export const load = createRequire(import.meta.url);
