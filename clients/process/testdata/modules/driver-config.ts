// An adapter module: a process adapter config for the Node driver wrapping SDK v1 (cwd resolves against this
// module's folder; the program runs on the harness's own Node, which strips types).
export const processAdapter = {
  command: process.execPath,
  args: ['driver.ts', '--adapter', 'sdk-v1'],
  cwd: '../../../drivers/node',
};
