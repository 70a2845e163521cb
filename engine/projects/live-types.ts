// The live state's shape alone (no imports), so the web page can import it as it imports the document's types.

/** Where open cases sit now: one activity's open cases and how long they have waited there. */
export interface LiveActivity {
  activity: string;
  /** Open cases whose last event is this activity. */
  openCases: number;
  /** Hours since those cases' last event, up to `asOf`: median and longest. */
  waitedHours: { median: number; max: number };
  /** The step's usual wait: the median hours from it to the next step over every case (the document node's median_hours_to_next). */
  usualWaitHours: number;
  /** Open cases here that have waited longer than the usual wait. */
  overUsual: number;
}

export interface LiveState {
  /** The time waits are counted up to (the log's end, as the reading counts it): ISO 8601, null without events. */
  asOf: string | null;
  /** Cases read (every kept case). */
  cases: number;
  openCases: number;
  /** Activities with open cases, most first. */
  activities: LiveActivity[];
  method: string;
}
