// An adapter module: a named export `adapter` that is an async function returning a ClientAdapter.
import { referenceClient } from '../../../reference/index.ts';

export async function adapter() {
  return { ...referenceClient, name: 'from-factory' };
}
