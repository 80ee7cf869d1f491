/**
 * The launcher's measuring aids (server/diagnostics.ts) are off unless their variable is set,
 * and a bad inspector port is one clear configuration error, not a half-started server.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/config.js';
import { diagnosticsFromEnv, diagnosticsMiniflareOptions, HELLO_PATH } from '../../server/diagnostics.js';

describe('serve measuring aids', () => {
  it('are all off by default: no inspector port, no extra worker', () => {
    const diagnostics = diagnosticsFromEnv({});
    expect(diagnostics).toEqual({ benchHello: false });
    expect(diagnosticsMiniflareOptions(diagnostics, '2026-01-01')).toEqual({ shared: {}, workers: [], bindings: {} });
    // Only the exact value 1 turns the hello worker on; an empty inspector variable is unset.
    expect(diagnosticsFromEnv({ SWITCHBOARD_BENCH_HELLO: 'true', SWITCHBOARD_INSPECTOR_PORT: '' })).toEqual({
      benchHello: false,
    });
  });

  it('turn on from their variables', () => {
    const diagnostics = diagnosticsFromEnv({ SWITCHBOARD_INSPECTOR_PORT: '9229', SWITCHBOARD_BENCH_HELLO: '1' });
    expect(diagnostics).toEqual({ inspectorPort: 9229, benchHello: true });
    const options = diagnosticsMiniflareOptions(diagnostics, '2026-01-01');
    expect(options.shared).toEqual({ inspectorPort: 9229 });
    expect(options.workers).toHaveLength(1);
    expect(options.workers[0]).toMatchObject({ name: 'bench-hello', routes: [`*${HELLO_PATH}`] });
  });

  it('arm a fault point only from the test variable, and only one that exists', () => {
    const diagnostics = diagnosticsFromEnv({ SWITCHBOARD_TEST_FAULT_POINT: 'send-committed' });
    expect(diagnostics).toEqual({ benchHello: false, faultPoint: 'send-committed' });
    expect(diagnosticsMiniflareOptions(diagnostics, '2026-01-01').bindings).toEqual({ FAULT_POINT: 'send-committed' });
    expect(() => diagnosticsFromEnv({ SWITCHBOARD_TEST_FAULT_POINT: 'anywhere' })).toThrow(ConfigError);
  });

  it.each(['0', '65536', 'abc', '-1', '92 29', '1e3'])('refuse the inspector port %j', (port) => {
    expect(() => diagnosticsFromEnv({ SWITCHBOARD_INSPECTOR_PORT: port })).toThrow(ConfigError);
  });
});
