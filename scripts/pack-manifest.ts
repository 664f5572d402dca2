// The package.json that ships: the repository's, without `prepare`. `prepare` builds dist/ on `npm ci` in a clone (the
// checkout's `npx mcp-client-conformance` runs from it), and so it is the repository's: in the tarball it would name
// a build (scripts/build.ts, tsc) the package does not hold. npm packs the package.json it finds on disk after
// `prepack`, so `prepack` builds, then writes the manifest without `prepare` (keeping the repository's beside it), and
// `postpack` puts the repository's back. A pack that was killed between the two leaves the copy: the next `strip` or
// `restore` puts it back first.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const MANIFEST = join(ROOT, 'package.json');
/** The repository's package.json while a pack runs (ignored by git, never packed: not in `files`). */
export const KEPT = join(ROOT, '.package.json.packing');

/** The repository's package.json back in place, if a pack had set it aside. */
export function restore(): void {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

/** The manifest a pack ships: the repository's without scripts.prepare. */
export function packedManifest(text: string): string {
  const manifest = JSON.parse(text) as { scripts?: Record<string, string> };
  if (manifest.scripts) delete manifest.scripts.prepare;
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export function strip(): void {
  restore();
  const text = readFileSync(MANIFEST, 'utf8');
  writeFileSync(KEPT, text);
  writeFileSync(MANIFEST, packedManifest(text));
}

if (import.meta.main) {
  const [mode] = process.argv.slice(2);
  if (mode === 'strip') strip();
  else if (mode === 'restore') restore();
  else {
    console.error('usage: node scripts/pack-manifest.ts strip|restore');
    process.exit(2);
  }
}
