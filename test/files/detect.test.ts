import { describe, expect, it } from 'vitest';
import { inspectLog, openLog } from '../../connectors/files/index.js';
import { collect, scratch } from './helpers.js';

describe('format detection and whole-file errors', () => {
  it('detects from the content, not the name', async () => {
    const s = scratch();
    const xes = '<?xml version="1.0"?>\n<log><trace><event><string key="concept:name" value="A"/><date key="time:timestamp" value="2024-01-01T00:00:00Z"/></event></trace></log>';
    expect((await openLog(s.file('really-xes.csv', xes))).format).toBe('xes');
    expect((await openLog(s.file('really-csv.xes', 'case,activity,timestamp\nc,A,2024-01-01\n'))).format).toBe('csv');
    expect((await openLog(s.file('events.txt', '{"caseId":"c","activity":"A","timestamp":"2024-01-01T00:00:00Z"}\n'))).format).toBe('ndjson');
    expect((await openLog(s.file('x.gz.csv', 'case,activity,timestamp\nc,A,2024-01-01\n', { gzip: true }))).format).toBe('csv');
    const bom = await openLog(s.file('bom.csv', '\uFEFFcase,activity,timestamp\nc,A,2024-01-01\n'));
    expect((await collect(bom)).records).toHaveLength(1);
  });

  it('refuses an empty file, a blank file, a binary file and unknown content with stable codes', async () => {
    const s = scratch();
    await expect(openLog(s.file('empty.xes', ''))).rejects.toMatchObject({ code: 'empty_file', message: expect.stringMatching(/empty\.xes is empty/) });
    await expect(openLog(s.file('blank.csv', '\n  \n\t'))).rejects.toMatchObject({ code: 'empty_file' });
    await expect(openLog(s.file('empty.gz', '', { gzip: true }))).rejects.toMatchObject({ code: 'empty_file', message: expect.stringMatching(/after decompression/) });
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256));
    await expect(openLog(s.file('image.csv', binary))).rejects.toMatchObject({ code: 'binary_file' });
    await expect(inspectLog(s.file('image.gz', binary, { gzip: true }))).rejects.toMatchObject({ code: 'binary_file' });
    await expect(openLog(s.file('array.json', '[{"caseId":"c"}]'))).rejects.toMatchObject({ code: 'unknown_format' });
    await expect(openLog(s.file('other.xml', '<html><body/></html>')).then(collect)).rejects.toMatchObject({ code: 'unknown_format', message: expect.stringMatching(/root element is <html>/) });
    await expect(openLog(s.file('nope', 'x'), { format: 'csv', batchSize: 0 })).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(openLog(s.dir + '/missing.xes')).rejects.toMatchObject({ code: 'file_not_found' });
  });
});
