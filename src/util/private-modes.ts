/**
 * Modes for files only their owner may read (cached prompts and answers, durable runs' inputs,
 * answers and signals). Given at creation: the umask can only take bits away, so these hold
 * whatever it is.
 */
export const PRIVATE_FILE_MODE = 0o600;

export const PRIVATE_DIR_MODE = 0o700;
