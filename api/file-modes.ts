/**
 * The modes of what pcg keeps: its owner's alone. A data directory holds every tenant's events, the catalog (key
 * hashes, sealed secrets) and backups of both; nothing there is for other users of the machine.
 */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;
/** The mask the commands that keep data run under (Command.keepsData), so every file they make is private. */
export const PRIVATE_UMASK = 0o077;

/** A file's permission bits with everything but the owner's taken away (backups and restores of an older, 0644 data directory). */
export const ownerOnly = (mode: number): number => mode & 0o700;
