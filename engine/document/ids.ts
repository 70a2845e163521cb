/**
 * The document's ids are slugs of what they name (`w-completeren-aanvraag`,
 * `role-back-office`): readable, and stable while the set of names is.
 */

/** Lower-case ASCII letters and digits joined by '-', accents dropped, at most `max` characters; '' when nothing is left (a non-Latin name). */
export function slug(text: string, max: number): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max);
}

/** `base`, or the first of base-2, base-3, … not yet taken; marks it taken. */
export function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let k = 2; taken.has(id); k++) id = `${base}-${k}`;
  taken.add(id);
  return id;
}
