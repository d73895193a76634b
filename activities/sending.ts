import type { Context } from '@temporalio/activity';

/**
 * Whether an attempt has begun to send its request: the fleet-health wrapper asks when the attempt ends cancelled
 * or lost, to give back at once a probe that never went out (else the fleet's one probe would be held until a
 * cool-down later). Kept by the activity's context, weakly: gone with the activity.
 */
const sending = new WeakSet<Context>();

/** Called right before the provider is asked. */
export function markSending(ctx: Context): void {
  sending.add(ctx);
}

export function hasBegunSending(ctx: Context): boolean {
  return sending.has(ctx);
}
