// The reference stdio server program's entry: what the client under test launches (`<node> servers/stdio/main.ts
// --era <era> [--personality <name>[:<json>]]...`, or main.js in the compiled package; harness.ts builds the command
// line). It turns on V8's compile cache before anything else is loaded (the era's server is most of a launch, and the
// cache halves it: Node's own, NODE_COMPILE_CACHE or its directory in the temporary directory), then runs program.ts.
import { enableCompileCache } from 'node:module';

/** The program's file, in this layout (main.ts from the sources, main.js compiled): harness.ts launches it. */
export const PROGRAM_FILE = import.meta.filename;

if (import.meta.main) {
  enableCompileCache?.();
  const { main } = await import('./program.ts');
  await main(PROGRAM_FILE);
}
