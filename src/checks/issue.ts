/** What kind of problem an issue is; `unrecognized_keys` is reported without the value. */
export type IssueCode = 'invalid_type' | 'custom' | 'unrecognized_keys' | 'invalid_union' | 'invalid_key';

/** One problem found in a checked value: where (keys from the root), and what was expected. */
export interface CheckIssue {
  readonly code: IssueCode;
  readonly path: readonly PropertyKey[];
  /** The expectation ("a non-empty string"), or for unknown keys the whole complaint. */
  readonly message: string;
  /**
   * A soft issue lets a union still pick the option it belongs to (a wrong field inside the right
   * shape); a hard one (wrong type) rules the option out.
   */
  readonly soft: boolean;
}

/** The issues of a failed check, kept as the cause of the error that reports them. */
export class CheckError extends Error {
  readonly issues: readonly CheckIssue[];

  constructor(issues: readonly CheckIssue[]) {
    super(`${issues.length} problem${issues.length === 1 ? '' : 's'} found`);
    this.name = 'CheckError';
    this.issues = issues;
  }
}
