import type { Scenario } from '../scenario.ts';
import { stdioFraming } from './framing.ts';
import { stdioHandshake } from './handshake.ts';
import { stdioProcessTree } from './process-tree.ts';
import { stdioMergedWrites, stdioSplitWrites, stdioUtf8Split } from './reading.ts';
import { stdioCloseStdoutAndExit, stdioCrashMidCall } from './server-exits.ts';
import { stdioShutdownSequence } from './shutdown-sequence.ts';
import { stdioStderr } from './stderr.ts';

/** The stdio transport's scenarios (issue 13): the smoke scenario, then the rules of stdio itself. */
export const STDIO: readonly Scenario[] = [
  stdioHandshake,
  stdioShutdownSequence,
  stdioProcessTree,
  stdioStderr,
  stdioFraming,
  stdioSplitWrites,
  stdioMergedWrites,
  stdioUtf8Split,
  stdioCrashMidCall,
  stdioCloseStdoutAndExit,
];
