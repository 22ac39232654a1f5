import { Step, Workflow } from 'groundswell';
import { forceGc, heapUsed, holder } from './harness.js';
class L extends Workflow<number> { c = 0; @Step() async t() { return ++this.c; } override async run() { for (let i=0;i<100000;i++) await this.t(); return this.c; } }
const reg = new FinalizationRegistry((k) => console.log('finalized', k));
let k = 0;
const run = async () => { const w = new L({ name: 'x', retention: { maxChildrenPerNode: 1_000_000 } }); reg.register(w, k++); w.addObserver({ onEvent() {} }); await w.run(); return w; };
async function m() {
  for (let i = 0; i < 4; i++) {
    forceGc(); const before = heapUsed();
    holder.value = await run();
    forceGc(); console.log(i, (before/1e6).toFixed(2), (heapUsed()/1e6).toFixed(2));
    holder.value = undefined;
  }
}
await m();
