// The stdio suite across every client of the matrix file (scripts/matrix/define.ts): n/a for a client that does not
// declare the stdio transport.
import { defineMatrixSuite } from '../define.ts';

defineMatrixSuite('stdio');
