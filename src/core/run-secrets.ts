import { setErrorJsonMasker } from '../errors/workflow-error.js';
import type { WorkflowRuntime } from './workflow-runtime.js';
import { SecretMasker } from '../util/secret-masker.js';

// The secrets a run has seen, by root workflow. A secret is never forgotten during a run: once an
// agent call used a token, a later step error or log quoting it is masked as well.
const byRoot = new WeakMap<WorkflowRuntime, SecretMasker>();
// Set once anything was registered in this process: until then masking a run costs one compare.
let anySecrets = false;

/** Adds secrets (an agent call's, a workflow's redacted values) to the run `workflow` belongs to. */
export function addRunSecrets(workflow: WorkflowRuntime, secrets: SecretMasker | Iterable<unknown>): void {
  const values = secrets instanceof SecretMasker ? secrets.secrets : secrets;
  if (Array.isArray(values) && values.length === 0) return;
  const root = workflow.root;
  const current = byRoot.get(root) ?? SecretMasker.NONE;
  const next = current.with(values);
  if (next === current) return;
  byRoot.set(root, next);
  anySecrets = true;
}

/** The masker of the run `workflow` belongs to (`SecretMasker.NONE` when it has no secrets). */
export function runMasker(workflow: WorkflowRuntime): SecretMasker {
  return anySecrets ? (byRoot.get(workflow.root) ?? SecretMasker.NONE) : SecretMasker.NONE;
}

/** `value` with the run's secrets masked; the value itself when the run has none. */
export function maskForRun<T>(workflow: WorkflowRuntime, value: T): T {
  if (!anySecrets) return value;
  const masker = byRoot.get(workflow.root);
  return masker === undefined ? value : masker.value(value);
}

/**
 * Re-parenting: the secrets known to the run of root `from` go along to `to`'s run, so a subtree moved to
 * another root (or detached into its own) keeps masking what it already knew.
 */
export function carryRunSecrets(from: WorkflowRuntime, to: WorkflowRuntime): void {
  if (!anySecrets) return;
  const known = byRoot.get(from);
  if (known !== undefined) addRunSecrets(to, known);
}

// Errors built for a failure in a run, so their JSON form can be masked when it is asked for.
const errorRuns = new WeakMap<object, WorkflowRuntime>();

/** Remembers the run an error was raised in (see `maskForErrorRun`). */
export function bindErrorToRun(error: object, workflow: WorkflowRuntime): void {
  errorRuns.set(error, workflow);
}

/** `value` (an error's JSON form) with the secrets of the error's run masked. */
function maskForErrorRun<T>(error: object, value: T): T {
  const workflow = errorRuns.get(error);
  return workflow === undefined ? value : maskForRun(workflow, value);
}

// WorkflowError.toJSON masks with the secrets of the error's run.
setErrorJsonMasker(maskForErrorRun);
