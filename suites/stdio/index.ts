import type { Scenario } from '../scenario.ts';
import { stdioBatchAnswers } from './batch-answers.ts';
import { eraPerProcess } from './era-per-process.ts';
import { stdioFraming } from './framing.ts';
import { PROBE_FALLBACK } from './probe-fallback.ts';
import { pingAtInitialize, pingWhileIdle } from './ping-while-idle.ts';
import { PROBE_MODERN, probeSlowStart } from './probe-modern.ts';
import { stdioProcessTree } from './process-tree.ts';
import { stdioMergedWrites, stdioSplitWrites, stdioUtf8Split } from './reading.ts';
import { stdioCloseStdoutAndExit, stdioCrashMidCall } from './server-exits.ts';
import { stdioShutdownSequence } from './shutdown-sequence.ts';
import { stdioStderr } from './stderr.ts';
import { STDIO_TWINS } from './twins.ts';
import { waitingForTheProbe } from './support.ts';

/**
 * The stdio transport's scenarios (issue 13): the scenarios of the other suites whose rule does not depend on HTTP,
 * run over stdio (twins.ts), then the rules of stdio itself. All but those that judge the wait for the probe judge
 * rules a client reaches on a modern session only if it waited for its probe (support.ts `waitingForTheProbe`).
 */
export const STDIO: readonly Scenario[] = [
  ...STDIO_TWINS.map(waitingForTheProbe),
  ...PROBE_FALLBACK,
  // The reaction to the probe's answer (-32022) is reached only by a client that waited for it; the slow start judges the wait.
  ...PROBE_MODERN.map((scenario) => (scenario === probeSlowStart ? scenario : waitingForTheProbe(scenario))),
  eraPerProcess,
  ...[stdioFraming, stdioSplitWrites, stdioMergedWrites, stdioUtf8Split, stdioBatchAnswers, stdioCrashMidCall, stdioCloseStdoutAndExit, stdioShutdownSequence, stdioProcessTree, stdioStderr, pingWhileIdle, pingAtInitialize].map(waitingForTheProbe),
];
