// The reference client that, on connect, opens four bare TCP connections to the server and never closes them.
import { hostileAdapter } from '../adapters.ts';

export default hostileAdapter({ leaks: 'raw-sockets', count: 4 });
