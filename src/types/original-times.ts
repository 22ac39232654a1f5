/**
 * When a part of a durable run that a resume replays (a settled step, a completed agent call) ran,
 * in the process that ran it: epoch ms by the run's clock.
 */
export interface OriginalTimes {
  readonly startedAt: number;
  readonly endedAt: number;
}
