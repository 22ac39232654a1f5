import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { PathOutsideRootError, ReadOnlyToolError } from './errors.js';
import { isInside } from './inside.js';
import { openVerified, type OpenKind, type VerifiedHandle } from './verified-open.js';

/**
 * A project root that every path must stay inside. Paths are checked three times: as written (so
 * `..` and foreign absolute paths are refused before touching the disk), after `fs.realpath` (so a
 * symlink inside the root that points outside is refused with a clear message), and, decisively,
 * on the opened descriptor (`open`), since the disk can change between a check and an open.
 */
export class ConfinedRoot {
  /** The root as given, made absolute; absolute paths written against it are accepted. */
  readonly given: string;
  #real: Promise<string> | undefined;

  constructor(root: string) {
    this.given = path.resolve(root);
  }

  /** The root with its own symlinks resolved (e.g. /tmp → /private/tmp), computed on first use. */
  real(): Promise<string> {
    this.#real ??= realpath(this.given).catch((error: unknown) => {
      this.#real = undefined;
      throw new ReadOnlyToolError(`The project root ${this.given} cannot be opened: ${describe(error)}.`, { cause: error });
    });
    return this.#real;
  }

  /** Resolves `requested` (relative to the root, or absolute) to a real path inside the root, or throws. */
  async resolve(requested: string): Promise<string> {
    const rootReal = await this.real();
    if (requested.includes('\0')) throw new ReadOnlyToolError(`The path ${JSON.stringify(requested)} contains a NUL byte.`);
    const lexical = path.resolve(this.given, requested);
    if (!isInside(this.given, lexical) && !isInside(rootReal, lexical)) {
      throw new PathOutsideRootError(requested, path.isAbsolute(requested) ? 'is an absolute path outside the project root' : 'climbs out of the project root');
    }
    let resolved: string;
    try {
      resolved = await realpath(lexical);
    } catch (error) {
      throw new ReadOnlyToolError(`"${requested}" does not exist inside the project root (${describe(error)}).`, { cause: error });
    }
    if (!isInside(rootReal, resolved)) throw new PathOutsideRootError(requested, 'goes through a symlink that points outside the project root');
    return resolved;
  }

  /**
   * Opens `requested` for reading and returns the descriptor only once what was opened is proven
   * inside the root and of `kind`. The realpath step lets a symlink that stays inside the root be
   * named; the open refuses a final component that is (now) a symlink, and whatever an earlier
   * component led to is caught by the check on the descriptor.
   */
  async open(requested: string, kind: OpenKind): Promise<VerifiedHandle> {
    const resolved = await this.resolve(requested);
    return openVerified(resolved, await this.real(), kind, requested);
  }

  /** The path to show the model: relative to the root, with `/` separators, `.` for the root itself. */
  async display(realPath: string): Promise<string> {
    const relative = path.relative(await this.real(), realPath);
    return relative === '' ? '.' : relative.split(path.sep).join('/');
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
