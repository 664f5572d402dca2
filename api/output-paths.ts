// An output file or folder the user named, checked before a run starts: a run of minutes must not end in a path that
// cannot be written. Nothing is created here (a typo must not leave folders behind): the path, or the nearest folder
// above it that exists, is asked whether it could be written, as the writer will write it (a file beside it, renamed).
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

/** A path a run was asked to write that cannot be written: bad input, said before the run. */
export class OutputPathError extends Error {
  override name = 'OutputPathError';
}

/** What is at a path, or undefined when nothing is (a path through a file has nothing at it either). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Why `path` cannot be written as a file (`folder`: as a folder that will hold files), or undefined when it can: it is a
 * folder (a file) or a file (a folder), or the nearest folder that exists above it is a file, or cannot be written to.
 */
export function whyNotWritable(path: string, kind: 'file' | 'folder' = 'file'): string | undefined {
  const found = statOf(path);
  if (found !== undefined) {
    if (kind === 'file' && found.isDirectory()) return 'it is a folder; give the file to write';
    if (kind === 'folder' && !found.isDirectory()) return 'it is a file, not a folder';
    // A file is written beside itself and renamed over: its folder must take new files.
    const folder = kind === 'folder' ? path : dirname(path);
    if (!writable(folder)) return `${folder} is not writable`;
    return undefined;
  }
  let above = dirname(path);
  for (;;) {
    const stat = statOf(above);
    if (stat !== undefined) {
      if (!stat.isDirectory()) return `${above} is a file, not a folder`;
      return writable(above) ? undefined : `${above} is not writable`;
    }
    const next = dirname(above);
    if (next === above) return `no folder above it exists`;
    above = next;
  }
}

/** Throws OutputPathError, naming the path as `what` calls it, when it cannot be written. */
export function checkWritable(what: string, path: string, kind: 'file' | 'folder' = 'file'): void {
  const why = whyNotWritable(path, kind);
  if (why !== undefined) throw new OutputPathError(`${what} ${path} cannot be written: ${why}`);
}
