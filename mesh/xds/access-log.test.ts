import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveConnectionTimes, parseAccessLogLine } from './access-log.ts';
import type { ParsedAccessLog } from './access-log.ts';

// Lines as Envoy 1.40 wrote them through the gateway (a workload-rollout run, 2026-11-24).
const OK =
  '{"attempts":1,"authority":"127.215.2.4:8080","bytes_received":0,"bytes_sent":13,"connection_id":12,"connection_termination_details":null,"downstream_local_address":"127.215.2.4:8080","downstream_remote_address":"127.0.0.1:59388","duration":90,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"c93ea9ce-cd3f-41e6-86b9-8157503a336f","requested_server_name":null,"response_code":418,"response_code_details":"via_upstream","response_flags":"-","route_name":"httpbin.default","start_time":"2026-11-24T14:23:38.745Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":376,"upstream_host":"envoy://connect_originate/127.215.2.1:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":"90","upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}';
const UC =
  '{"attempts":1,"authority":"127.215.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":56,"connection_termination_details":null,"downstream_local_address":"127.215.2.4:8080","downstream_remote_address":"127.0.0.1:59838","duration":3,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"ac7ca8f8-b722-4ae7-8e5d-77471d3b35de","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:23:44.487Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":381,"upstream_host":"envoy://connect_originate/127.215.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}';

describe("Envoy's access log (Istio's JSON encoding)", () => {
  it('reads a served request and an HBONE host as ip:port', () => {
    assert.deepEqual(parseAccessLogLine(OK), {
      startWallMs: Date.parse('2026-11-24T14:23:38.745Z'),
      status: 418,
      flags: [],
      details: 'via_upstream',
      durationMs: 90,
      upstream: '127.215.2.1:8080',
      attempts: 1,
      connectionId: 376,
    });
  });

  it("reads a 503 UC with Envoy's details", () => {
    const e = parseAccessLogLine(UC);
    assert.deepEqual(
      [e?.status, e?.flags, e?.details, e?.upstream],
      [503, ['UC'], 'upstream_reset_before_response_started{connection_termination}', '127.215.2.3:8080'],
    );
  });

  it('ignores everything else in the container log', () => {
    for (const line of [
      '2026-11-24T14:23:36.199Z info  pilot-agent started Envoy pid=10212 type=router concurrency=2',
      '[connect_originate] 2026-11-24T14:23:44.487Z UF,URX "tunnel_response:503" upstream=127.215.2.3:15008 authority=127.215.2.3:8080',
      '{"response_code": 200, "start_time": "not a time"}',
      '{"response_code": 200',
      '',
    ])
      assert.equal(parseAccessLogLine(line), undefined, line);
  });

  it("derives each upstream connection's idle time and age from the requests it carried", () => {
    const at = (startWallMs: number, durationMs: number, connectionId?: number): ParsedAccessLog => ({
      startWallMs,
      status: 200,
      flags: [],
      details: 'via_upstream',
      durationMs,
      upstream: '127.0.0.9:8080',
      attempts: 1,
      ...(connectionId === undefined ? {} : { connectionId }),
    });
    const log = [at(5_000, 10, 1), at(1_000, 100, 1), at(1_050, 10, 2), at(2_000, 5), at(9_000, 1, 1)];
    deriveConnectionTimes(log);
    assert.deepEqual(
      log.map((e) => [e.connectionIdleMs, e.connectionAgeMs]),
      [
        [3_900, 4_000], // connection 1: idle since 1,100
        [undefined, 0], // its first request
        [undefined, 0], // connection 2's only one
        [undefined, undefined], // no upstream connection (a local reply)
        [3_990, 8_000], // idle since 5,010
      ],
    );
  });
});
