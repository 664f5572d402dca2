// Shard 2 of the exhaustive proof (suites/exhaustive.ts; skipped, saying so, unless MCP_CONFORMANCE_EXHAUSTIVE=1).
import { exhaustiveProof } from './exhaustive.ts';

exhaustiveProof(2);
