import { assertConfig } from './assert-config.js';
import { labelOf } from './label.js';
import { toolSchema } from './tool.schema.js';

/** `defineTool(tool)`, and a tool object handed straight to an agent call. */
export function validateToolDefinition(tool: unknown): void {
  assertConfig(toolSchema, tool, () => labelOf('Tool', tool), 'tool');
}
