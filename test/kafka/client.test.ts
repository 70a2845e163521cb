import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogLevel } from '../../connectors/kafka/client.js';

describe('kafkajs log levels', () => {
  it('tells group-membership answers the consumer gets over as news, every other error response as an error', () => {
    // What kafkajs's Connection logs when a second worker joins the group (seen from `pcg worker --quiet`).
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'The group is rebalancing, so a rejoin is needed', correlationId: 7 })).toBe('info');
    // A commit refused while the other worker of the group left, and the coordinator of a fresh broker.
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'Specified group generation id is not valid' })).toBe('info');
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'The coordinator is not aware of this member' })).toBe('info');
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'The group coordinator is not available' })).toBe('info');
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'Not authorized to access group: Group authorization failed' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, { error: 'This server does not host this topic-partition' })).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, {})).toBe('error');
    expect(kafkaLogLevel(logLevel.WARN, { error: 'The group is rebalancing, so a rejoin is needed' })).toBe('warn');
    expect(kafkaLogLevel(logLevel.INFO, {})).toBe('info');
    expect(kafkaLogLevel(logLevel.DEBUG, {})).toBe('debug');
  });
});
