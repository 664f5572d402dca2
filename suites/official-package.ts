// The installed official suite (@modelcontextprotocol/conformance), as the mapping files' tests read it
// (suites/official-checks.test.ts, suites/authorization/official-checks.test.ts): its version and its one bundle, which
// holds the check ids (the package ships no list of them).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export function officialPackage(name: string): { version: string; bundle: string } {
  const packageDir = dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  const installed = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
  return { version: installed.version, bundle: readFileSync(join(packageDir, Object.values(installed.bin)[0]!), 'utf8') };
}
