/**
 * Three-way merging of the editor's draft (issue "nothing is lost"): `base` is what the editor
 * loaded, `mine` the draft, `theirs` the version stored now. A field only they changed is taken,
 * a field only I changed is kept, a field both changed to the same value is no question; only a
 * field both changed differently is a conflict, to be chosen per field. Fields are groups of
 * draft keys (a start date and time are one field).
 *
 * @example
 *   threeWay(groups, base, mine, theirs) // { merged, conflicts: ['title'] }
 *   changedKeys(mineBody, baseBody) // ['excerpt']: what a save sends
 */

export interface FieldGroup<D> {
  /** the field's name (the i18n label is `editor.<label>`) */
  name: string;
  keys: ReadonlyArray<keyof D>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether the group's values differ between two versions. */
export function differs<D>(group: FieldGroup<D>, a: D, b: D): boolean {
  return group.keys.some((k) => !same(a[k], b[k]));
}

/** Copy the group's values from `from` into `into` (a new object). */
export function take<D>(group: FieldGroup<D>, into: D, from: D): D {
  const out = { ...into };
  for (const k of group.keys) out[k] = from[k];
  return out;
}

/** `mine` with their changes to fields I left alone; the names of the fields both changed differently. */
export function threeWay<D>(groups: ReadonlyArray<FieldGroup<D>>, base: D, mine: D, theirs: D): { merged: D; conflicts: string[] } {
  let merged = { ...mine };
  const conflicts: string[] = [];
  for (const g of groups) {
    const theirsChanged = differs(g, base, theirs);
    if (!theirsChanged) continue;
    if (!differs(g, base, mine)) merged = take(g, merged, theirs);
    else if (differs(g, mine, theirs)) conflicts.push(g.name);
  }
  return { merged, conflicts };
}

/** The keys of a write body whose values differ from the body of the version it was edited from. */
export function changedKeys(body: Record<string, unknown>, from: Record<string, unknown>): string[] {
  return Object.keys(body).filter((k) => !same(body[k], from[k]));
}
