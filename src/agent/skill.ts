/**
 * Instructions the agent can draw on, sent as a section of the system prompt. (The Messages API
 * has no local skill runtime; see plan/decisions for why skills are rendered into the prompt.)
 */
export interface Skill {
  readonly name: string;
  readonly description?: string;
  readonly content: string;
}

/** The `# Skills` section, or '' when there are none. Pure and total. */
export function renderSkills(skills: readonly Skill[] | undefined): string {
  if (!skills || skills.length === 0) return '';
  const parts = skills.map((skill) => {
    const head = skill.description ? `## ${skill.name}\n${skill.description}` : `## ${skill.name}`;
    return `${head}\n\n${skill.content}`;
  });
  return `# Skills\n\n${parts.join('\n\n')}`;
}
