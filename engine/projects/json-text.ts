import { randomBytes } from 'node:crypto';

/**
 * JSON text kept as text inside a value that is serialized later: a graph
 * document in a block's result is spliced into the answer as it was served,
 * not parsed and written again (~40 ms each way for the 4 MB of a
 * 2,000-activity document, on the loop that serializes the answer).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** JSON.stringify of a value, each JsonText in it written as its text (JSON.stringify alone would write `{"text": …}`). */
export function stringifyWithText(value: unknown): string {
  const texts: string[] = [];
  // A marker no data can spell: a string of a fresh random nonce, written with a NUL that JSON escapes.
  const nonce = `\u0000pcg-${randomBytes(12).toString('hex')}-`;
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof JsonText ? `${nonce}${texts.push(v.text) - 1}` : v));
  if (!texts.length) return json;
  const marker = new RegExp(`"${JSON.stringify(nonce).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');
  return json.replace(marker, (_m, i: string) => texts[Number(i)]!);
}
