import { describe, expect, it } from 'vitest';
import { DecodeSlots } from '../../src/platform/decode-slots.js';
import { ApiError } from '../../src/platform/http/errors.js';

/** A decode that runs until the test lets it finish. */
function heldDecode(started: string[], label: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    work: () => {
      started.push(label);
      return done;
    },
    finish: () => finish(label),
    fail: () => fail(new Error(`${label} broke`)),
  };
}

/** Lets every promise already settled run its continuations. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the bound on pictures decoded at once', () => {
  it('runs at most `concurrency` decodes, queues the next in order, and refuses past the queue with 503 ImageDecodersBusy', async () => {
    const slots = new DecodeSlots(2, 2);
    const started: string[] = [];
    const decodes = ['a', 'b', 'c', 'd'].map((label) => heldDecode(started, label));
    const results = decodes.map((decode) => slots.run(decode.work));
    // Observed now, so that the one made to fail below is not an unhandled rejection meanwhile.
    const outcomes = Promise.allSettled(results);
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect([slots.active, slots.queued]).toEqual([2, 2]);

    const refused = await slots.run(async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ statusCode: 503, code: 'ImageDecodersBusy', headers: { 'retry-after': '1' } });

    decodes[1]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect([slots.active, slots.queued]).toEqual([2, 1]);

    // A decode that fails gives its slot up as well.
    decodes[0]!.fail();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    decodes[2]!.finish();
    decodes[3]!.finish();
    expect((await outcomes).map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect([slots.active, slots.queued]).toEqual([0, 0]);
  });

  it('with no queue, refuses as soon as every slot is taken', async () => {
    const slots = new DecodeSlots(1, 0);
    const started: string[] = [];
    const first = heldDecode(started, 'first');
    const running = slots.run(first.work);
    await expect(slots.run(async () => 'second')).rejects.toMatchObject({ code: 'ImageDecodersBusy' });
    first.finish();
    await expect(running).resolves.toBe('first');
    await expect(slots.run(async () => 'third')).resolves.toBe('third');
  });
});
