import type { TreeNode } from '../core/tree-node.js';

/** The `# Lessons from a failed attempt` section, or '' when there is no guidance. Pure and total. */
export function renderGuidance(guidance: readonly string[]): string {
  const items = guidance.map((g) => (typeof g === 'string' ? g.trim() : '')).filter((g) => g !== '');
  if (items.length === 0) return '';
  return `# Lessons from a failed attempt\n${items.map((g) => `- ${g.replace(/\s*\n\s*/g, ' ')}`).join('\n')}`;
}

/**
 * Guidance left by workflow-level reflection on the nearest enclosing step that has any, oldest
 * first — also from a step of an ancestor workflow, since a retried step re-runs its children.
 */
export function guidanceAt(node: TreeNode | undefined): string[] {
  for (let n: TreeNode | undefined = node; n !== undefined; n = n.parent ?? undefined) {
    const guidance = n.guidance;
    if (guidance.length > 0) return [...guidance];
  }
  return [];
}
