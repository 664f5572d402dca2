// The reference client whose connect() throws synchronously (it is not an async function).
import { hostileAdapter } from '../adapters.ts';

export default hostileAdapter({ throws: 'connect' });
