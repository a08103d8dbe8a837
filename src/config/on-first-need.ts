// A module loaded on first need rather than by every command that imports its caller: require()
// where modules are CommonJS (the built CLI, or the sources under tsx), import() where they are ES
// modules (vitest). Both loaders name the module themselves, relative to their own file.
export async function onFirstNeed<T>(required: () => T, imported: () => Promise<T>): Promise<T> {
  try {
    return required();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    return imported();
  }
}
