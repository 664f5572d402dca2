// The reference client as adapters, and its broken variants: each flips exactly one rule and is named for it.
import { FEATURES, TRANSPORTS, type ClientAdapter, type Feature, type Transport } from '../adapter.ts';
import { ReferenceClient, type ReferenceClientOptions } from './client.ts';
import { REFERENCE_REVISIONS } from './protocol.ts';
import { SPEC_RULES, withRuleBroken, type ReferenceRules, type RuleName } from './rules.ts';
import { VARIANT_SPECS, type VariantSpec } from './variants.ts';

export { ReferenceClient, type ReferenceClientOptions } from './client.ts';
export { REFERENCE_REVISIONS } from './protocol.ts';
export { RULES, SPEC_RULES, withRuleBroken, type ReferenceRules, type RuleName } from './rules.ts';
export { RULES_AWAITING_SCENARIOS, VARIANT_SPECS, type VariantSpec } from './variants.ts';

/** Every feature of the contract: the reference client implements them all. */
export const REFERENCE_FEATURES = Object.keys(FEATURES) as Feature[];

/** Every transport of the contract: HTTP and stdio. */
export const REFERENCE_TRANSPORTS = Object.keys(TRANSPORTS) as Transport[];

/** A fresh reference client instance (what `start()` returns). */
export function createReferenceClient(options: ReferenceClientOptions = {}): ReferenceClient {
  return new ReferenceClient(options);
}

function referenceAdapter(name: string, description: string, rules: ReferenceRules): ClientAdapter {
  return {
    name,
    description,
    revisions: REFERENCE_REVISIONS,
    features: REFERENCE_FEATURES,
    transports: REFERENCE_TRANSPORTS,
    start: async () => createReferenceClient({ rules }),
  };
}

/** A broken variant: the adapter, the rule it flips and the scenarios it is meant to fail. */
export interface BrokenVariant extends ClientAdapter {
  readonly rule: RuleName;
  readonly breaks: readonly string[];
  readonly only?: VariantSpec['only'];
  readonly unreached?: VariantSpec['unreached'];
  readonly shaped?: VariantSpec['shaped'];
}

export const referenceClient: ClientAdapter = referenceAdapter(
  'reference',
  "Spec-correct reference client (undici; child processes for stdio): 2024-11-05 … 2026-07-28, negotiation legacy (default) | auto | pin, every feature, over HTTP and stdio",
  SPEC_RULES,
);

/** Broken variants, each paired with the one rule it breaks. */
export const brokenVariants: readonly BrokenVariant[] = VARIANT_SPECS.map((spec) => ({
  ...referenceAdapter(spec.name, spec.description, withRuleBroken(spec.rule)),
  rule: spec.rule,
  breaks: spec.breaks,
  ...(spec.only ? { only: spec.only } : {}),
  ...(spec.unreached ? { unreached: spec.unreached } : {}),
  ...(spec.shaped ? { shaped: spec.shaped } : {}),
}));
