/**
 * What a waiting reservation does when its queue is woken: `'stay'` (still blocked here: the
 * queue stops), `'done'` (sent or failed: it leaves), or another queue it now waits in.
 */
export type WaiterStep = 'stay' | 'done' | WaitQueue;

/** A reservation waiting in a queue; `ticket` orders it among every waiter of the process. */
export interface Waiter {
  readonly ticket: number;
  /** Tries to reserve again, synchronously. */
  retry(): WaiterStep;
}

let lastTicket = 0;

/** A new ticket: later than every earlier one. */
export function nextTicket(): number {
  lastTicket += 1;
  return lastTicket;
}

// The ticket of the waiter retrying right now (`WaitQueue.wake` sets it around a retry), so the
// reservation it makes stands behind older waiters only; anything else is a newcomer and stands
// behind all of them. Set and cleared synchronously: no other code runs in between.
let retrying = Number.POSITIVE_INFINITY;

/**
 * Reservations waiting for one budget (or for a model's first answer), oldest first. Woken when
 * what they wait for changes; the oldest tries first, and a newer one never goes before an older
 * one still blocked here.
 */
export class WaitQueue {
  private readonly waiters: Waiter[] = [];
  private waking = false;

  /** Whether a reservation holding `ticket` must stand behind a waiter here. */
  ahead(ticket = retrying): boolean {
    const head = this.waiters[0];
    return head !== undefined && head.ticket < ticket;
  }

  get size(): number {
    return this.waiters.length;
  }

  add(waiter: Waiter): void {
    let at = this.waiters.length;
    while (at > 0 && (this.waiters[at - 1] as Waiter).ticket > waiter.ticket) at -= 1;
    this.waiters.splice(at, 0, waiter);
  }

  /** Takes `waiter` out (it was cancelled) and lets the next ones try. */
  remove(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    this.waiters.splice(at, 1);
    if (at === 0) this.wake();
  }

  /** Lets waiters try again, oldest first, until one is still blocked here. */
  wake(): void {
    if (this.waking) return;
    this.waking = true;
    try {
      for (let head = this.waiters[0]; head !== undefined; head = this.waiters[0]) {
        const step = retryAs(head);
        if (step === 'stay' || step === this) break;
        // By identity: a retry's events may have let an observer cancel a waiter meanwhile.
        const at = this.waiters.indexOf(head);
        if (at >= 0) this.waiters.splice(at, 1);
        if (step !== 'done') step.add(head);
      }
    } finally {
      this.waking = false;
    }
  }
}

function retryAs(waiter: Waiter): WaiterStep {
  const outer = retrying;
  retrying = waiter.ticket;
  try {
    return waiter.retry();
  } finally {
    retrying = outer;
  }
}
