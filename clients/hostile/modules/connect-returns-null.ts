// The reference client whose connect() resolves to null instead of a connection.
import { hostileAdapter } from '../adapters.ts';

export default hostileAdapter({ returns: 'connect-null' });
