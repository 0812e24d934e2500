/**
 * One signing lane per agent key in this process (docs/venues.md §5): the write requests an
 * agent signs (place, cancel, authorisation) run one after another — allocate the nonce, sign,
 * send, read the answer — so they reach the venue in nonce order. Hyperliquid refuses a nonce at
 * or below the smallest of the 100 highest it has kept for the signer; 1,000 orders racing through
 * one key without a lane arrive out of order and some are refused (test/venues/agent-nonces.test.ts).
 * Across worker processes the allocator (db/agent-nonces.ts) keeps nonces unique and increasing,
 * and the venue's window of 100 absorbs the interleaving.
 */

const lanes = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier piece of work of `agentKey` has settled; returns its result. */
export function inAgentLane<T>(agentKey: string, work: () => Promise<T>): Promise<T> {
  const previous = lanes.get(agentKey) ?? Promise.resolve();
  const next = previous.then(work, work);
  const tail = next.catch(() => undefined);
  lanes.set(agentKey, tail);
  void tail.then(() => {
    if (lanes.get(agentKey) === tail) lanes.delete(agentKey);
  });
  return next;
}
