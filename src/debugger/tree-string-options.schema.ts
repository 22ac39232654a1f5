import { assertConfig } from '../checks/assert-config.js';
import { flag, integer, strict } from '../checks/config-fields.js';

/** Narrower than this, a tree line keeps little more than its indentation. */
const MIN_TREE_WIDTH = 20;

const treeStringOptionsSchema = strict(
  {
    maxChildren: integer(0).optional(),
    showState: flag.optional(),
    maxDepth: integer(0).optional(),
    compact: flag.optional(),
    width: integer(MIN_TREE_WIDTH).optional(),
  },
  'an options object like { compact: true, width: 100 }',
);

/** `toTreeString(node, options)`. */
export function validateTreeStringOptions(options: unknown): void {
  assertConfig(treeStringOptionsSchema, options, 'toTreeString', 'options');
}
