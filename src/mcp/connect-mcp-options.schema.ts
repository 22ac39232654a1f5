import { assertConfig } from '../checks/assert-config.js';
import { expected, nonEmptyText, strict, stringRecord } from '../checks/config-fields.js';

const connectMcpOptionsSchema = strict(
  {
    env: stringRecord.optional(),
    signal: expected('an AbortSignal', (v) => v instanceof AbortSignal).optional(),
    clientName: nonEmptyText.optional(),
  },
  'an object like { env?, signal?, clientName? }',
);

/** The options of `connectMcp(config, options)`. */
export function validateConnectMcpOptions(options: unknown): void {
  assertConfig(connectMcpOptionsSchema, options, 'connectMcp', 'options');
}
