// The programs a third party starts from, one per language: the Node adapter module and, in Python, Go, Rust and Java,
// a line-protocol program on that language's line-protocol library (clients/WRITING-AN-ADAPTER.md, section 4). What
// `mcp-client-conformance init` writes into a client's repository, and what `npm run clients:setup` builds (the
// environments template/<language>, clients/drivers/environments.ts) for `npm test` to run through the suite: one
// piece of code writes both, so the program tested is the program written.
//
// A program is its template folder (clients/template/<language>/) and a copy of its language's library beside it, at
// the path the template's build file names (go.mod's replace, Cargo.toml's path dependency, Maven's source tree, a
// Python import next to the file): the written folder builds on its own, without node_modules.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CODE_ROOT } from '../../config/layout.ts';

export const LANGUAGES = ['node', 'python', 'go', 'rust', 'java'] as const;
export type Language = (typeof LANGUAGES)[number];

const TEMPLATES = join(CODE_ROOT, 'clients', 'template');
const DRIVERS = join(CODE_ROOT, 'clients', 'drivers');

export interface ProgramTemplate {
  language: Language;
  /** The template's own files (a folder, copied whole). */
  folder: string;
  /** The line-protocol library: a file or folder of the package, and where it goes in the written program. */
  library?: { from: string; to: string };
  /** How to build the program in its folder (none for Node and Python). */
  build?: string;
  /** What runs the program written into `dir` (a path from where the suite runs): the command line `run
   * --adapter-command` is given, or for Node the module `run --adapter` is given. */
  run(dir: string): string;
}

export const PROGRAM_TEMPLATES: Record<Language, ProgramTemplate> = {
  node: { language: 'node', folder: join(TEMPLATES, 'node'), run: (dir) => `${dir}/my-adapter.mts` },
  python: {
    language: 'python',
    folder: join(TEMPLATES, 'python'),
    library: { from: join(DRIVERS, 'python', 'runtime.py'), to: 'runtime.py' },
    run: (dir) => `python3 ${dir}/my_client.py`,
  },
  go: {
    language: 'go',
    folder: join(TEMPLATES, 'go'),
    library: { from: join(DRIVERS, 'go', 'lineproto'), to: 'lineproto' },
    build: 'go build -trimpath -o my-client .',
    run: (dir) => `${dir}/my-client`,
  },
  rust: {
    language: 'rust',
    folder: join(TEMPLATES, 'rust'),
    library: { from: join(DRIVERS, 'rust', 'lineproto'), to: 'lineproto' },
    build: 'cargo build --locked',
    run: (dir) => `${dir}/target/debug/my-client-conformance`,
  },
  java: {
    language: 'java',
    folder: join(TEMPLATES, 'java'),
    library: { from: join(DRIVERS, 'java', 'src', 'main', 'java', 'mcpconformance', 'lineprotocol'), to: 'src/main/java/mcpconformance/lineprotocol' },
    build: 'mvn -q -B package',
    run: (dir) => `java -jar ${dir}/target/my-client-conformance.jar`,
  },
};

/** Build output and caches are never part of a template. */
const NOT_COPIED = new Set(['target', 'node_modules', '__pycache__', '.gradle']);
const copied = (source: string) => !NOT_COPIED.has(source.split(/[/\\]/).at(-1)!);

/** Every file a program is written from (absolute), and where it goes (relative to the program's folder). */
export function programFiles(language: Language): { from: string; to: string }[] {
  const template = PROGRAM_TEMPLATES[language];
  const walk = (from: string, to: string): { from: string; to: string }[] =>
    !copied(from) ? [] : statSync(from).isDirectory() ? readdirSync(from).sort().flatMap((name) => walk(join(from, name), join(to, name))) : [{ from, to }];
  const own = readdirSync(template.folder)
    .sort()
    .flatMap((name) => walk(join(template.folder, name), name));
  return template.library ? [...own, ...walk(template.library.from, template.library.to)] : own;
}

/** The paths of `programFiles` already present in `dir`. */
export function existingFiles(language: Language, dir: string): string[] {
  return programFiles(language)
    .map((file) => file.to)
    .filter((to) => existsSync(join(dir, to)));
}

/** Writes the program of `language` into `dir` (made if missing); returns the paths written, relative to `dir`. */
export function writeProgram(language: Language, dir: string): string[] {
  const files = programFiles(language);
  for (const { from, to } of files) {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    cpSync(from, join(dir, to));
  }
  return files.map((file) => relative(dir, join(dir, file.to)));
}
