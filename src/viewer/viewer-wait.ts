/**
 * What a suspended run waits for, as the page's banner shows it: a signal `name`, since `since`,
 * until `timeoutAt` (epoch ms), and the JSON Schema a signal's value must fit. The shape of a run
 * record's `waitingFor`, so the CLI passes it through as read.
 */
export interface ViewerWait {
  readonly name: string;
  readonly since: number;
  readonly timeoutAt?: number;
  readonly schema?: unknown;
}
