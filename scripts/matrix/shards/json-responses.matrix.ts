// The scenarios against a server answering application/json instead of a stream, across every client of the matrix file (scripts/matrix/define.ts).
import { defineMatrixSuite } from '../define.ts';

defineMatrixSuite('json-responses');
