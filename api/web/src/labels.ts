/**
 * The page's labels as elements: a name cut at LABEL_MAX characters, a
 * sentence at SENTENCE_MAX, a list of names each cut; controls shown
 * (text.ts), and the whole text as the element's title (the browser's
 * tooltip) whenever something was cut. Always text nodes, never HTML.
 */
import { plainText } from './format.js';
import { hoverText, LABEL_MAX, labelText, oneLine, SENTENCE_MAX } from './text.js';
import type { Plain } from './types.js';

/** An element showing `text` as a label (cut at `max`), with the whole text as its title when cut. */
export function labelEl<K extends keyof HTMLElementTagNameMap>(tag: K, text: string, max = LABEL_MAX, className?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  el.textContent = labelText(text, max);
  const hover = hoverText(text, max);
  if (hover !== undefined) el.title = hover;
  if (className) el.className = className;
  return el;
}

/** A project in a list: its name as a label, whole on hover. */
export function projectOption(p: { id: string; name: string }, selected: boolean): HTMLOptionElement {
  const option = new Option(labelText(p.name), p.id, false, selected);
  const hover = hoverText(p.name);
  if (hover !== undefined) option.title = hover;
  return option;
}

/** A name (an activity, a stage, a role…). */
export const name = (text: string, tag: 'span' | 'strong' | 'li' = 'span') => labelEl(tag, text);

/** A sentence of the document (a statement, a trigger). */
export const sentence = (text: string, tag: 'span' | 'div' | 'p' | 'td' = 'div', cls?: string) => labelEl(tag, text, SENTENCE_MAX, cls);

/** Names joined by `sep`, each cut at LABEL_MAX; all of them whole on hover when one was cut. */
export function names(list: readonly Plain[], sep = ', ', tag: 'span' | 'div' = 'span', cls?: string): HTMLElement {
  const texts = list.map(plainText);
  const el = document.createElement(tag);
  el.textContent = texts.map((t) => labelText(t)).join(sep);
  if (cls) el.className = cls;
  const whole = oneLine(texts.join(sep));
  if (el.textContent !== whole) el.title = whole;
  return el;
}
