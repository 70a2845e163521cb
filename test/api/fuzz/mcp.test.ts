import { mutateBytes, type Prng } from '../../tools/fuzz.js';
import { GLOBAL } from '../helpers.js';
import { fuzzDoors } from './harness.js';
import type { Case } from './requests.js';
import { type Fuzz, headersFor } from './world.js';

/**
 * The MCP endpoint, with a read key: JSON-RPC right and wrong, tool calls with
 * odd arguments, broken bytes, no key or a global one. Nothing it answers may
 * change anything.
 */

/** The MCP endpoint: JSON-RPC right and wrong, tool calls with odd arguments. Its own errors are JSON-RPC; the key errors are the API's. */
const mcpCase = (f: Fuzz, rng: Prng): Case => {
  const headers = headersFor(f, 'reader', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  const id = rng.pick([1, 'a', null, -1, 1.5, {}, 'x'.repeat(1000)]);
  const args = rng.pick([
    { projectId: f.ids.A },
    { projectId: f.ids.A.toUpperCase() },
    { projectId: crypto.randomUUID() },
    { projectId: 'not-a-guid' },
    { projectId: f.ids.A, limit: -1 },
    { projectId: f.ids.A, cursor: '%zz' },
    {},
    { projectId: f.ids.B, block: { type: 'variants', limit: 5 } },
    { projectId: f.ids.A, block: { type: 'conformance', allowedTransitions: [['a', 'b']] } },
    { projectId: f.ids.A, events: [{ caseId: 'mcp', activity: 'a', timestamp: 0 }] },
  ]);
  const body = rng.pick([
    { jsonrpc: '2.0', id, method: 'tools/list' },
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: rng.pick(['get_graph', 'list_projects', 'graph_versions', 'list_cases', 'run_block', 'ingest_events', 'explain_decision', 'diff_graphs', 'nope']), arguments: args } },
    { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } },
    { jsonrpc: '1.0', id, method: 'tools/list' },
    { id, method: 'tools/list' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }],
    { jsonrpc: '2.0', id, method: 'x'.repeat(5000) },
    [],
    null,
  ]);
  let payload: string | Buffer = JSON.stringify(body);
  const what = [`${JSON.stringify(body).slice(0, 80)}`];
  let status: number[] | undefined;
  let code: string | undefined;
  const kind = rng.weighted([
    ['as is', 5],
    ['bytes', 2],
    ['no key', 1],
    ['global key', 1],
  ] as const);
  if (kind === 'bytes') {
    const m = mutateBytes(rng, Buffer.from(payload));
    payload = m.bytes;
    what.push(m.op);
  } else if (kind === 'no key') {
    delete headers.authorization;
    status = [401];
    code = 'invalid_token';
  } else if (kind === 'global key') {
    headers.authorization = `Bearer ${GLOBAL}`;
    status = [403];
    code = 'forbidden';
  }
  return { door: 'mcp', what: `${kind}: ${what.join(' ')}`, req: { method: 'POST', url: '/mcp', headers, payload }, ...(status ? { status } : {}), ...(code ? { code } : {}), foreignErrors: !code, readOnly: true };
};

fuzzDoors('the MCP endpoint', { mcp: mcpCase });
