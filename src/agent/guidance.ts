/** The `# Lessons from a failed attempt` section, or '' when there is no guidance. Pure and total. */
export function renderGuidance(guidance: readonly string[]): string {
  const items = guidance.map((g) => (typeof g === 'string' ? g.trim() : '')).filter((g) => g !== '');
  if (items.length === 0) return '';
  return `# Lessons from a failed attempt\n${items.map((g) => `- ${g.replace(/\s*\n\s*/g, ' ')}`).join('\n')}`;
}
