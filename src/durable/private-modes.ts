/**
 * Modes of what the embedded run store creates. Runs hold inputs, model answers and signals, so
 * only the owner may read them. The umask can only take bits away, so these hold whatever it is.
 */
export const PRIVATE_FILE_MODE = 0o600;

export const PRIVATE_DIR_MODE = 0o700;
