import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { SystemSections } from '../cache/cache-key.js';
import { renderGoalAncestry, type GoalAncestry } from '../ancestry/goal-ancestry.js';
import type { ResolvedSettings } from './agent-settings.js';
import { renderSkills } from './skill.js';
import { renderGuidance } from './guidance.js';

/** The system prompt of one call: the text (for the cache key) and what is sent. */
export interface SystemPrompt {
  /** All sections joined; undefined when there are none. */
  readonly text: string | undefined;
  /**
   * What goes in the request's `system`: a plain string while there is only the identity section
   * (the request is then exactly what it was before sections existed), else text blocks with
   * `cache_control` on the last stable one, so the API's prompt cache reuses them across turns.
   */
  readonly param: string | TextBlockParam[] | undefined;
  /** The text of each section ('' when empty), so the cache key can hash them one by one. */
  readonly sections: SystemSections;
}

const NO_ANCESTRY = JSON.stringify([undefined, undefined, undefined, undefined]);

/** Renders the stable sections, reusing the last results for unchanged inputs. */
export class SystemPromptBuilder {
  private readonly ancestryMemo = new Map<string, string>();
  private stats = { rendered: 0, reused: 0 };
  private identityOnly: SystemPrompt | undefined;

  /** How often the ancestry section was rendered vs taken from the memo. */
  get sectionStats(): { readonly rendered: number; readonly reused: number } {
    return { ...this.stats };
  }

  /**
   * Sections in order: identity (system text and skills), then `# Why You're Here`. Empty sections
   * are left out with no heading or blank line. Then, volatile, the retry guidance and the turn
   * features' sections (a parent's checkpoint slice), in their registration order.
   */
  build(settings: ResolvedSettings, ancestry: GoalAncestry, guidance: readonly string[] = [], featureSections: readonly string[] = []): SystemPrompt {
    const identity = identityOf(settings);
    const why = this.ancestrySection(ancestry);
    const lessons = featureSections.length === 0 && guidance.length === 0 ? '' : [renderGuidance(guidance), ...featureSections].filter((s) => s !== '').join('\n\n');
    if (why === '' && lessons === '') {
      // The identity alone (most calls): the same frozen result while it stays the same.
      const last = this.identityOnly;
      if (last !== undefined && last.sections.identity === identity) return last;
      const text = identity === '' ? undefined : identity;
      return (this.identityOnly = Object.freeze({ text, param: text, sections: Object.freeze({ identity, ancestry: '', guidance: '' }) }));
    }
    const sections = { identity, ancestry: why, guidance: lessons };
    const blocks: TextBlockParam[] = identity === '' ? [] : [{ type: 'text', text: identity }];
    if (why !== '') blocks.push({ type: 'text', text: why });
    // The cache breakpoint goes on the last stable block; a retry's guidance is volatile, after it.
    const lastStable = blocks[blocks.length - 1];
    if (lastStable !== undefined) lastStable.cache_control = { type: 'ephemeral' };
    if (lessons !== '') blocks.push({ type: 'text', text: lessons });
    return { text: blocks.map((block) => block.text).join('\n\n'), param: blocks, sections };
  }

  private ancestrySection(ancestry: GoalAncestry): string {
    const { mission, project, goal, task } = ancestry;
    // No ancestry (most calls outside a workflow): the same memo key, without serialising it.
    const key =
      mission === undefined && project === undefined && goal === undefined && task === undefined
        ? NO_ANCESTRY
        : JSON.stringify([mission, project, goal, task]);
    const cached = this.ancestryMemo.get(key);
    if (cached !== undefined) {
      this.stats.reused += 1;
      return cached;
    }
    const rendered = renderGoalAncestry(ancestry);
    this.stats.rendered += 1;
    // Bounded: a long-lived agent serving many workflows must not grow without limit.
    if (this.ancestryMemo.size >= 256) this.ancestryMemo.clear();
    this.ancestryMemo.set(key, rendered);
    return rendered;
  }
}

/** The system text and the skills section, the empty ones left out. */
function identityOf(settings: ResolvedSettings): string {
  const system = settings.system ?? '';
  // Without skills (the usual case) there is nothing to join: no arrays per call.
  if (settings.skills.length === 0) return system.trim() === '' ? '' : system;
  return [system, renderSkills(settings.skills)].filter((s) => s.trim() !== '').join('\n\n');
}
