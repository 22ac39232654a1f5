import { expected, func, oneOf, strict, text, zodSchema } from '../checks/config-fields.js';

/** The API's rule for tool names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const toolSchema = strict(
  {
    name: expected<string>(`a tool name matching ${TOOL_NAME} (the API's rule)`, (v) => typeof v === 'string' && TOOL_NAME.test(v)),
    description: text,
    input: zodSchema,
    execute: func,
    effect: oneOf(['read', 'mutate', 'verify']).optional(),
    target: func.optional(),
    verdict: func.optional(),
    needsApproval: expected<boolean | ((input: unknown) => unknown)>('true, false or a function of the input', (v) => typeof v === 'boolean' || typeof v === 'function').optional(),
  },
  'a tool (defineTool({ name, description, input, execute }))',
);
