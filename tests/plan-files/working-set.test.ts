import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/groundswell-error.js';
import { workingSet } from '../../src/plan-files/index.js';
import { AWKWARD_PLAN, SAMPLE_PLAN } from './sample-plan.js';

describe('workingSet', () => {
  it('is the text above ## Log, byte for byte', () => {
    const above = workingSet(SAMPLE_PLAN);
    expect(above).toBe(SAMPLE_PLAN.slice(0, SAMPLE_PLAN.indexOf('## Log')));
    expect(above).toContain('<!-- the fold');
    expect(above).not.toContain('drafted the plan');
  });

  it('keeps CRLF line endings', () => {
    expect(workingSet(AWKWARD_PLAN)).toBe(AWKWARD_PLAN.slice(0, AWKWARD_PLAN.indexOf('## Log')));
  });

  it('is the whole text above the durable sections when there is no Log heading', () => {
    expect(workingSet('# P\n- [ ] goal: a\n## Appendix\nmore\n')).toBe('# P\n- [ ] goal: a\n');
    expect(workingSet('# P\nno fold')).toBe('# P\nno fold');
  });

  it('returns a working set within the bound unchanged', () => {
    expect(workingSet(SAMPLE_PLAN, { maxChars: 100_000 })).toBe(workingSet(SAMPLE_PLAN));
  });

  it('bounds a huge plan, cuts at a line break and says it cut', () => {
    const goals = Array.from({ length: 5000 }, (_, i) => `${i + 1}. [ ] goal: step ${i} of the huge plan 🚀`).join('\n');
    const huge = `# Huge\n\n## Goals\n\n${goals}\n\n## Log\n- done\n`;
    const bounded = workingSet(huge, { maxChars: 2000 });
    expect(bounded.length).toBeLessThanOrEqual(2000);
    expect(bounded.startsWith('# Huge\n\n## Goals\n\n1. [ ] goal: step 0 of the huge plan 🚀\n')).toBe(true);
    const [head, marker] = [bounded.slice(0, bounded.lastIndexOf('\n') + 1), bounded.slice(bounded.lastIndexOf('\n') + 1)];
    expect(huge.startsWith(head)).toBe(true);
    const omitted = huge.indexOf('## Log') - head.length;
    expect(marker).toBe(`[working set truncated: ${omitted} more characters above the fold; read the plan file for the rest]`);
  });

  it('does not split a surrogate pair when one line is longer than the bound', () => {
    const bounded = workingSet(`${'🚀'.repeat(500)}\n## Log\n`, { maxChars: 300 });
    expect(bounded.length).toBeLessThanOrEqual(300);
    expect(bounded).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(bounded).toMatch(/^(?:🚀)+\n\[working set truncated/u);
  });

  it('uses the file line ending before the marker', () => {
    const crlf = `# P\r\n${'- line of text\r\n'.repeat(100)}## Log\r\n`;
    const bounded = workingSet(crlf, { maxChars: 400 });
    expect(bounded.length).toBeLessThanOrEqual(400);
    expect(bounded).toMatch(/- line of text\r\n\[working set truncated: \d+ more/);
  });

  it('refuses a bound too small for the marker, or not an integer', () => {
    expect(() => workingSet(SAMPLE_PLAN, { maxChars: 10 })).toThrow(UsageError);
    expect(() => workingSet(SAMPLE_PLAN, { maxChars: 1.5 })).toThrow(UsageError);
  });
});
