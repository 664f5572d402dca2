// The server speaks first (pings during a call) across every client of the matrix file (scripts/matrix/define.ts).
import { defineMatrixSuite } from '../define.ts';

defineMatrixSuite('server-requests');
