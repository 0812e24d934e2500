/**
 * The signing lane of an agent key (modules/oms/activities/agent-lane.ts, docs/venues.md §5): at most LANE_WIDTH of
 * its writes in flight, the rest started in arrival order as earlier ones end (a failing one too); another key's
 * writes do not wait for them.
 */
import { describe, expect, it } from 'vitest';
import { enterAgentLane, inAgentLane, LANE_WIDTH } from '../../modules/oms/activities/agent-lane.js';

/** A piece of work that runs until the test ends it (`finish`, or `fail`). */
function piece(log: string[], name: string) {
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const ended = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const work = async () => {
    log.push(name);
    await ended;
    return name;
  };
  return { work, finish, fail };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('agent signing lane', () => {
  it(`runs at most ${LANE_WIDTH} writes of one key at once, starts the rest in arrival order as others end, failures included; another key does not wait`, async () => {
    const started: string[] = [];
    const pieces = Array.from({ length: LANE_WIDTH + 3 }, (_, i) => piece(started, `a${i}`));
    const results = pieces.map((p) => inAgentLane('agent-a', p.work));
    const other = piece(started, 'b0');
    const otherResult = inAgentLane('agent-b', other.work);
    await settle();
    expect(started).toEqual([...pieces.slice(0, LANE_WIDTH).map((_, i) => `a${i}`), 'b0']);

    pieces[3].fail(new Error('venue down'));
    await expect(results[3]).rejects.toThrow('venue down');
    await settle();
    expect(started.at(-1)).toBe(`a${LANE_WIDTH}`);
    pieces[0].finish();
    pieces[1].finish();
    await settle();
    expect(started.slice(-2)).toEqual([`a${LANE_WIDTH + 1}`, `a${LANE_WIDTH + 2}`]);

    other.finish();
    for (const p of pieces) p.finish();
    expect(await otherResult).toBe('b0');
    const settled = await Promise.allSettled(results);
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(LANE_WIDTH + 2);
  });

  it('a place taken before its write is known (routed dispatch) counts as one of the lane, and leaving it twice frees one place', async () => {
    const leaves = await Promise.all(Array.from({ length: LANE_WIDTH }, () => enterAgentLane('agent-c')));
    const started: string[] = [];
    const [first, second] = [piece(started, 'c0'), piece(started, 'c1')];
    const results = [inAgentLane('agent-c', first.work), inAgentLane('agent-c', second.work)];
    await settle();
    expect(started).toEqual([]); // every place is held
    leaves[0]();
    leaves[0](); // a second leave gives up nothing more
    await settle();
    expect(started).toEqual(['c0']);
    leaves[1]();
    await settle();
    expect(started).toEqual(['c0', 'c1']);
    first.finish();
    second.finish();
    expect(await Promise.all(results)).toEqual(['c0', 'c1']);
    for (const leave of leaves) leave();
    // Every place given back: LANE_WIDTH new ones are taken at once.
    const again = await Promise.all(Array.from({ length: LANE_WIDTH }, () => enterAgentLane('agent-c')));
    for (const leave of again) leave();
  });
});
