// Where the suite's own files are, in its two layouts: the TypeScript sources (this repository) and the compiled
// package (dist/, as installed from npm). The build (scripts/build.ts) compiles every module into dist/ and copies the
// files the code reads at run time (schemas, baselines, drivers, the matrix file) beside them at the same relative
// paths, so a path relative to a module (import.meta.dirname) names the same file in both. What differs is here.
// (Where package.json is, and the version, is api/package.ts.)
import { resolve } from 'node:path';

/** True when this is the compiled package (dist/), false when it runs from the TypeScript sources. */
export const COMPILED = !import.meta.filename.endsWith('.ts');

/** The extension of the suite's modules in this layout: `.ts` in the sources, `.js` compiled. */
export const MODULE_EXTENSION = COMPILED ? '.js' : '.ts';

/** The top of the module tree: the repository, or dist/. The modules and the files they read are below it. */
export const CODE_ROOT = resolve(import.meta.dirname, '..');

/** A module as the sources name it (`scripts/matrix/reporter.ts`), as this layout has it (`…/reporter.js` compiled). */
export function moduleFile(sourcePath: string): string {
  return COMPILED ? sourcePath.replace(/\.ts$/, '.js') : sourcePath;
}
