/**
 * The kit's background loops that the parts queue work for, by name. A part that queued something
 * wakes the loop that does it, and that one only: a loop woken with nothing to do still costs a
 * claim (a round trip on PostgreSQL).
 */
export type KitLoop = 'invitation starter' | 'product canceller' | 'mail sender' | 'report delivery';

/** The loops a committed change left work for (the lifecycle's changes say which: lifecycle.ts). */
export type Queued = readonly KitLoop[];

/**
 * Named wake-up calls between the parts that queue work and the background loops that do it: a
 * part is given `kick` before the loops exist, and each loop, once started, answers to its name.
 * A kick for a loop not running (a test that drives the workers by hand) does nothing: the work is
 * in the database, and the loop's next poll finds it.
 */
export function wakeups() {
  const loops = new Map<string, { kick(): void }>();
  return {
    /** Wakes the loop of that name, if one runs. */
    kick(name: string): void {
      loops.get(name)?.kick();
    },
    /** The loop that answers to `name` from now on. */
    answer(name: string, loop: { kick(): void }): void {
      loops.set(name, loop);
    },
  };
}
