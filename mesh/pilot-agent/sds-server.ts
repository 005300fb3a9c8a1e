import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { WorkloadCertificate } from '../pki/index.ts';
import { SDS_DEFAULT, SDS_ROOT } from '../xds/istio-clusters.ts';
import { failCall, sdsService, TYPE_URL } from '../xds/index.ts';

interface SecretRequest {
  resource_names?: string[];
  response_nonce?: string;
  error_detail?: { message?: string };
}

export interface SdsServer {
  socketPath: string;
  /** Secrets sent, by name (Envoy asks for `default` and `ROOTCA`). */
  served(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** The two secrets pilot-agent serves its Envoy (pkg/istio-agent/xds_proxy + security/pkg/nodeagent/sds). */
function secretsOf(cert: WorkloadCertificate): Map<string, Record<string, unknown>> {
  return new Map([
    [
      SDS_DEFAULT,
      {
        '@type': TYPE_URL.secret,
        name: SDS_DEFAULT,
        tls_certificate: {
          certificate_chain: { inline_bytes: Buffer.from(cert.certPem) },
          private_key: { inline_bytes: Buffer.from(cert.keyPem) },
        },
      },
    ],
    [
      SDS_ROOT,
      {
        '@type': TYPE_URL.secret,
        name: SDS_ROOT,
        validation_context: { trusted_ca: { inline_bytes: Buffer.from(cert.rootPem) } },
      },
    ],
  ]);
}

/**
 * pilot-agent's secret discovery service for its own Envoy, on a unix socket in the pod (Istio:
 * ./var/run/secrets/workload-spiffe-uds/socket): the workload key was made here and the
 * certificate fetched with a CSR, so the key reaches Envoy only over this socket, never the network.
 * State of the world per stream, one answer per set of names asked, ACKs and NACKs by nonce.
 */
export async function startSdsServer(options: {
  socketPath: string;
  cert: WorkloadCertificate;
  onNack?: (message: string) => void;
}): Promise<SdsServer> {
  const secrets = secretsOf(options.cert);
  const served = new Map<string, number>();
  let nonce = 0;
  const server = new Server();
  server.addService(sdsService(), {
    StreamSecrets: (call: ServerDuplexStream<SecretRequest, unknown>) => {
      let lastNames = '';
      let lastNonce = '';
      call.on('data', (req: SecretRequest) => {
        if (req.error_detail) {
          options.onNack?.(req.error_detail.message ?? '');
          return;
        }
        const names = [...(req.resource_names ?? [])].sort();
        if (req.response_nonce && req.response_nonce === lastNonce && names.join(',') === lastNames) return; // ACK
        const unknown = names.filter((n) => !secrets.has(n));
        if (unknown.length) {
          failCall(call, status.NOT_FOUND, `no secret named ${unknown.join(', ')}`);
          return;
        }
        lastNames = names.join(',');
        lastNonce = String(++nonce);
        for (const n of names) served.set(n, (served.get(n) ?? 0) + 1);
        call.write({
          version_info: options.cert.notAfter.toISOString(),
          type_url: TYPE_URL.secret,
          nonce: lastNonce,
          resources: names.map((n) => secrets.get(n)),
        });
      });
      call.on('end', () => call.end());
      call.on('error', () => undefined);
    },
    DeltaSecrets: (call: ServerDuplexStream<unknown, unknown>) => {
      failCall(call, status.UNIMPLEMENTED, 'delta SDS is not served');
    },
    FetchSecrets: (_call: unknown, callback: (err: Error) => void) => {
      callback(Object.assign(new Error('use StreamSecrets'), { code: status.UNIMPLEMENTED }));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(`unix://${options.socketPath}`, ServerCredentials.createInsecure(), (err) => {
      if (err) reject(err);
      else resolve();
    });
  });
  return {
    socketPath: options.socketPath,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          resolve();
        });
      }),
  };
}
