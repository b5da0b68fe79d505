/** Background jobs and expiry take a clock so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private t = new Date('2026-01-15T12:00:00.000Z')) {}
  now() { return new Date(this.t); }
  advance(ms: number) { this.t = new Date(this.t.getTime() + ms); }
  set(d: Date) { this.t = new Date(d); }
}
