/**
 * Example 4: workflows inside workflows.
 *
 * - a class parent whose @Task({ concurrent: true }) returns child workflows to run in parallel,
 *   reading each child's run() result with resultOf (typed from the child's run())
 * - a child attached through the constructor's parent argument
 * - a functional parent that runs children with ctx.spawnWorkflow
 * - one observer per root counting events per workflow: children's events reach their root
 * - re-parenting: a child detached from one root and attached to another takes its future
 *   events with it
 *
 * Run: npx tsx examples/04-nested-workflows.ts
 */
import {
  createWorkflow,
  ObservedState,
  resultOf,
  Step,
  Task,
  Workflow,
  WorkflowTreeDebugger,
  type WorkflowEvent,
} from 'groundswell';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A leaf workflow: "downloads" a page. Different delays make the concurrent runs interleave. */
class Fetch extends Workflow {
  @ObservedState() bytes = 0;

  constructor(
    readonly url: string,
    private readonly delayMs: number,
  ) {
    super(`fetch ${url}`);
  }

  @Step({ snapshotState: true })
  async download(): Promise<number> {
    await sleep(this.delayMs);
    this.bytes = this.url.length * 100;
    this.logger.info('downloaded', { url: this.url, bytes: this.bytes });
    return this.bytes;
  }

  override async run(): Promise<number> {
    return this.download();
  }
}

/** A child that is handed its parent in the constructor, so it is attached before it runs. */
class Indexer extends Workflow {
  @ObservedState() indexed = 0;
  runs = 0;

  @Step()
  async buildIndex(): Promise<void> {
    this.runs += 1;
    this.indexed += 3;
    this.logger.info('index built', { run: this.runs });
  }

  override async run(): Promise<number> {
    await this.buildIndex();
    return this.indexed;
  }
}

class Crawler extends Workflow {
  @ObservedState() pages = 0;
  indexer: Indexer | undefined;
  fetchedBytes: number[] = [];

  // The returned workflows are attached under this task's node and run at the same time; the
  // task ends once every child has settled, so it takes about as long as the slowest (30ms).
  @Task({ concurrent: true })
  async fetchAll(): Promise<Fetch[]> {
    return [new Fetch('a.example/', 30), new Fetch('b.example/docs', 10), new Fetch('c.example/blog/2024', 20)];
  }

  @Step({ snapshotState: true })
  async index(fetched: Fetch[]): Promise<void> {
    this.pages = fetched.length;
    // `this` as the parent argument attaches the child at once, under this running step.
    this.indexer = new Indexer('Indexer', this);
    await this.indexer.run();
  }

  override async run(): Promise<void> {
    const fetched = await this.fetchAll();
    // The task resolves to the children; resultOf gives each one's run() value (number[] here).
    this.fetchedBytes = fetched.map(resultOf);
    await this.index(fetched);
  }
}

/** Counts the events a root's observer receives, per workflow (names learnt from the events). */
function countEvents(root: Workflow): Map<string, number> {
  const names = new Map<string, string>([[root.id, root.name]]);
  const counts = new Map<string, number>();
  const learn = (event: WorkflowEvent): void => {
    if (event.type === 'workflowStart') names.set(event.workflowId, event.name);
    if (event.type === 'childAttached' || event.type === 'childDetached') names.set(event.childId, event.childName);
  };
  root.addObserver({
    onEvent: (event) => {
      learn(event);
      const name = names.get(event.workflowId) ?? event.workflowId;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    },
  });
  return counts;
}

function printCounts(label: string, counts: Map<string, number>): void {
  const cells = [...counts].map(([name, n]) => `${name}=${n}`).join(', ');
  console.log(`${label}: ${cells}`);
}

// 1. Class parent: every child's events arrive at the single observer on the root.
const crawler = new Crawler();
const crawlerCounts = countEvents(crawler);
await crawler.run();
console.log('== 1. class parent with a concurrent task ==');
console.log(`bytes per child, from resultOf: ${crawler.fetchedBytes.join(', ')}`);
printCounts('events seen by Crawler observer', crawlerCounts);
console.log(new WorkflowTreeDebugger(crawler).toTreeString());

// 2. Functional parent + re-parenting. A child has one parent, so it is detached first; its node
// leaves the Crawler tree (with its history) and its future events go to the new root only.
const indexer = crawler.indexer;
if (indexer === undefined) throw new Error('Crawler did not create its indexer');
crawler.detachChild(indexer);

const publisher = createWorkflow({ name: 'Publisher' }, async (ctx) => {
  return ctx.step('publish', async () => {
    // spawnWorkflow attaches the child under the running step and runs it.
    const indexed = await ctx.spawnWorkflow(indexer);
    const feedBytes = await ctx.spawnWorkflow(new Fetch('feed.example/rss', 5));
    ctx.logger.info('published', { indexed, feedBytes });
    return { indexed, feedBytes };
  });
});
const publisherCounts = countEvents(publisher);
const published = await publisher.run();

console.log('\n== 2. functional parent, Indexer re-parented from Crawler to Publisher ==');
console.log(`result: ${JSON.stringify(published)} (Indexer has run ${indexer.runs} times)`);
// Crawler's count for Indexer is unchanged since part 1; only Crawler's own childDetached and
// treeUpdated events are new. Publisher saw Indexer's second run.
printCounts('events seen by Crawler observer  ', crawlerCounts);
printCounts('events seen by Publisher observer', publisherCounts);

console.log('\n== stats ==');
console.log('Crawler  ', JSON.stringify(new WorkflowTreeDebugger(crawler).getStats()));
console.log('Publisher', JSON.stringify(new WorkflowTreeDebugger(publisher).getStats()));

console.log('\n== trees after the move ==');
console.log(new WorkflowTreeDebugger(crawler).toTreeString());
// Indexer keeps the step of its first run (under Crawler) and adds the one of its second run.
console.log(new WorkflowTreeDebugger(publisher).toTreeString());
