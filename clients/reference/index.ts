// The reference client as adapters, and its broken variants: each flips exactly one rule and is named for it.
import { stateless, type ClientAdapter } from '../adapter.ts';
import { connectReference, REFERENCE_REVISIONS, SPEC_RULES, type ReferenceRules } from './client.ts';

function referenceAdapter(name: string, description: string, rules: ReferenceRules): ClientAdapter {
  return {
    name,
    description,
    revisions: REFERENCE_REVISIONS,
    features: ['mode-legacy'],
    start: stateless((url, options) => connectReference(url, rules, options.timeoutMs)),
  };
}

export const referenceClient = referenceAdapter('reference', 'Spec-correct reference client (undici)', SPEC_RULES);

/** Broken variants, each paired with the one rule it breaks. */
export const brokenVariants: readonly ClientAdapter[] = [
  referenceAdapter('broken-skips-initialized', 'Reference client that never sends notifications/initialized', {
    ...SPEC_RULES,
    sendInitializedNotification: false,
  }),
  referenceAdapter('broken-omits-version-header', 'Reference client that never sends MCP-Protocol-Version', {
    ...SPEC_RULES,
    sendProtocolVersionHeader: false,
  }),
  referenceAdapter('broken-never-deletes', 'Reference client that never DELETEs its session', {
    ...SPEC_RULES,
    deleteSessionOnClose: false,
  }),
];
