// What every command of the command line is: its options (only its own: one of another command, or an unknown one, is
// bad usage with a message that says so), its positional arguments, its help, and what it does. scripts/cli.ts
// dispatches to them.
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { EXIT_CODES } from '../../api/exit-codes.ts';

/** Bad usage or bad input: one line that says what is wrong (the command line exits 2 with it). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The exit code of bad usage or bad input. */
export const USAGE_EXIT = EXIT_CODES.usage;

/** The options of a command as they were parsed: a string or a list of them, a boolean, or absent. */
export type Values<O extends ParseArgsOptionsConfig> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? (O[K]['multiple'] extends true ? boolean[] : boolean) : O[K]['multiple'] extends true ? string[] : string;
};

export interface Command<O extends ParseArgsOptionsConfig = ParseArgsOptionsConfig> {
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** `<command> --help`: the usage line, then one line per option. */
  help(): string | Promise<string>;
  options: O;
  /** The positional arguments it takes, how many, and their names for messages (none when absent). */
  positionals?: { min: number; max: number; names: string };
  /** Does the command's work; returns the exit code (undefined: the command keeps running, as serve does). */
  run(values: Values<O>, positionals: string[]): Promise<number | undefined>;
}

/** A command, typed by its options. */
export const defineCommand = <const O extends ParseArgsOptionsConfig>(command: Command<O>): Command<O> => command;

/** Every command accepts -h / --help. */
const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** What the arguments say: help asked for, or the command's values and positionals. Throws UsageError on bad usage. */
export function parseCommandArgs<O extends ParseArgsOptionsConfig>(command: Command<O>, args: string[], all: readonly Command[]): { help: true } | { help: false; values: Values<O>; positionals: string[] } {
  const options = { ...command.options, ...HELP } as ParseArgsOptionsConfig;
  const see = `see \`mcp-client-conformance ${command.name} --help\``;
  // A first pass that accepts anything, so the first problem is said in the user's words, in order.
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (option === undefined) {
      const owners = all.filter((other) => other !== command && Object.hasOwn(other.options, token.name)).map((other) => other.name);
      const elsewhere = owners.length > 0 ? ` (it is an option of ${owners.join(' and ')})` : '';
      throw new UsageError(`${command.name}: unknown option ${token.rawName}${elsewhere}; ${see}`);
    }
    if (option.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) {
      throw new UsageError(`${command.name}: ${token.rawName} needs a value; ${see}`);
    }
    if (option.type === 'boolean' && token.inlineValue) throw new UsageError(`${command.name}: ${token.rawName} takes no value; ${see}`);
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${command.name}: ${(error as Error).message.split('\n')[0]}; ${see}`);
  }
  if (parsed.values.help === true) return { help: true };
  const { min, max, names } = command.positionals ?? { min: 0, max: 0, names: '' };
  const count = parsed.positionals.length;
  if (count > max) {
    const extra = parsed.positionals.slice(max).map((value) => `"${value}"`).join(', ');
    throw new UsageError(max === 0 ? `${command.name} takes no arguments (got ${extra}); ${see}` : `${command.name} takes ${names}, not also ${extra}; ${see}`);
  }
  if (count < min) throw new UsageError(`${command.name} needs ${names}; ${see}`);
  return { help: false, values: parsed.values as Values<O>, positionals: parsed.positionals };
}

/** The help's option lines: `  --name <value>   what it does`, aligned. */
export function optionLines(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 3;
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text.replaceAll('\n', `\n${' '.repeat(width + 2)}`)}`).join('\n');
}

/** A path the user gave, as they meant it: relative to where they typed the command (npm runs scripts elsewhere and says where in INIT_CWD). */
export const fromUser = (path: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), path);
