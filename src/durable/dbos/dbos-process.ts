import { UsageError } from '../../errors/groundswell-error.js';
import type { DbosQueueLike } from './dbos-like.js';

/**
 * What `dbosWorker` and `dbosLauncher` use of DBOS Transact's `DBOS` class (passed by the user,
 * so this entry neither imports nor types the SDK). @public
 */
export interface DbosProcessLike {
  setConfig(config: {
    name: string;
    systemDatabaseUrl?: string;
    executorID?: string;
    applicationVersion?: string;
    logLevel?: string;
    listenQueues?: string[];
  }): void;
  launch(): Promise<void>;
  registerQueue(name: string, options?: { workerConcurrency?: number; globalConcurrency?: number; minPollingIntervalMs?: number }): Promise<unknown>;
}

/** A queue children run on, and how many each worker takes at a time. @public */
export interface DbosQueue extends DbosQueueLike {
  /** Children of this queue one worker runs at a time (default: no limit). */
  readonly workerConcurrency?: number;
  /** Children of this queue all workers run at a time (default: no limit). */
  readonly globalConcurrency?: number;
}

/** @public */
export interface DbosProcessOptions {
  /** The DBOS application name: the same in every process of the application. */
  readonly name: string;
  /** The DBOS system database (PostgreSQL), the same in every process. */
  readonly systemDatabaseUrl: string;
  /**
   * This process's own id, different in every process: DBOS recovers a dead process's runs
   * when a process with its id starts again, and a shared id would take over a live one's.
   */
  readonly executorID: string;
  /** The queues children go on; every process registers them. */
  readonly queues: readonly DbosQueue[];
  /** How often a worker looks at a queue when nothing woke it, in ms (default 100; DBOS's own is 1 s). */
  readonly pollingIntervalMs?: number;
  readonly applicationVersion?: string;
  /** DBOS's log level (default "warn"). */
  readonly logLevel?: string;
}

const POLLING_INTERVAL_MS = 100;

/** A process that runs children: configures DBOS, launches it (recovering this executor's runs) and registers the queues. */
export function dbosWorker(dbos: DbosProcessLike, options: DbosProcessOptions): Promise<void> {
  return launchProcess(dbos, options, undefined);
}

/** A process that starts runs and takes no children itself (it listens to no queue). */
export function dbosLauncher(dbos: DbosProcessLike, options: DbosProcessOptions): Promise<void> {
  return launchProcess(dbos, options, []);
}

async function launchProcess(dbos: DbosProcessLike, options: DbosProcessOptions, listenQueues: string[] | undefined): Promise<void> {
  if (options.executorID === '' || options.executorID === 'local') {
    throw new UsageError(`DBOS executorID "${options.executorID}": give every process its own id (DBOS's default "local" is every process's).`);
  }
  dbos.setConfig({
    name: options.name,
    systemDatabaseUrl: options.systemDatabaseUrl,
    executorID: options.executorID,
    logLevel: options.logLevel ?? 'warn',
    ...(options.applicationVersion !== undefined ? { applicationVersion: options.applicationVersion } : {}),
    ...(listenQueues !== undefined ? { listenQueues } : {}),
  });
  await dbos.launch();
  // After launch, as DBOS 5 takes queue registrations.
  for (const queue of options.queues) {
    await dbos.registerQueue(queue.name, {
      ...(queue.workerConcurrency !== undefined ? { workerConcurrency: queue.workerConcurrency } : {}),
      ...(queue.globalConcurrency !== undefined ? { globalConcurrency: queue.globalConcurrency } : {}),
      minPollingIntervalMs: options.pollingIntervalMs ?? POLLING_INTERVAL_MS,
    });
  }
}
