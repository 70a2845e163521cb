/**
 * How the page shows the document's text: the service's one rule for
 * control characters (engine/render/safe-text.ts, bundled here too), so a
 * right-to-left override or an escape shows as `\u{202E}` / `\x1b` in every
 * label, panel and table, and long names are cut with an ellipsis, their
 * whole (visible) text on hover. Pure, so tests run it in Node (the DOM
 * helpers that use it are in labels.ts).
 */
import { clip, jsonText, LABEL_MAX, oneLine, visibleText } from '../../../engine/render/safe-text.js';

export { jsonText, LABEL_MAX, oneLine, visibleText };

/** How long a sentence of the document (a statement, a trigger, a method) is shown before it is cut. */
export const SENTENCE_MAX = 240;

/** A name (an activity, a stage, a role, a project) as a label: one line, controls shown, at most LABEL_MAX characters. */
export function labelText(text: string, max = LABEL_MAX): string {
  return clip(text, max);
}

/** The hover text of a label: the whole text shown visibly, or undefined when the label holds all of it. */
export function hoverText(text: string, max = LABEL_MAX): string | undefined {
  const whole = oneLine(text);
  return labelText(text, max) === whole ? undefined : whole;
}
