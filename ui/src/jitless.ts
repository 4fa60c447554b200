// Imported first by main.ts, before the App runtime: zod compiles object parsers with
// `new Function` unless told not to, and the spec's default CSP for views forbids eval, so the
// first parse would report a CSP violation. Setting this before any other module runs means zod
// never even probes for eval.
import { config } from "zod";

config({ jitless: true });
