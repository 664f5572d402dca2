// An adapter module: a process adapter config with a missing command, a bad argument and a misspelled member.
export const processAdapter = { args: ['driver.py', 42], operationTimeoutMs: -1, comand: 'python3' };
