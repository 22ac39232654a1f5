import { splitPlanLines, type PlanLine } from './plan-lines.js';

/** A markdown heading found outside code fences. */
interface PlanHeading {
  /** Number of `#` characters. */
  readonly level: number;
  /** The heading text, trimmed. */
  readonly text: string;
  /** 0-based line index. */
  readonly line: number;
}

/** The line-level layout of a plan file, shared by the reader and the editors. */
export interface PlanStructure {
  readonly lines: readonly PlanLine[];
  readonly headings: readonly PlanHeading[];
  /** Lines inside fenced code blocks (fence lines included): never read as headings or goals. */
  readonly inFence: readonly boolean[];
  /** Line index of the `## Log` heading, or -1 when the file has none. */
  readonly logLine: number;
  /**
   * Line index where the working set ends: the `## Log` heading, else the first durable section
   * (`## Learnings`, `## Papercuts`, `## Appendix`) where a Log heading would go, else the line count.
   */
  readonly foldLine: number;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LOG_HEADING = /^log\b/i;
// Sections the seed keeps below the fold; if `## Log` is missing, the fold sits before the first.
const DURABLE_HEADING = /^(learnings|papercuts|appendix)\b/i;

/** Scans headings (fence-aware) and locates the fold. */
export function scanPlan(text: string): PlanStructure {
  const lines = splitPlanLines(text);
  const headings: PlanHeading[] = [];
  const inFence: boolean[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = FENCE.exec(line.text);
    if (fence !== undefined) {
      inFence.push(true);
      // A fence closes only with the same character, at least as long as the opener.
      const marker = fenceMatch?.[1];
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.text.trim() === marker) {
        fence = undefined;
      }
      return;
    }
    if (fenceMatch?.[1] !== undefined) {
      fence = fenceMatch[1];
      inFence.push(true);
      return;
    }
    inFence.push(false);
    const headingMatch = HEADING.exec(line.text);
    if (headingMatch?.[1] !== undefined) {
      headings.push({ level: headingMatch[1].length, text: (headingMatch[2] ?? '').trim(), line: index });
    }
  });
  const log = headings.find((h) => h.level === 2 && LOG_HEADING.test(h.text));
  const durable = headings.find((h) => h.level === 2 && DURABLE_HEADING.test(h.text));
  const logLine = log?.line ?? -1;
  const foldLine = log?.line ?? durable?.line ?? lines.length;
  return { lines, headings, inFence, logLine, foldLine };
}

/** Offset in the text where line `index` starts (the text length past the last line). */
export function offsetOfLine(structure: PlanStructure, textLength: number, index: number): number {
  return structure.lines[index]?.start ?? textLength;
}
