/**
 * Crash points for durability tests (issue 3 "Durability, proved"): with
 * `FAULT_CRASH=<before|after>:<activityName>:<n>` the worker process kills itself (SIGKILL, no
 * cleanup) just before the n-th execution of that activity starts, or just after it returns and
 * before Temporal hears of it. Off unless the variable is set; never set in production.
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * The activity interceptor for `spec` (config.faultCrash, from FAULT_CRASH; config.ts validates its
 * shape and NODE_ENV=production refuses it), or none when null.
 */
export function faultInjection(spec: string | null): ActivityInterceptorsFactory[] {
  const m = spec ? /^(before|after):(\w+):(\d+)$/.exec(spec) : null;
  if (!m) return [];
  const [, when, activity, nth] = m;
  let seen = 0;
  const die = () => process.kill(process.pid, 'SIGKILL');
  return [
    (ctx) => ({
      inbound: {
        async execute(input, next) {
          const hit = ctx.info.activityType === activity && ++seen === Number(nth);
          if (hit && when === 'before') die();
          const result = await next(input);
          if (hit && when === 'after') die();
          return result;
        },
      },
    }),
  ];
}
