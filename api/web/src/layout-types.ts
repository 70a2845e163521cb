/**
 * The shapes of a laid-out map, apart from the layout itself: placement.ts (which the server's typecheck reads, for
 * its unit test) uses them without bringing elkjs in.
 */
export interface Point {
  x: number;
  y: number;
}
export interface Layout {
  /** Node centres. */
  positions: Map<string, Point>;
  /** Bend points of each routed edge, in the same frame. */
  bends: Map<string, Point[]>;
}

