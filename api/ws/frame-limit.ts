/**
 * The per-frame inbound rate limit of the WebSocket channels (docs/api.md §6.3 rule 4): at most `frames`
 * client frames per `windowMs` window; `Ping` and `Alive` are exempt (callers do not count them).
 */

/** Default: 30 frames per 10 s window. */
export const FRAME_RATE = { frames: 30, windowMs: 10_000 };

/** A fixed-window counter for one connection. */
export class FrameLimiter {
  private windowStart = 0;
  private count = 0;

  constructor(readonly rate: { frames: number; windowMs: number } = FRAME_RATE) {}

  /** Counts one frame at `now` (Unix ms); false when it exceeds the limit (answer `rate_limited`). */
  take(now = Date.now()): boolean {
    if (now - this.windowStart > this.rate.windowMs) [this.windowStart, this.count] = [now, 0];
    return ++this.count <= this.rate.frames;
  }

  /** The `detail` of a `rate_limited` answer. */
  get detail(): string {
    return `at most ${this.rate.frames} frames per ${this.rate.windowMs / 1000} s (Ping and Alive exempt)`;
  }
}
