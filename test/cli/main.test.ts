import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';

const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const commands = ['simulate', 'inspect', 'import', 'graph', 'schema', 'validate', 'serve'];

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, text: () => ({ out, err }) };
}

describe('pcg command line', () => {
  it('lists every command in --help', async () => {
    const c = capture();
    expect(await main(['--help'], c.io)).toBe(0);
    for (const name of commands) expect(c.text().out).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it.each(commands)('%s --help prints its usage and exits 0', async (name) => {
    const c = capture();
    expect(await main([name, '--help'], c.io)).toBe(0);
    expect(c.text().out).toMatch(/usage/i);
    expect(c.text().out).toContain(name);
  });

  it('refuses an unknown command and an unknown option with exit code 2', async () => {
    const a = capture();
    expect(await main(['frobnicate'], a.io)).toBe(2);
    expect(a.text().err).toContain("unknown command 'frobnicate'");
    const b = capture();
    expect(await main(['simulate', '--no-such-option'], b.io)).toBe(2);
    expect(b.text().err).toMatch(/no-such-option/);
  });

  it('runs as a binary through tsx, as `npx pcg` does', () => {
    const out = execFileSync(process.execPath, [bin, 'simulate', '--list'], { encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(['order-to-cash', 'claims', 'helpdesk', 'patient-care', 'freight']);
  });
});
