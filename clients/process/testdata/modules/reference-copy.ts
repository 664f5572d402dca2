// An adapter module: the reference client under another name (default export, a ClientAdapter).
import { referenceClient } from '../../../reference/index.ts';

export default { ...referenceClient, name: 'my-reference', description: 'the reference client, loaded from a module' };
