import { describe, expectTypeOf, it } from 'vitest';
import {
  createWorkflow,
  outcomeOf,
  resultOf,
  Workflow,
  type ChildOutcome,
  type FanOutOptions,
  type GroundswellError,
  type ItemOutcome,
  type TaskOptions,
  type WorkflowContext,
  type WorkflowResult,
  type WorkflowResults,
} from 'groundswell';

class Report extends Workflow<{ pages: number }> {
  override async run(): Promise<{ pages: number }> {
    return { pages: 1 };
  }
}
class Untyped extends Workflow {}
const count = createWorkflow('count', () => 3);
const label = createWorkflow('label', async () => 'x');
declare const ctx: WorkflowContext;

describe('child results are typed from run()', () => {
  it('WorkflowResult / WorkflowResults', () => {
    expectTypeOf<WorkflowResult<Report>>().toEqualTypeOf<{ pages: number }>();
    expectTypeOf<WorkflowResult<typeof count>>().toEqualTypeOf<number>();
    expectTypeOf<WorkflowResult<Untyped>>().toEqualTypeOf<unknown>();
    expectTypeOf<WorkflowResults<[Report, typeof label]>>().toEqualTypeOf<[{ pages: number }, string]>();
    expectTypeOf<WorkflowResults<Report[]>>().toEqualTypeOf<Array<{ pages: number }>>();
  });

  it('resultOf and outcomeOf, also as map callbacks', () => {
    expectTypeOf(resultOf(new Report())).toEqualTypeOf<{ pages: number }>();
    expectTypeOf([new Report()].map(resultOf)).toEqualTypeOf<Array<{ pages: number }>>();
    const outcome = outcomeOf(new Report());
    expectTypeOf(outcome).toEqualTypeOf<ChildOutcome<Report>>();
    if (outcome.status === 'fulfilled') expectTypeOf(outcome.value).toEqualTypeOf<{ pages: number }>();
    else expectTypeOf(outcome.error).toEqualTypeOf<GroundswellError>();
    expectTypeOf(outcome.workflow).toEqualTypeOf<Report>();
    // @ts-expect-error -- only workflows have results
    resultOf({ run: async () => 1 });
  });
});

describe('ctx fan-out', () => {
  it('spawnAll: a tuple of results, or outcomes with settle: all', () => {
    expectTypeOf(ctx.spawnAll([count, label])).resolves.toEqualTypeOf<[number, string]>();
    expectTypeOf(ctx.spawnAll([new Report(), label], { concurrency: 2 })).resolves.toEqualTypeOf<[{ pages: number }, string]>();
    const reports: Report[] = [];
    expectTypeOf(ctx.spawnAll(reports, { settle: 'throw' })).resolves.toEqualTypeOf<Array<{ pages: number }>>();
    expectTypeOf(ctx.spawnAll(reports, { settle: 'all', concurrency: 4 })).resolves.toEqualTypeOf<Array<ChildOutcome<Report>>>();
    const options: FanOutOptions = {};
    expectTypeOf(ctx.spawnAll(reports, options)).resolves.toEqualTypeOf<
      Array<{ pages: number }> | Array<ChildOutcome<Report>>
    >();
    // @ts-expect-error -- children are workflows
    void ctx.spawnAll([1, 2]);
  });

  it('map: the awaited values, or item outcomes with settle: all', () => {
    expectTypeOf(ctx.map(['a'], async (word) => word.length)).resolves.toEqualTypeOf<number[]>();
    expectTypeOf(ctx.map([1, 2], (n, index) => ctx.step(`s${index}`, () => `${n}`))).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(ctx.map([1], (n) => n > 0, { settle: 'all' })).resolves.toEqualTypeOf<Array<ItemOutcome<number, boolean>>>();
    // @ts-expect-error -- concurrency is a number
    void ctx.map([1], (n) => n, { concurrency: '2' });
    // @ts-expect-error -- settle is 'throw' or 'all'
    void ctx.map([1], (n) => n, { settle: 'some' });
  });
});

describe('@Task options', () => {
  it('has concurrency and settle', () => {
    expectTypeOf<TaskOptions['concurrency']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<TaskOptions['settle']>().toEqualTypeOf<'throw' | 'all' | undefined>();
  });
});
