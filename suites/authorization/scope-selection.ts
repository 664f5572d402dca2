// Scope selection (2025-11-25 on, Authorization › Scope Selection Strategy): the scope a client asks for in its first
// authorization is the challenge's `scope`, else every scope of the Protected Resource Metadata's `scopes_supported`,
// else none (no `scope` parameter). Three scenarios, one per step of that order, the official suite's
// auth/scope-from-www-authenticate, auth/scope-from-scopes-supported and auth/scope-omitted-when-undefined.
import type { Revision } from '../../protocol/revisions.ts';
import { AUTH_NOTES, type ProtectedResourceOptions } from '../../servers/authorization/protected-resource.ts';
import { FIXTURE_TOOLS } from '../../servers/fixtures.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, clientCompleted, precondition } from '../checks.ts';
import { defineScenario, type Evidence, type Scenario } from '../scenario.ts';
import { authorization, sendingMessages } from '../spec.ts';
import { label, noted } from '../wire.ts';
import { authorizationLane, protectedSetup, type Protected } from './support.ts';

/** The revisions with a Scope Selection Strategy. */
export const SCOPE_REVISIONS = ['2025-11-25', '2026-07-28'] as const satisfies readonly Revision[];

/** The resource's scopes: more than one, so "every scope" and "the challenged one" differ. */
export const RESOURCE_SCOPES = ['mcp:basic', 'mcp:read', 'mcp:write'] as const;
/** The scope the challenge names: one of them. */
export const CHALLENGED_SCOPE = 'mcp:basic';

/** The first authorization request the authorization server received (a GET carrying response_type), and its query. */
export function firstAuthorizationRequest(evidence: Pick<Evidence, 'authorization'>): { exchange: WireExchange; query: URLSearchParams } | undefined {
  for (const exchange of authorizationLane(evidence)) {
    const query = new URLSearchParams(exchange.path.split('?')[1] ?? '');
    if (exchange.method === 'GET' && query.has('response_type')) return { exchange, query };
  }
  return undefined;
}

/**
 * The resource scopes asked for, as a set. `offline_access` is left aside: a scope for a refresh token, not for the
 * resource, which a client MAY add when the authorization server's metadata lists it (2026-07-28 Token Handling; this
 * suite's does), and a client authorizes on the 401 to its first request, before it knows the server's revision.
 */
export function requestedScopes(query: URLSearchParams): string[] {
  return [...new Set((query.get('scope') ?? '').split(' ').filter((s) => s !== '' && s !== 'offline_access'))].sort();
}

interface ScopeCase {
  id: string;
  title: string;
  setup: ProtectedResourceOptions;
  /** The check's name, and the scopes it expects (sorted; empty: no scope parameter). */
  check: string;
  expected: readonly string[];
  rule: string;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((s, i) => s === b[i]);
const shown = (scopes: readonly string[]) => (scopes.length === 0 ? 'no scope' : `scope "${scopes.join(' ')}"`);

function scopeScenario(spec: ScopeCase): Scenario {
  return defineScenario<Protected>({
    id: spec.id,
    title: spec.title,
    revisions: SCOPE_REVISIONS,
    requires: ['oauth'],
    source: { spec: authorization('2025-11-25', 'scope-selection-strategy', 'Scope Selection Strategy', 'SHOULD') },
    setup: () => protectedSetup({ ...spec.setup, authorization: { scopes: RESOURCE_SCOPES } }),
    async run({ connect, bounded, state }) {
      const client = await connect({ authorization: state.resource.clientAuthorization() });
      await bounded(client.callTool(FIXTURE_TOOLS.echo, { text: 'authorized' }), 'tools/call once authorized');
      await bounded(client.close(), 'close');
    },
    judge(evidence) {
      const { revision } = evidence;
      const challenged = noted(evidence.exchanges, AUTH_NOTES.noToken)[0];
      const request = firstAuthorizationRequest(evidence);
      const asked = request === undefined ? undefined : requestedScopes(request.query);
      const challengedNote = challenged === undefined ? [] : [challenged];
      return [
        precondition(
          'challenged',
          authorization(revision, 'error-handling', 'a request without a token is answered 401 with a Bearer challenge', 'MUST'),
          challenged !== undefined,
          challenged === undefined ? 'no request was answered 401 for want of a token: the server did not act' : `${label(challenged)} was answered 401 (${challenged.responseHeaders['www-authenticate'] ?? 'no challenge'})`,
          challengedNote,
        ),
        clientCompleted(evidence, sendingMessages(revision, 'the script runs to its end', 'MUST')),
        check(
          spec.check,
          authorization(revision, 'scope-selection-strategy', spec.rule, 'SHOULD'),
          asked !== undefined && sameSet(asked, spec.expected),
          asked === undefined
            ? 'the client sent no authorization request to the authorization server'
            : `the first authorization request asked for ${shown(asked)} (offline_access aside); expected ${shown(spec.expected)}`,
          challengedNote,
        ),
      ];
    },
    doctored: [
      {
        check: 'challenged',
        unmet: true,
        how: 'no 401 for want of a token (the personality did not act)',
        doctor: (e) => ({ ...e, exchanges: e.exchanges.map((x) => ({ ...x, notes: x.notes.filter((n) => n !== AUTH_NOTES.noToken) })) }),
      },
      {
        check: spec.check,
        how: 'no authorization request on the authorization server',
        doctor: (e) => ({ ...e, authorization: e.authorization === undefined ? undefined : { ...e.authorization, exchanges: e.authorization.exchanges.filter((x) => !x.path.includes('response_type=')) } }),
      },
    ],
  });
}

export const scopeFromChallenge = scopeScenario({
  id: 'authorization/scope-from-challenge',
  title: "The first authorization asks for the challenge's scope",
  setup: { challengeScope: CHALLENGED_SCOPE },
  check: 'challenged-scope-requested',
  expected: [CHALLENGED_SCOPE],
  rule: "the scope the challenge names, when it names one (priority 1: not the metadata's scopes_supported)",
});

export const scopeFromMetadata = scopeScenario({
  id: 'authorization/scope-from-metadata',
  title: "Without a challenged scope, the first authorization asks for every scope the resource's metadata lists",
  setup: {},
  check: 'metadata-scopes-requested',
  expected: [...RESOURCE_SCOPES].sort(),
  rule: "without a challenged scope, every scope of the Protected Resource Metadata's scopes_supported (priority 2)",
});

export const scopeOmitted = scopeScenario({
  id: 'authorization/scope-omitted',
  title: 'With no scope challenged or listed, the first authorization asks for none',
  setup: { scopesInMetadata: false },
  check: 'scope-omitted',
  expected: [],
  rule: 'with neither a challenged scope nor scopes_supported, no scope parameter',
});
