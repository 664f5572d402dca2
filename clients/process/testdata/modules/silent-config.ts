// An adapter module: a process adapter config for a program that never prints its hello.
export const processAdapter = {
  command: process.execPath,
  args: ['../misbehaving.ts', '--no-hello'],
  helloTimeoutMs: 300,
};
