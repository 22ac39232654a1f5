import { assertZod4 } from '../checks/zod-version.js';
import { UsageError } from '../errors/groundswell-error.js';
import { assertConfig } from '../checks/assert-config.js';
import { labelOf } from '../checks/label.js';
import { toolSchema } from './tool.schema.js';

/** `defineTool(tool)`, and a tool object handed straight to an agent call. */
export function validateToolDefinition(tool: unknown): void {
  assertZod4();
  assertConfig(toolSchema, tool, () => labelOf('Tool', tool), 'tool');
  const { name, effect, verdict } = tool as { name: string; effect?: string; verdict?: unknown };
  // A verdict on a tool that is not a verifier would never be read: say so instead of ignoring it.
  if (verdict !== undefined && effect !== 'verify') {
    throw new UsageError(`Tool "${name}": verdict reads a verifier's result; declare effect: 'verify'.`);
  }
}
