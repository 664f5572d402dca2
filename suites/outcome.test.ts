// startCall's one judgement: a call that settled before its handler was seen never reached it — unless the news of
// the run was still on its way (over stdio the runs travel on the side channel, apart from the answer the client read).
import { expect, test } from 'vitest';
import { FixtureState } from '../servers/fixture-state.ts';
import { startCall } from './outcome.ts';

const unbounded = <T,>(operation: Promise<T>) => operation;

test('an answer that overtook the news of its run is a call that reached its handler', async () => {
  const fixtures = new FixtureState();
  fixtures.catchUp = async () => void fixtures.start('slow', 1);
  const watched = await startCall(fixtures, unbounded, Promise.resolve('completed'), 'slow', 'the slow call');
  expect(watched.since(0).state).toBe('resolved');
});

test('a call that settled with no run behind it never reached its handler', async () => {
  const fixtures = new FixtureState();
  await expect(startCall(fixtures, unbounded, Promise.resolve('completed'), 'slow', 'the slow call')).rejects.toThrow('the slow call settled before its handler started');
});
