// The reference client that, on connect, starts a setInterval it never clears: in process, it would keep a finished run alive.
import { hostileAdapter } from '../adapters.ts';

export default hostileAdapter({ leaks: 'interval' });
