/**
 * One signing lane per agent key in this process (docs/venues.md §5): the write requests an agent signs (place,
 * cancel, authorisation) — allocate the nonce, sign, send, read the answer — run at most {@link LANE_WIDTH} at a
 * time, the rest waiting in arrival order, so they reach the venue at most that far out of nonce order.
 * Hyperliquid refuses a nonce at or below the smallest of the 100 highest it has kept for the signer (Aster one among
 * its 100 latest): 1,000 orders racing through one key with no lane arrive out of order and some are refused
 * (test/venues/agent-nonces.test.ts); a lane of width one made every order of a busy agent wait for each earlier
 * one's whole venue round trip (issue 15). Across worker processes the allocator (db/agent-nonces.ts) keeps nonces
 * unique and increasing, and the venue's window of 100 absorbs the interleaving of up to 100 / {@link LANE_WIDTH}
 * processes' lanes.
 */

/** How many signed writes of one agent key this process has in flight at most. */
export const LANE_WIDTH = 8;

/** An agent's lane: how many of its writes run, and the starts of those waiting, oldest first. */
interface Lane {
  running: number;
  waiting: (() => void)[];
}

const lanes = new Map<string, Lane>();

/**
 * Takes a place in `agentKey`'s lane once fewer than {@link LANE_WIDTH} earlier holders still hold theirs (in the order
 * the callers arrived) and answers `leave`, which gives it up (to the oldest waiting caller); calling `leave` again
 * does nothing. For a caller whose signed write starts before it knows its order (routed dispatch allocates the nonce
 * beside the intent's record); every other caller uses {@link inAgentLane}.
 */
export async function enterAgentLane(agentKey: string): Promise<() => void> {
  let lane = lanes.get(agentKey);
  if (!lane) lanes.set(agentKey, (lane = { running: 0, waiting: [] }));
  if (lane.running < LANE_WIDTH) lane.running++;
  else await new Promise<void>((start) => lane.waiting.push(start)); // a leaving holder hands over its place
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const next = lane.waiting.shift();
    if (next) next();
    else if (--lane.running === 0) lanes.delete(agentKey);
  };
}

/**
 * Runs `work` once fewer than {@link LANE_WIDTH} earlier pieces of work of `agentKey` are still running (in the order
 * the pieces arrived); returns its result or throws what it throws.
 */
export async function inAgentLane<T>(agentKey: string, work: () => Promise<T>): Promise<T> {
  const leave = await enterAgentLane(agentKey);
  try {
    return await work();
  } finally {
    leave();
  }
}
