import { describe, expectTypeOf, it } from 'vitest';
import { createWorkflow, type DurableFactoryContext, type DurableSetting, type DurableWorkflowFactory } from 'groundswell';
import { JournalRunStore, type RunStore } from 'groundswell/durable';

describe('durable: { store }', () => {
  it('takes a RunStore', () => {
    expectTypeOf<RunStore>().toExtend<DurableSetting['store']>();
    createWorkflow({ name: 'Kept', durable: { store: new JournalRunStore() } }, async () => 1);
  });

  it('refuses the options of a store in place of the store', () => {
    // @ts-expect-error a folder is not a store: `new JournalRunStore({ dir })` is
    createWorkflow({ name: 'Kept', durable: { store: { dir: '.groundswell/runs' } } }, async () => 1);
  });

  it('hands a resume factory the run id and store', () => {
    expectTypeOf<Parameters<DurableWorkflowFactory>[1]>().toEqualTypeOf<DurableFactoryContext>();
    expectTypeOf<DurableFactoryContext['runId']>().toEqualTypeOf<string>();
    expectTypeOf<DurableFactoryContext['store']>().toEqualTypeOf<RunStore>();
  });
});
