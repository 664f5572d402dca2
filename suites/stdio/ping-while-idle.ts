// A ping the server sends on its own, with nothing in flight: over stdio the server may write to stdout at any time, so
// the harness has it ping once the connection is idle, and again after a call. (Over Streamable HTTP an idle server can
// only reach a client on a GET stream the client MAY open: ping-answered pings during a call, on the call's stream.)
import { L } from '../../protocol/revisions.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import { clientCompleted, precondition } from '../checks.ts';
import { holdsWithin } from '../outcome.ts';
import { defineScenario, type Evidence } from '../scenario.ts';
import { ping } from '../spec.ts';
import { PING_PROOFS, pingChecks, pingsOf } from '../server-requests/ping-answered.ts';
import { EARLY_PINGS } from '../../servers/stdio/personalities.ts';
import { lifecycle } from '../spec.ts';
import { serverRecorded, serverRecordedProof } from './support.ts';

/** The ids of the harness's pings (strings: no client request id is one of them). */
const IDLE_PINGS = ['idle-ping-1', 'idle-ping-2'] as const;

/**
 * Why no server process was there to ping, when a client with one launch per operation is the reason: the client
 * completed, and each ping the server did not write found every server process the client had launched already ended by
 * the client closing its stdin (none crashed or was left running). Undefined otherwise.
 */
function noProcessWhenIdle(evidence: Evidence, written: readonly (string | number)[]): string | undefined {
  if (evidence.clientError !== undefined) return undefined;
  const servers = (evidence.stdio?.processes ?? []).filter((p) => p.role === 'server');
  // A ping handed to a process the client was already shutting down (its stdin closed) may never be written: unsent too.
  const unsent = IDLE_PINGS.filter((id) => !written.includes(id));
  const ended: string[] = [];
  for (const id of unsent) {
    const at = evidence.observed[`pingAt:${id}`];
    if (typeof at !== 'number') return undefined;
    const launched = servers.filter((p) => p.connectedAt <= at);
    if (launched.length === 0 || launched.some((p) => p.stdinEofAt === undefined || p.stdinEofAt > at)) return undefined;
    ended.push(`${id}: ${launched.map((p) => `process ${p.index}'s stdin closed by the client ${Math.round(at - p.stdinEofAt!)} ms before`).join(', ')}`);
  }
  if (unsent.length === 0) return undefined;
  return `no server process was running when the server was to ping (${ended.join('; ')}): the client ended each launch with its operation, as a client with one launch per operation does, so it is never idle with a server to ping it`;
}

export const pingWhileIdle = defineScenario({
  id: 'stdio/ping-while-idle',
  title: 'The server pings an idle client on its own (after the handshake, and after a call): each ping is answered promptly with an empty result',
  revisions: L,
  requires: [],
  transport: 'stdio',
  source: { spec: ping('2025-11-25', 'either party can initiate a ping; the receiver MUST respond promptly with an empty response', 'MUST') },
  async run({ connect, bounded, stdio, time, observe }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    const answered = (id: string) => () => pingsOf(stdio.record.exchanges).some((p) => p.id === id && p.reply !== undefined);
    for (const [index, id] of IDLE_PINGS.entries()) {
      observe(`pingAt:${id}`, stdio.record.now());
      observe(`sent:${id}`, stdio.send({ jsonrpc: '2.0', id, method: 'ping' }));
      // A reaction time for the answer; the judge says whether it came (and in time).
      await holdsWithin(stdio.record, answered(id), `the answer to ${id}`, time.ms.react);
      if (index === 0) await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'between the pings' }), 'tools/call echo');
    }
  },
  judge(evidence) {
    const { revision } = evidence;
    const pings = pingsOf(evidence.exchanges).filter((p) => (IDLE_PINGS as readonly (string | number)[]).includes(p.id));
    const idle = noProcessWhenIdle(evidence, pings.map((p) => p.id));
    return [
      serverRecorded(evidence),
      precondition(
        'ping-sent',
        ping(revision, 'the receiver MUST respond promptly with an empty response', 'MUST'),
        pings.length === IDLE_PINGS.length,
        pings.length === IDLE_PINGS.length
          ? `the server pinged the idle client ${pings.length} times`
          : idle !== undefined
            ? `the server wrote ${pings.length} of its ${IDLE_PINGS.length} pings: ${idle}`
            : `the server wrote ${pings.length} of its ${IDLE_PINGS.length} pings (the script did not get that far, or no server process was there to write them)`,
        pings.map((p) => p.exchange),
        idle !== undefined ? { by: 'shape' } : {},
      ),
      clientCompleted(evidence, ping(revision, 'a ping leaves the session working', 'MUST')),
      ...pingChecks(evidence, pings, 'with nothing in flight'),
    ];
  },
  doctored: [...PING_PROOFS, serverRecordedProof],
});

/**
 * Pings around the handshake: a server may ping before it answers initialize and before it has received
 * notifications/initialized (lifecycle › Initialization). Over stdio the server writes them when it likes: the
 * personality ping-at-initialize pings as initialize arrives and right after its result.
 */
export const pingAtInitialize = defineScenario({
  id: 'stdio/ping-at-initialize',
  title: 'The server pings the client during the handshake (before the initialize result, and after it before notifications/initialized): each ping is answered promptly with an empty result, and the session works',
  revisions: L,
  requires: [],
  transport: 'stdio',
  source: { spec: lifecycle('2025-11-25', 'initialization', 'Initialization: the server SHOULD NOT send requests other than pings and logging before receiving initialized', 'SHOULD') },
  setup: () => ({ stdio: { personalities: ['ping-at-initialize'] }, state: undefined }),
  async run({ connect, bounded, stdio, time }) {
    const client = await connect();
    await bounded(client.listTools(), 'tools/list');
    // A reaction time for the answers; the judge says whether they came (and in time).
    const answered = () => EARLY_PINGS.every((id) => pingsOf(stdio.record.exchanges).some((p) => p.id === id && p.reply !== undefined));
    await holdsWithin(stdio.record, answered, 'the answers to the handshake pings', time.ms.react);
  },
  judge(evidence) {
    const { revision } = evidence;
    const pings = pingsOf(evidence.exchanges).filter((p) => (EARLY_PINGS as readonly (string | number)[]).includes(p.id));
    return [
      serverRecorded(evidence),
      precondition(
        'ping-sent',
        ping(revision, 'the receiver MUST respond promptly with an empty response', 'MUST'),
        pings.length === EARLY_PINGS.length,
        pings.length === EARLY_PINGS.length ? `the server pinged the client ${pings.length} times during the handshake` : `the server wrote ${pings.length} of its ${EARLY_PINGS.length} handshake pings (no initialize reached it, or the personality did not act)`,
        pings.map((p) => p.exchange),
      ),
      clientCompleted(evidence, lifecycle(revision, 'initialization', 'pings during the handshake leave the connection and the session working', 'MUST')),
      ...pingChecks(evidence, pings, 'during the handshake, before and after the initialize result'),
    ];
  },
  doctored: [...PING_PROOFS, serverRecordedProof],
});
