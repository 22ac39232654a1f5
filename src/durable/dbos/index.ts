// `groundswell/dbos`: runs on DBOS Transact. A run is a DBOS workflow, its steps and
// agent calls DBOS steps; children run on worker processes through DBOS queues, and their events
// reach the launcher's tree. The user passes their own `DBOS` (`@dbos-inc/dbos-sdk`, an optional
// peer), so this entry never loads the SDK.
export { dbosWorkflows } from './dbos-workflows.js';
export { dbosChildren } from './dbos-children.js';
export type { DbosChildrenOptions } from './dbos-children-options.js';
export { dbosLauncher, dbosWorker } from './dbos-process.js';
export type { DbosProcessLike, DbosProcessOptions, DbosQueue } from './dbos-process.js';
export type { DbosRunOptions, DbosWorkflows, DbosWorkflowsOptions, DbosFactoryInput, DbosFactoryResult, DbosWorkflowFactory } from './dbos-workflows.js';
export type { DbosHandleLike, DbosLike, DbosQueueLike } from './dbos-like.js';
export type { DbosBudgetAccountsOptions } from './budget-accounts.js';
export { DbosReplayError } from './dbos-errors.js';

// Agents made through this entry (the judge, the drafter, workers' calls) get the same features.
import { installFeatures } from '../../install.js';
installFeatures();
