// Every built-in adapter, by name.
import type { ClientAdapter } from './adapter.ts';
import { brokenVariants, referenceClient, type BrokenVariant } from './reference/index.ts';
import { shapedReferences } from './reference/shapes.ts';
import { sdkV1Sse, sdkV1StreamableHttp } from './sdk-v1.ts';
import { sdkV2Auto, sdkV2Legacy, sdkV2Pinned } from './sdk-v2.ts';

/** The adapters `npm test` judges against their baselines. */
export const BUILT_IN_ADAPTERS: readonly ClientAdapter[] = [referenceClient, sdkV1StreamableHttp, sdkV1Sse, sdkV2Legacy, sdkV2Auto, sdkV2Pinned];

/** Deliberately wrong clients that prove every check can fail. */
export const BROKEN_ADAPTERS: readonly BrokenVariant[] = brokenVariants;

/** Correct clients of other shapes (session per operation, lazy connect, a fresh session after an error): every scenario they apply to must pass. */
export const SHAPED_ADAPTERS: readonly ClientAdapter[] = shapedReferences;

export function findAdapter(name: string): ClientAdapter | undefined {
  return [...BUILT_IN_ADAPTERS, ...BROKEN_ADAPTERS, ...SHAPED_ADAPTERS].find((adapter) => adapter.name === name);
}
