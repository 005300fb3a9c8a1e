import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A workload-rollout run's gateway container log (Envoy 1.40 under pilot-agent, 2026-11-24,
// run 20261124T143043Z-workload-rollout, pods/istio-system_istio-ingressgateway-856873fa-cn7rt_istio-proxy.log):
// pilot-agent's own lines, the 11 [connect_originate] lines, the 12 failed requests' access-log lines
// and the request before the first failure on its upstream connection (323), in the file's order.
export const GATEWAY_LOG_LINES: readonly string[] = [
  '2026-11-24T14:30:45.460Z info  pilot-agent started Envoy pid=13911 type=router concurrency=2',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":13,"connection_id":53,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:52914","duration":3,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"2aa7cfde-f48c-4a24-ab2a-881fbcf9260b","requested_server_name":null,"response_code":418,"response_code_details":"via_upstream","response_flags":"-","route_name":"httpbin.default","start_time":"2026-11-24T14:30:53.485Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":323,"upstream_host":"envoy://connect_originate/127.157.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":"3","upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":56,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:52950","duration":0,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"0b924bd7-8063-452b-8372-ad9342655bc2","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:53.584Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":323,"upstream_host":"envoy://connect_originate/127.157.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:53.644Z UF,URX "tunnel_response:503" upstream=127.157.2.3:15008 authority=127.157.2.3:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":58,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:52972","duration":6,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"fdb89d04-c7f3-4125-bd56-78d68bc2d442","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:53.644Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":367,"upstream_host":"envoy://connect_originate/127.157.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:53.784Z UF,URX "tunnel_response:503" upstream=127.157.2.3:15008 authority=127.157.2.3:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":205,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53040","duration":2,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"52c944d9-b62b-4f66-83aa-fa6faf982fa6","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:53.784Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":369,"upstream_host":"envoy://connect_originate/127.157.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":207,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53084","duration":1,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"d47eca85-e81e-4c26-8fe4-a6918ffdabe6","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:53.884Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":371,"upstream_host":"envoy://connect_originate/127.157.2.3:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:53.884Z UF,URX "tunnel_response:503" upstream=127.157.2.3:15008 authority=127.157.2.3:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":216,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53242","duration":3,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"5499cb68-05e8-43ee-894a-85f627aa6624","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.204Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":379,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.204Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '[connect_originate] 2026-11-24T14:30:54.225Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":218,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53258","duration":2,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"f62dc45d-336f-4b56-99d6-8b9bf43c2f87","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.225Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":381,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.265Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":95,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53274","duration":6,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"991de125-06e0-41be-98c3-f4fbc887cda4","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.265Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":383,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.344Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":220,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53292","duration":2,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"3b7a7b78-e96c-4229-8465-2a4e6b0a4c96","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.344Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":385,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":99,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53308","duration":1,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"0b431af9-3720-44ba-8d58-5cec99c479db","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.364Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":387,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.365Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '[connect_originate] 2026-11-24T14:30:54.444Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":222,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53346","duration":3,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"b62c12e4-6405-404e-b4e0-784d5ca19871","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.444Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":389,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.484Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":224,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53374","duration":2,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"b3178fbb-bc0d-434f-81cf-6f5cc78e5100","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.484Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":391,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '[connect_originate] 2026-11-24T14:30:54.525Z UF,URX "tunnel_response:503" upstream=127.157.2.2:15008 authority=127.157.2.2:8080',
  '{"attempts":1,"authority":"127.157.2.4:8080","bytes_received":0,"bytes_sent":95,"connection_id":102,"connection_termination_details":null,"downstream_local_address":"127.157.2.4:8080","downstream_remote_address":"127.0.0.1:53396","duration":1,"method":"GET","path":"/status/418","protocol":"HTTP/1.1","request_id":"df2ece73-1445-4958-9298-53381b1d94ae","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","route_name":"httpbin.default","start_time":"2026-11-24T14:30:54.525Z","upstream_cluster":"outbound|8000||httpbin.default.svc.cluster.local","upstream_connection_id":393,"upstream_host":"envoy://connect_originate/127.157.2.2:8080","upstream_local_address":"envoy://internal_client_address/","upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}',
  '2026-11-24T14:31:06.501Z info  pilot-agent received SIGTERM, draining admin=/drain_listeners?graceful exit_on_zero_active_connections=false',
];

/** The sidecar's access log in a sidecar-drain run (2026-11-24): its app had gone, the connect refused. */
export const SIDECAR_UF_LINE =
  '{"attempts":1,"authority":"127.239.2.2:8080","bytes_received":0,"bytes_sent":98,"connection_id":3,"connection_termination_details":null,"downstream_local_address":"127.239.2.1:8080","downstream_remote_address":"192.0.2.2:0","duration":0,"method":"GET","path":"/delay/10","protocol":"HTTP/1.1","request_id":"8092f50d-8181-4ee6-88ac-b934e7b853aa","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}","response_flags":"UF","route_name":"default","start_time":"2026-11-24T14:27:33.525Z","upstream_cluster":"inbound|8080||","upstream_connection_id":0,"upstream_host":"127.0.0.1:8080","upstream_local_address":null,"upstream_service_time":null,"upstream_transport_failure_reason":"delayed_connect_error:_Connection_refused","user_agent":"fortio.org/fortio-1.66.0","x_forwarded_for":"192.0.2.2"}';

/**
 * The gateway's first and last scrape of :15090/stats/prometheus in a later workload-rollout run
 * (20261124T143939Z, with Istio's stats tags: the cluster in `cluster_name`, whole), from its
 * metrics.om with the scraper's job/instance/pod labels taken off: the counters explain reads, the
 * same of xds-grpc, a TYPE line and a histogram bucket. 14 CONNECTs were refused in that run.
 */
export const FIRST_SCRAPE = [
  '# TYPE envoy_cluster_upstream_rq_retry counter',
  'envoy_cluster_upstream_cx_connect_ms_bucket{cluster_name="connect_originate",le="0.5"} 0',
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_total{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_total{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_cx_total{cluster_name="xds-grpc"} 1',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="xds-grpc"} 0',
].join('\n');
export const LAST_SCRAPE = [
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_cx_connect_fail{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 114',
  'envoy_cluster_upstream_cx_destroy_remote{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 15',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_cx_total{cluster_name="connect_originate"} 18',
  'envoy_cluster_upstream_cx_total{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 120',
  'envoy_cluster_upstream_cx_total{cluster_name="xds-grpc"} 1',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_pending_failure_eject{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_retry{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_retry_success{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="connect_originate"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_rx_reset{cluster_name="xds-grpc"} 0',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="connect_originate"} 14',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="outbound|8000||httpbin.default.svc.cluster.local"} 0',
  'envoy_cluster_upstream_rq_tx_reset{cluster_name="xds-grpc"} 0',
].join('\n');

/** A run's container-log folder holding the fixture as the gateway pod's log, and a ztunnel's. */
export async function gatewayLogDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-log-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'istio-system_istio-ingressgateway-856873fa-cn7rt_istio-proxy.log'),
    `${GATEWAY_LOG_LINES.join('\n')}\n`,
  );
  await writeFile(join(dir, 'istio-system_ztunnel-2pg7j_istio-proxy.log'), `${GATEWAY_LOG_LINES[1] ?? ''}\n`);
  return dir;
}
