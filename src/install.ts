import { registerCallInterceptor } from './agent/call-interceptors.js';
import { registerTurnFeature } from './agent/turn-features.js';
import { installDurableRuns } from './durable/runtime/install.js';
import { planReminderFeature } from './plans/plan-reminder-feature.js';
import { reflectionInterceptor } from './reflection/reflection-interceptor.js';
import { installStepReflection } from './reflection/step-reflection.js';
import { checkpointFeature } from './trajectory/checkpoint-feature.js';
import { compactionFeature } from './trajectory/compaction-feature.js';
import { parentSliceFeature } from './trajectory/parent-slice-feature.js';

/**
 * The composition root: plugs the features into the layers that host them, which import none of
 * them. Every entry that can run agents calls it; registering again changes nothing.
 *
 * Turn features run in this order around each request: compaction first (later features see the
 * conversation as sent), then the plan reminder's and the checkpoint's blocks, the parent slice
 * (a system section), and last the durable handoff of a resumed call.
 */
export function installFeatures(): void {
  registerTurnFeature(compactionFeature);
  registerTurnFeature(planReminderFeature);
  registerTurnFeature(checkpointFeature);
  registerTurnFeature(parentSliceFeature);
  // Prompt- and agent-level reflection around the cache; workflow-level on core's step failures.
  registerCallInterceptor(reflectionInterceptor);
  installStepReflection();
  installDurableRuns();
}
