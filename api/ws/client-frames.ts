/**
 * The client frames of the WebSocket channels (docs/api.md §6): the ones every channel accepts
 * (`Authenticate { token? }`, `Subscribe { topics }`, `Ping`, `Alive`), `Unsubscribe { topics }`
 * for the channels that take it, and the reading of one raw frame with the channels' answers to a
 * bad one (`invalid_json`, `invalid_frame`).
 */
import { z } from 'zod';

const topics = z.array(z.string());

/** The frames every channel accepts. */
const BASE_FRAMES = [
  z.object({ type: z.literal('Authenticate'), token: z.string().optional() }),
  z.object({ type: z.literal('Subscribe'), topics }),
  z.object({ type: z.literal('Ping') }),
  z.object({ type: z.literal('Alive') }),
] as const;

/** `Unsubscribe { topics }` (the market and quotes channels). */
export const UNSUBSCRIBE_FRAME = z.object({ type: z.literal('Unsubscribe'), topics });

/** A channel's frames: the base frames, then `extra` (each a `z.object` with a literal `type`). */
export function clientFrames<const E extends readonly z.ZodObject<{ type: z.ZodLiteral<string> }>[]>(...extra: E) {
  return z.discriminatedUnion('type', [...BASE_FRAMES, ...extra]);
}

/** A refusal of a raw frame, as the channels answer it in `Result { ok: false, error, detail? }`. */
export interface FrameError {
  error: 'invalid_json' | 'invalid_frame';
  detail?: string;
}

/**
 * Reads one raw frame with `schema`: `{ frame }`, or `{ error: 'invalid_json' }` when it is not
 * JSON, or `{ error: 'invalid_frame', detail: expected }` when it is not one of the frames.
 */
export function readFrame<S extends z.ZodType>(
  schema: S,
  raw: string,
  expected: string,
): { frame: z.output<S> } | FrameError {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { error: 'invalid_json' };
  }
  const r = schema.safeParse(json);
  return r.success ? { frame: r.data } : { error: 'invalid_frame', detail: expected };
}
