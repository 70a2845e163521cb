/**
 * What the reading needs to know of how a project's log file was read. The file's reader declares it
 * (connectors/files/formats.ts) and the import keeps it in the project's meta, so the engine never tests a
 * format by its name.
 */
export interface ReadingTraits {
  /** Times written without a zone were read in the import's zone (meta `timezone`): the document says which. */
  zonelessTimes: boolean;
  /** Events relate to objects and a case is an object of one type: the document explains the case notion. */
  objectCentric: boolean;
}

/** The meta key each trait is kept under ('1' or '0'). */
export const READING_TRAIT_META = { zonelessTimes: 'zoneless_times', objectCentric: 'object_centric' } as const satisfies Record<keyof ReadingTraits, string>;

/** The meta an import writes for its reader's traits. */
export function traitsMeta(traits: ReadingTraits): [key: string, value: string][] {
  return (Object.keys(READING_TRAIT_META) as (keyof ReadingTraits)[]).map((t) => [READING_TRAIT_META[t], traits[t] ? '1' : '0']);
}

/**
 * The traits of the file a project was read from; undefined when none was (events over HTTP or Kafka).
 * A project imported before readers declared traits names only its format: the second branch gives the
 * traits its reader then had. It is history, frozen: a format added since always stores its traits.
 */
export function readingTraitsOf(meta: Readonly<Record<string, string>>): ReadingTraits | undefined {
  const zoneless = meta[READING_TRAIT_META.zonelessTimes];
  const objects = meta[READING_TRAIT_META.objectCentric];
  if (zoneless !== undefined && objects !== undefined) return { zonelessTimes: zoneless === '1', objectCentric: objects === '1' };
  if (!meta.format) return undefined;
  return { zonelessTimes: meta.format !== 'ndjson', objectCentric: /ocel/i.test(meta.format) };
}
