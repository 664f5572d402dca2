// The reference client whose callTool() never settles: run out of process by the Node driver, a program that stops
// answering in the middle of a case while everything before it reached the server for real.
import { hostileAdapter } from '../adapters.ts';

export default hostileAdapter({ hangs: 'callTool' });
