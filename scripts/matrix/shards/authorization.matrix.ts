// The authorization suite across every client of the matrix file (scripts/matrix/define.ts); a client that declares
// no oauth gets n/a for each case, with that reason.
import { defineMatrixSuite } from '../define.ts';

defineMatrixSuite('authorization');
