// Imported first by the command line, before anything that needs a newer Node: on an older one (whose HTTP library
// would throw at import with a stack trace) it says which version is needed, and exits 2.
import { PACKAGE_NODE_ENGINE } from '../api/package.ts';

const wanted = PACKAGE_NODE_ENGINE ?? '';
const minimum = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(wanted)?.slice(1).map(Number);
const running = process.versions.node.split('.').map(Number);
const older = (a: number[], b: number[]) => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
};
if (minimum !== undefined && older(running, minimum)) {
  // The remedy, in the same line: a newer Node on the machine, or the `node` package pinned in the project (npx and npm
  // scripts put node_modules/.bin first on PATH, so the bin's `#!/usr/bin/env node` then finds it: how this
  // repository itself runs on Node 24 where the machine's is older).
  console.error(
    `mcp-client-conformance: needs Node ${wanted.replace('>=', '')} or later; this is Node ${process.versions.node} (${process.execPath}). ` +
      'Install Node 24 (https://nodejs.org, or: nvm install 24), or pin it in your project: npm install --save-dev node@24, then npx mcp-client-conformance runs on it',
  );
  process.exit(2);
}
