import { observedFieldsOf, type ObservedField } from '../../core/observed-fields.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { WorkflowRuntime } from '../../core/workflow-runtime.js';
import { encodeJson } from '../store/encode-json.js';
import { RunValueError } from '../store/run-store-errors.js';
import type { StepRecord } from '../store/stored-records.js';

/** What a step record keeps of its workflow's `@ObservedState` fields. */
export type StepStateFields = Pick<StepRecord, 'state' | 'stateUnset'>;

/**
 * A field as a step found it: its JSON text, or (a value JSON cannot hold) the value itself,
 * compared by identity: a change inside such a value cannot be seen, a new value can.
 */
type Found = string | { readonly value: unknown };

const NOTHING: StepStateFields = Object.freeze({});

/**
 * The `@ObservedState` fields of one durable run's workflows across its steps: each settled step
 * records the fields it changed, as it left them, and its replay writes them back, so code after
 * a replayed step reads what it read after the live one.
 *
 * Only changed fields are kept: a field no step touches (a client, a Map filled in the
 * constructor) is never asked to be JSON, and concurrent steps do not record each other's
 * untouched fields. Where two replayed steps changed the same field, the one written later wins,
 * whatever order the code starts them in.
 */
export class StepStates {
  private readonly before = new WeakMap<TreeNode, Map<string, Found>>();
  // Per workflow and field: the rank of the record whose value it holds now.
  private readonly restored = new WeakMap<object, Map<string, number>>();
  private ranks = new WeakMap<StepRecord, number>();

  /** `records` in the order the store wrote them (what `loadRun` gives, then this process's). */
  constructor(private readonly records: ReadonlyMap<string, StepRecord>) {}

  /** A step's body is about to run: notes how it finds the fields. */
  starting(workflow: WorkflowRuntime, node: TreeNode): void {
    const fields = observedFieldsOf(workflow);
    if (fields.length === 0) return;
    const found = new Map<string, Found>();
    for (const field of fields) {
      const read = readField(field, workflow);
      if (read !== undefined) found.set(fieldName(field), foundAs(read.value));
    }
    this.before.set(node, found);
  }

  /**
   * The fields the step changed, as JSON copies (a later change of the live object does not reach
   * the record). A value JSON cannot hold, and a changed redacted field (a secret the journal must
   * not hold), is a `RunValueError`, as a step result JSON cannot hold is; a failed step's own
   * error is kept as its cause.
   */
  settled(workflow: WorkflowRuntime, node: TreeNode, failure?: Error): StepStateFields {
    const before = this.before.get(node);
    if (before === undefined) return NOTHING;
    this.before.delete(node);
    let state: Record<string, unknown> | undefined;
    let unset: string[] | undefined;
    for (const field of observedFieldsOf(workflow)) {
      const name = fieldName(field);
      const read = readField(field, workflow);
      if (read === undefined) continue;
      const was = before.get(name);
      const now = foundAs(read.value);
      const changed = typeof now === 'string' ? now !== was : typeof was === 'string' || was?.value !== now.value;
      if (!changed) continue;
      try {
        if (field.redact) throw redactedRefusal(workflow, node, name);
        if (read.value === undefined) {
          (unset ??= []).push(name);
          continue;
        }
        if (typeof now === 'string') (state ??= {})[name] = JSON.parse(now) as unknown;
        // Throws the store's own refusal, naming where in the value and what.
        else encodeJson(read.value, `Field "${name}" of workflow "${workflow.name}" (as step "${node.name}" left it)`);
      } catch (refused) {
        if (failure === undefined || !(refused instanceof RunValueError)) throw refused;
        throw new RunValueError(`${refused.message} The step had failed: see this error's cause.`, { cause: failure });
      }
    }
    if (state === undefined && unset === undefined) return NOTHING;
    return { ...(state !== undefined ? { state } : {}), ...(unset !== undefined ? { stateUnset: unset } : {}) };
  }

  /**
   * Writes back the fields `record`'s step left, before its value is returned: the step's state
   * snapshot and the code after it see them. A record of a version that kept no state writes nothing.
   */
  restore(workflow: WorkflowRuntime, record: StepRecord): void {
    const state = isFieldMap(record.state) ? record.state : undefined;
    const unset = Array.isArray(record.stateUnset) ? record.stateUnset : undefined;
    if (state === undefined && unset === undefined) return;
    const rank = this.rankOf(record);
    let holds = this.restored.get(workflow);
    if (holds === undefined) this.restored.set(workflow, (holds = new Map()));
    for (const field of observedFieldsOf(workflow)) {
      const name = fieldName(field);
      const kept = state !== undefined && Object.hasOwn(state, name);
      if (!kept && unset?.includes(name) !== true) continue;
      if ((holds.get(name) ?? -1) > rank) continue;
      holds.set(name, rank);
      // A copy: the code may change the value in place, the record stays as stored.
      field.write(workflow, kept ? structuredClone(state[name]) : undefined);
    }
  }

  /** Where `record` is in the write order; counted again only for a record not seen yet. */
  private rankOf(record: StepRecord): number {
    const known = this.ranks.get(record);
    if (known !== undefined) return known;
    this.ranks = new WeakMap();
    let rank = 0;
    for (const each of this.records.values()) this.ranks.set(each, rank++);
    return this.ranks.get(record) ?? rank;
  }
}

// One per durable run, made when its first step starts.
const perRun = new WeakMap<object, StepStates>();

/** The step states of `run`, whose settled steps are `records`. */
export function stepStatesOf(run: object, records: ReadonlyMap<string, StepRecord>): StepStates {
  let states = perRun.get(run);
  if (states === undefined) perRun.set(run, (states = new StepStates(records)));
  return states;
}

/** The field's name as the state snapshot spells it. */
function fieldName(field: ObservedField): string {
  return typeof field.key === 'symbol' ? field.key.toString() : String(field.key);
}

/** The field's value; undefined when reading it threw (nothing to compare or keep). */
function readField(field: ObservedField, workflow: WorkflowRuntime): { readonly value: unknown } | undefined {
  try {
    return { value: field.read(workflow) };
  } catch {
    return undefined;
  }
}

function foundAs(value: unknown): Found {
  if (value === undefined) return { value };
  try {
    return encodeJson(value, 'A field');
  } catch (refused) {
    if (refused instanceof RunValueError) return { value };
    throw refused;
  }
}

function redactedRefusal(workflow: WorkflowRuntime, node: TreeNode, name: string): RunValueError {
  return new RunValueError(
    `Field "${name}" of workflow "${workflow.name}" is redacted and step "${node.name}" changed it: a durable run does not store ` +
      'secrets, so a replay of the step could not put it back. Set it outside steps (a field initializer, the constructor, the ' +
      'workflow factory or run(), which run again on resume).',
  );
}

function isFieldMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
