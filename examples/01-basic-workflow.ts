/**
 * Example 1: a basic workflow with steps.
 *
 * - a Workflow subclass with @ObservedState fields (one redacted) and @Step methods
 * - a step that snapshots state, and a step that fails once and is retried
 * - a root observer printing every event as it arrives
 * - the same ideas in functional form: createWorkflow + ctx.step in a loop and in Promise.all
 *
 * Run: npx tsx examples/01-basic-workflow.ts
 */
import { createWorkflow, ObservedState, Step, Workflow, WorkflowTreeDebugger, type WorkflowEvent } from 'groundswell';

class ReportWorkflow extends Workflow {
  @ObservedState() orders: number[] = [];
  @ObservedState() total = 0;
  // Redacted: it shows as "***" in snapshots, the tree, errors and exports, never its value.
  @ObservedState({ redact: true }) apiToken = 'sk-live-0123456789';

  // Not observed: an implementation detail that only drives the simulated outage below.
  private rateCalls = 0;

  @Step({ logFinish: true })
  async loadOrders(): Promise<void> {
    this.orders = [120, 80, 45];
    this.logger.info('orders loaded', { count: this.orders.length });
  }

  // Fails on the first call and succeeds on the second: the step retries instead of failing the run.
  @Step({ retry: { maxAttempts: 3, backoffMs: 5 } })
  async fetchTaxRate(): Promise<number> {
    this.rateCalls += 1;
    if (this.rateCalls === 1) throw new Error('tax service unavailable (simulated)');
    this.logger.info('tax rate fetched', { attempt: this.rateCalls });
    return 0.2;
  }

  // snapshotState records the observed fields on the workflow node once the step ends.
  @Step({ snapshotState: true })
  async computeTotal(rate: number): Promise<number> {
    const net = this.orders.reduce((sum, amount) => sum + amount, 0);
    this.total = Math.round(net * (1 + rate));
    this.logger.info('total computed', { net, rate, total: this.total });
    return this.total;
  }

  override async run(): Promise<number> {
    await this.loadOrders();
    const rate = await this.fetchTaxRate();
    return this.computeTotal(rate);
  }
}

/** One short line per event; the discriminated union gives each type its own fields. */
function describeEvent(event: WorkflowEvent): string {
  switch (event.type) {
    case 'workflowStart':
      return `workflowStart  ${event.name}`;
    case 'workflowEnd':
      return `workflowEnd    ${event.name} ${event.status}`;
    case 'stepStart':
      return `stepStart      ${event.name}`;
    case 'stepEnd':
      return `stepEnd        ${event.name} ${event.status} after ${event.attempts} attempt(s)`;
    case 'stepRetry':
      return `stepRetry      ${event.name} attempt ${event.attempt} failed (${event.error.message}), retry in ${event.delayMs}ms`;
    case 'stateSnapshot':
      return `stateSnapshot  ${JSON.stringify(event.state)}`;
    case 'error':
      return `error          ${event.error.message}`;
    default:
      return event.type;
  }
}

const report = new ReportWorkflow();
// Observers live on the root and see every event of the tree while it happens.
report.addObserver({ onEvent: (event) => console.log(`  event ${describeEvent(event)}`) });

console.log('== class workflow: events as they arrive ==');
const total = await report.run();
console.log(`result: ${total} (status ${report.status})`);

const debug = new WorkflowTreeDebugger(report);
console.log('\n== logs ==');
console.log(debug.toLogString());
console.log('\n== tree (apiToken is redacted) ==');
console.log(debug.toTreeString());

// Functional form: ctx.step works in ordinary control flow, so a loop and Promise.all just work.
const pipeline = createWorkflow({ name: 'FunctionalPipeline' }, async (ctx) => {
  const squares: number[] = [];
  for (const n of [1, 2, 3]) {
    squares.push(await ctx.step(`square-${n}`, () => n * n));
  }
  // Concurrent steps become sibling nodes under the workflow.
  const [users, items] = await Promise.all([
    ctx.step('fetch-users', async () => ['ada', 'lin']),
    ctx.step('fetch-items', async () => ['book']),
  ]);
  ctx.logger.info('pipeline done', { squares, users: users.length, items: items.length });
  return squares.reduce((sum, n) => sum + n, 0);
});

console.log('\n== functional workflow ==');
console.log(`result: ${await pipeline.run()}`);
console.log(new WorkflowTreeDebugger(pipeline).toTreeString());
