// Time enters the engine only through a Clock, so tests can move it.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until a test moves it. */
export class ManualClock implements Clock {
  private currentMs: number;
  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.currentMs = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.currentMs);
  }
  advance(ms: number): void {
    this.currentMs += ms;
  }
  set(at: Date | string): void {
    this.currentMs = new Date(at).getTime();
  }
}
