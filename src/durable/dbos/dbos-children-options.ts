/** Options of `dbosChildren`. */
export interface DbosChildrenOptions {
  /**
   * How children started together use what the budgets above them have left (their headroom),
   * since their requests are made on other processes where those budgets cannot reserve:
   * - `'split'` (default): each child gets an even share (counts rounded down), held on the
   *   budgets until it ends. Together they never pass a limit; a child whose share is too small
   *   for its work is refused on its worker.
   * - `'whole'`: each child gets all of it. No child is refused early, but children running at
   *   once can together pass a limit (what they spent is counted when they end).
   */
  readonly budgetShare?: 'split' | 'whole';
}
