/** Why an agent call exists: the purposes above it, from the widest to the narrowest. */
export interface GoalAncestry {
  mission?: string;
  project?: string;
  goal?: string;
  /** Only when given explicitly: the live step already shows in the trajectory section. */
  task?: string;
}
