/**
 * Whether a failed `import()` (or `require`) of an optional peer means the package is not
 * installed, as opposed to a package that is there but failed while loading.
 */
export function isMissingModule(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
