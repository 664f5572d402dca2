// What the scenarios of a request refused mid-session share (a GET stream, a resuming GET): the request the client
// sent again for it once it had a new token, and the checks that it did so once, in the same session, with no new
// initialize. (token-expiry-keeps-session judges a POST's the same way, with its own re-send query.)
import { AUTH_NOTES } from '../../servers/authorization/protected-resource.ts';
import type { WireExchange } from '../../servers/wire-record.ts';
import { check, unexercised } from '../checks.ts';
import type { Check, Evidence, SpecRef } from '../scenario.ts';
import { label, labels, sessionOf } from '../wire.ts';
import { bearerOf, tokenRequests } from './support.ts';

/** The first request refused 401 because its token expired that `pick` chooses, and the next one it chose that was accepted. */
export function refusedAndRetried(evidence: Evidence, pick: (exchange: WireExchange) => boolean) {
  const refused = evidence.exchanges.find((x) => pick(x) && x.notes.includes(AUTH_NOTES.expired));
  const retry = refused === undefined ? undefined : evidence.exchanges.find((x) => x.seq > refused.seq && pick(x) && x.notes.includes(AUTH_NOTES.accepted));
  return { refused, retry, session: refused === undefined ? undefined : sessionOf(refused) };
}

/**
 * The request sent again after one renewal: with a new token, accepted (`sentAgain`); in the session it belonged to,
 * with its negotiated version, and no initialize anywhere after the refusal (`same-session-kept`); one token request
 * for the expiry (`renewed-once`).
 */
export function renewalChecks(evidence: Evidence, refused: WireExchange | undefined, retry: WireExchange | undefined, rules: { sentAgain: { name: string; spec: SpecRef; what: string }; session: SpecRef; once: SpecRef }): Check[] {
  if (refused === undefined) {
    const why = `${rules.sentAgain.what} was never refused as expired`;
    return [unexercised(rules.sentAgain.name, rules.sentAgain.spec, why), unexercised('same-session-kept', rules.session, why), unexercised('renewed-once', rules.once, why)];
  }
  const session = sessionOf(refused);
  const reinitialized = evidence.exchanges.filter((x) => x.seq > refused.seq && x.requestMessages.some((m) => m.method === 'initialize'));
  const renewals = tokenRequests(evidence).slice(1);
  const version = (x: WireExchange) => x.requestHeaders['mcp-protocol-version'];
  return [
    check(
      rules.sentAgain.name,
      rules.sentAgain.spec,
      retry !== undefined && bearerOf(retry) !== bearerOf(refused),
      retry === undefined ? `${label(refused)} was refused as expired, and ${rules.sentAgain.what} was never sent again and accepted` : `${label(retry)} sent ${rules.sentAgain.what} again with a new token, and was accepted`,
      retry === undefined ? [refused] : [refused, retry],
    ),
    check(
      'same-session-kept',
      rules.session,
      retry !== undefined && sessionOf(retry) === session && reinitialized.length === 0 && version(retry) === version(refused),
      retry === undefined
        ? `${rules.sentAgain.what} was never sent again and accepted${reinitialized.length > 0 ? `; a new initialize came instead (${labels(reinitialized)})` : ''}`
        : reinitialized.length > 0
          ? `a new initialize (${labels(reinitialized)}) came after the refusal`
          : sessionOf(retry) !== session
            ? `${label(retry)} carried session ${sessionOf(retry) ?? 'none'}, not ${session}`
            : version(retry) !== version(refused)
              ? `${label(retry)} carried MCP-Protocol-Version ${version(retry) ?? '(none)'}, not ${version(refused)}`
              : `${label(retry)} went in session ${session} with its version, and no initialize came after the refusal`,
      [refused, ...reinitialized, ...(retry ? [retry] : [])],
    ),
    check('renewed-once', rules.once, renewals.length === 1, `${renewals.length} token request(s) after the first authorization (${renewals.map((r) => r.grant).join(', ') || 'none'})`),
  ];
}
