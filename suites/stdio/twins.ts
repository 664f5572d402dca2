// The scenarios written for HTTP whose rule does not depend on HTTP, run over stdio: the same script (it reads its
// server through `context.wire`) and judge, the client launching the suite's stdio server (support.ts, overStdio).
// Left over HTTP only: rules of sessions, headers, retries, HTTP+SSE, streams; close-during-connect, whose judge of a
// given-up connect (its request's connection closed) is over stdio the shutdown of a process; and idempotent-close,
// whose second close has nothing to send over stdio (no DELETE: the process already ended), so no client could fail
// it there: the shutdown scenarios judge closing.
import { bounds as neverInitializeBounds, neverInitialize } from '../cancellation/never-initialize.ts';
import { concurrentIndependent } from '../cancellation/concurrent-independent.ts';
import { lateResponseIgnored } from '../cancellation/late-response-ignored.ts';
import { legacyNotification, SAME_SESSION } from '../cancellation/legacy-notification.ts';
import { progressResetsTimeout } from '../cancellation/progress-resets-timeout.ts';
import { timeoutCancels } from '../cancellation/timeout-cancels.ts';
import { inFlightSettled } from '../disposal/in-flight-settled.ts';
import { quietAfterClose } from '../disposal/quiet-after-close.ts';
import { versionPerRevision } from '../negotiation/version-per-revision.ts';
import { capabilitiesRespected } from '../negotiation/capabilities-respected.ts';
import { elicitationUrlUndeclared } from '../server-requests/elicitation-mode.ts';
import { HANDLER_SCENARIOS } from '../server-requests/handler-answered.ts';
import { INPUT_REQUIRED_SCENARIOS } from '../server-requests/input-required.ts';
import { notificationsInterleaved } from '../server-requests/notifications-interleaved.ts';
import { serverCancels } from '../server-requests/server-cancels.ts';
import { pingAnswered } from '../server-requests/ping-answered.ts';
import { requestsAnswered } from '../server-requests/requests-answered.ts';
import type { Evidence, Scenario } from '../scenario.ts';
import { stdioHandshake } from './handshake.ts';
import { overStdio } from './support.ts';

export const STDIO_TWINS: readonly Scenario[] = [
  stdioHandshake,
  // Where the notification went and with which headers is HTTP's: over stdio there is one channel.
  overStdio(legacyNotification, { doctored: (legacyNotification.doctored ?? []).filter((proof) => proof.check !== SAME_SESSION) }),
  overStdio(timeoutCancels),
  // The server handles the cancel only once it has answered the call it names: the answer arrives after the cancel.
  overStdio(lateResponseIgnored, { setup: () => ({ stdio: { personalities: ['answers-after-cancel'] }, state: undefined }) }),
  overStdio(concurrentIndependent),
  overStdio(progressResetsTimeout),
  // The server holds initialize by answering nothing until long after the connect's timeout (a slow start).
  overStdio(neverInitialize, {
    setup: (_revision, time) => ({ stdio: { personalities: [{ name: 'probe-slow-start', ms: neverInitializeBounds(time).holdMs }] }, state: undefined }),
  }),
  overStdio(inFlightSettled),
  // No server launched again after close, no process left running.
  overStdio(quietAfterClose, {
    doctored: [
      ...(quietAfterClose.doctored ?? []),
      // A process launched after close that is still too slow to start to report itself (a loaded machine) is found by
      // its environment only: it counts as launched after close all the same.
      {
        check: 'nothing-sent-after-close',
        how: 'a process the client launched after close(), found by its environment only',
        doctor: (e: Evidence) => ({ ...e, stdio: { ...e.stdio!, survivors: [...e.stdio!.survivors, 2 ** 22 + 1] } }),
      },
    ],
  }),
  // The reported version; the MCP-Protocol-Version header is HTTP's.
  overStdio(versionPerRevision, { doctored: (versionPerRevision.doctored ?? []).filter((proof) => proof.check !== 'header-on-every-request') }),
  // The server the client launches advertises tools alone; every request it gets is a stdin line.
  overStdio(capabilitiesRespected, { setup: () => ({ stdio: { personalities: ['tools-only'] }, state: undefined }) }),
  // The server's ping on stdout during a call, the client's reply on stdin.
  overStdio(pingAnswered),
  // The server's requests on stdout during a call; each reply, and its refusal, on stdin.
  overStdio(requestsAnswered, { doctored: (requestsAnswered.doctored ?? []).filter((proof) => proof.check !== 'reply-posted') }),
  ...HANDLER_SCENARIOS.map((scenario) => overStdio(scenario)),
  overStdio(elicitationUrlUndeclared),
  overStdio(notificationsInterleaved),
  overStdio(serverCancels),
  // The InputRequiredResult on stdout, each retry a stdin line of its own.
  ...INPUT_REQUIRED_SCENARIOS.map((scenario) => overStdio(scenario)),
];
