// The pagination suite across every client of the matrix file (scripts/matrix/define.ts).
import { defineMatrixSuite } from '../define.ts';

defineMatrixSuite('pagination');
