import { describe, expect, it } from 'vitest';
import { XmlError, XmlTokenizer } from '../../connectors/files/index.js';

type Tok = ['open', string, Record<string, string>, boolean] | ['close', string] | ['text', string];

function tokens(chunks: string[] | Buffer[]): Tok[] {
  const out: Tok[] = [];
  const t = new XmlTokenizer({
    open(name, attrs, selfClosing) {
      const a: Record<string, string> = {};
      for (let i = 0; i < attrs.length; i += 2) a[attrs[i]!] = attrs[i + 1]!;
      out.push(['open', name, a, selfClosing]);
    },
    close: (name) => out.push(['close', name]),
    text: (text) => {
      if (text.trim()) out.push(['text', text]);
    },
  });
  if (typeof chunks[0] === 'string') {
    for (const c of chunks as string[]) t.write(c);
    t.end();
  } else {
    for (const c of chunks as Buffer[]) t.writeBytes(c);
    t.endBytes();
  }
  return out;
}

const doc = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE log [ <!ENTITY x "y"> ]>
<!-- a comment with <tags> inside -->
<log a="1" b='two' c = "x &gt; y &amp; &#65;&#x42; &quot;q&quot; &apos;">
  <?pi some instruction?>
  <e k="a>b"/>
  <f>text &lt;here&gt; <![CDATA[<raw & stuff>]]></f>
  <!-- -- -->
  <g   z="ü€𝄞"  />
</log>
`;

const expected: Tok[] = [
  ['open', 'log', { a: '1', b: 'two', c: 'x > y & AB "q" \'' }, false],
  ['open', 'e', { k: 'a>b' }, true],
  ['close', 'e'],
  ['open', 'f', {}, false],
  ['text', 'text <here> '],
  ['text', '<raw & stuff>'],
  ['close', 'f'],
  ['open', 'g', { z: 'ü€𝄞' }, true],
  ['close', 'g'],
  ['close', 'log'],
];

describe('XmlTokenizer', () => {
  it('reads attributes, entities, CDATA, comments, PIs, DOCTYPE and self-closing tags', () => {
    expect(tokens([doc])).toEqual(expected);
  });

  it('gives the same tokens whatever the chunk boundaries (text and bytes)', () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const chunks: string[] = [];
      for (let i = 0; i < doc.length; i += size) chunks.push(doc.slice(i, i + size));
      const got = tokens(chunks);
      // Text may arrive in pieces when a chunk ends inside it; join neighbouring text for the comparison.
      expect(joinText(got)).toEqual(joinText(expected));
      const bytes = Buffer.from(doc, 'utf8');
      const byteChunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) byteChunks.push(bytes.subarray(i, i + size));
      expect(joinText(tokens(byteChunks))).toEqual(joinText(expected));
    }
  });

  it('refuses mismatched tags with the line', () => {
    expect(() => tokens(['<log>\n<a>\n</b>\n</log>'])).toThrow(/line 3: expected <\/a>, found <\/b>/);
  });

  it('refuses a document that ends inside an element or a tag', () => {
    expect(() => tokens(['<log>\n<a x="1"/>\n'])).toThrow(XmlError);
    expect(() => tokens(['<log>\n<a x="1"/>\n'])).toThrow(/ends inside <log>/);
    expect(() => tokens(['<log>\n<a x="1'])).toThrow(/ends inside a tag/);
  });

  it('refuses unquoted attributes and a second root', () => {
    expect(() => tokens(['<log a=1></log>'])).toThrow(/not quoted/);
    expect(() => tokens(['<a/><b/>'])).toThrow(/second root/);
  });
});

function joinText(toks: Tok[]): Tok[] {
  const out: Tok[] = [];
  for (const t of toks) {
    const last = out[out.length - 1];
    if (t[0] === 'text' && last?.[0] === 'text') last[1] += t[1];
    else out.push(t[0] === 'text' ? ['text', t[1]] : t);
  }
  return out;
}
