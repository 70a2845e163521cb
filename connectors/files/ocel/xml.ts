/**
 * A compact, non-streaming XML reader for OCEL files (small to medium). It is
 * forgiving on purpose: at the first fault it stops and returns what it has,
 * with every element it could not finish marked open, so the caller keeps the
 * complete events before the damage and reports the fault with its line.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
  /** False when the input ended (or broke) before the closing tag. */
  closed: boolean;
  line: number;
}

export interface XmlDocument {
  root: XmlElement | undefined;
  fault: { line: number; reason: string } | undefined;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref] ?? whole;
  });
}

const NAME = /^[^\s/>=]+/;
const ATTR = /\s*([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/y;

export function parseXml(source: string): XmlDocument {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let line = 1;
  let pos = 0;
  const fail = (reason: string): XmlDocument => ({ root, fault: { line, reason } });
  const advance = (to: number) => {
    for (let i = pos; i < to; i++) if (source.charCodeAt(i) === 10) line++;
    pos = to;
  };

  while (pos < source.length) {
    const lt = source.indexOf('<', pos);
    const textEnd = lt < 0 ? source.length : lt;
    if (textEnd > pos) {
      const text = source.slice(pos, textEnd);
      const top = stack[stack.length - 1];
      if (top) top.text += decodeEntities(text);
      else if (text.trim()) return fail('text outside the root element');
      advance(textEnd);
    }
    if (lt < 0) break;
    if (source.startsWith('<!--', pos)) {
      const end = source.indexOf('-->', pos + 4);
      if (end < 0) return fail('unterminated comment');
      advance(end + 3);
    } else if (source.startsWith('<![CDATA[', pos)) {
      const end = source.indexOf(']]>', pos + 9);
      if (end < 0) return fail('unterminated CDATA section');
      const top = stack[stack.length - 1];
      if (top) top.text += source.slice(pos + 9, end);
      advance(end + 3);
    } else if (source.startsWith('<?', pos)) {
      const end = source.indexOf('?>', pos + 2);
      if (end < 0) return fail('unterminated processing instruction');
      advance(end + 2);
    } else if (source.startsWith('<!', pos)) {
      // DOCTYPE and friends: skipped, internal subsets included.
      let depth = 0;
      let i = pos + 2;
      for (; i < source.length; i++) {
        const c = source[i];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (i >= source.length) return fail('unterminated declaration');
      advance(i + 1);
    } else if (source[pos + 1] === '/') {
      const end = source.indexOf('>', pos);
      if (end < 0) return fail('unterminated closing tag');
      const name = source.slice(pos + 2, end).trim();
      const top = stack[stack.length - 1];
      if (!top || top.name !== name) return fail(`closing tag </${name}> does not match <${top?.name ?? '(none)'}>`);
      top.closed = true;
      stack.pop();
      advance(end + 1);
    } else {
      const name = NAME.exec(source.slice(pos + 1, pos + 201))?.[0];
      if (!name) return fail('malformed tag');
      const el: XmlElement = { name, attrs: {}, children: [], text: '', closed: false, line };
      let i = pos + 1 + name.length;
      for (;;) {
        ATTR.lastIndex = i;
        const m = ATTR.exec(source);
        if (!m) break;
        el.attrs[m[1]!] = decodeEntities(m[3] ?? m[4] ?? '');
        i = ATTR.lastIndex;
      }
      while (i < source.length && /\s/.test(source[i]!)) i++;
      const selfClosing = source.startsWith('/>', i);
      if (!selfClosing && source[i] !== '>') {
        if (source.indexOf('>', i) < 0) return fail(`input ends inside <${name}>`);
        return fail(`malformed attribute in <${name}>`);
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) return fail('a second root element');
      else root = el;
      if (selfClosing) el.closed = true;
      else stack.push(el);
      advance(i + (selfClosing ? 2 : 1));
    }
  }
  if (!root) return fail('no root element');
  if (stack.length) return fail(`input ends inside <${stack[stack.length - 1]!.name}>`);
  return { root, fault: undefined };
}

export const childrenNamed = (el: XmlElement | undefined, name: string): XmlElement[] => el?.children.filter((c) => c.name === name) ?? [];
export const childNamed = (el: XmlElement | undefined, name: string): XmlElement | undefined => el?.children.find((c) => c.name === name);
