// The area files' entries (mutations, variants) in one catalogue by name.

/** The areas' entries in one record; a name given twice would silently drop one, so it throws. */
export function catalogue<T>(kind: string, ...areas: Record<string, T>[]): Record<string, T> {
  const all: Record<string, T> = {};
  for (const [name, entry] of areas.flatMap((area) => Object.entries(area))) {
    if (name in all) throw new Error(`two ${kind} are named ${name}`);
    all[name] = entry;
  }
  return all;
}
