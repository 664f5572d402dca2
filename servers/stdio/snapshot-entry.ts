// The stdio program as a startup snapshot's entry (bundle.ts builds the snapshot from this file, bundled): the program
// and the era's server, the official SDK included, are loaded while the snapshot is built, so a launch deserializes
// them instead of evaluating the SDK again, about half the CPU of a launch. A target starts it as
// `<node> --snapshot-blob <blob> <bundle>/main.js --era <era> …`: the file after the options is the program's name in
// argv, never loaded (the wrapper personality launches it again with the same Node options), so the program reads
// the same argv whichever way it was started.
import { startupSnapshot } from 'node:v8';
import { main } from './program.ts';
import { warmUp } from './serve.ts';

// The era's server loaded now, not at the first launch's dynamic import, and each era run once (the snapshot is taken
// when the event loop is empty): the snapshot holds it all built.
void warmUp();
startupSnapshot.setDeserializeMainFunction(() => void main(process.argv[1]!));
