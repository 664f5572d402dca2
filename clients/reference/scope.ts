// The scope the reference client asks for in its first authorization (2025-11-25 on, Scope Selection Strategy): the
// challenge's `scope`, else every scope of the Protected Resource Metadata's `scopes_supported`, else no `scope` at all.
import type { ReferenceRules } from './rules.ts';

const listed = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : undefined);

/**
 * `challengeScope`: the 401's `scope`; `resourceMetadata`: the Protected Resource Metadata; `serverMetadata`: the
 * authorization server's (read only by the broken variant that takes its `scopes_supported` for the resource's).
 */
export function selectScope(rules: Pick<ReferenceRules, 'scopeFromChallenge' | 'scopeFromResourceMetadata'>, challengeScope: string | undefined, resourceMetadata: Record<string, unknown>, serverMetadata: object): string | undefined {
  const resourceScopes = rules.scopeFromResourceMetadata ? listed(resourceMetadata['scopes_supported']) : listed((serverMetadata as Record<string, unknown>)['scopes_supported']);
  const fallback = resourceScopes?.join(' ');
  return rules.scopeFromChallenge ? (challengeScope ?? fallback) : (fallback ?? challengeScope);
}
