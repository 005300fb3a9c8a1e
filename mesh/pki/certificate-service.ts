// The CA over gRPC, as istiod registers it on its 15012 server beside discovery
// (security/pkg/server/ca/server.go 187-190): istio.v1.auth.IstioCertificateService/CreateCertificate
// for istio/ztunnel's binary without FAKE_CA (src/identity/caclient.rs 62-122 at 1.28.1). The logic
// is certificate-request.ts's, shared with the HTTPS/JSON form; this maps the message and the
// `authorization: Bearer <token>` metadata in, and a refusal to istiod's status code out.
import { status } from '@grpc/grpc-js';
import type {
  sendUnaryData,
  ServerUnaryCall,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { asRefusal, signCertificateRequest } from './certificate-request.ts';
import type { CertificateSigner, RefusalCode } from './certificate-request.ts';
import { certificateServiceDefinition } from './certificate-protos.ts';
import type { IstioCertificateRequest, IstioCertificateResponse } from './certificate-protos.ts';

/** A service to add to a grpc-js Server (the one serving ztunnel's delta ADS). */
export interface GrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface CertificateServiceOptions extends CertificateSigner {
  /** Refusals with the reason the caller is not told (istiod logs them: server.go 97, 104, 129). */
  onRefused?(code: RefusalCode, reason: string): void;
  /** Each certificate issued: the identity asked for (or the caller's) and its chain's length. */
  onIssued?(impersonatedIdentity: string, chainLength: number): void;
}

const GRPC_STATUS: Readonly<Record<RefusalCode, status>> = {
  unauthenticated: status.UNAUTHENTICATED,
  'invalid-argument': status.INVALID_ARGUMENT,
  internal: status.INTERNAL,
};

/** The bearer token from the call's metadata (tonic sends `authorization: Bearer <jwt>`). */
function bearerToken(call: ServerUnaryCall<unknown, unknown>): string | undefined {
  const header = String(call.metadata.get('authorization')[0] ?? '');
  return /^Bearer (\S+)$/.exec(header)?.[1];
}

export function createCertificateService(options: CertificateServiceOptions): GrpcService {
  const CreateCertificate = (
    call: ServerUnaryCall<IstioCertificateRequest, IstioCertificateResponse>,
    callback: sendUnaryData<IstioCertificateResponse>,
  ): void => {
    const request = call.request;
    // metadata.ImpersonatedIdentity's string value (server.go 88-89: GetStringValue, '' otherwise).
    const impersonatedIdentity = request.metadata?.fields?.['ImpersonatedIdentity']?.stringValue ?? '';
    signCertificateRequest(options, {
      token: bearerToken(call),
      csr: request.csr,
      validityDurationS: request.validityDuration,
      impersonatedIdentity,
    }).then(
      (certChain) => {
        options.onIssued?.(impersonatedIdentity, certChain.length);
        callback(null, { certChain });
      },
      (err: unknown) => {
        const refusal = asRefusal(err);
        options.onRefused?.(refusal.code, refusal.reason);
        callback({ code: GRPC_STATUS[refusal.code], details: refusal.answer });
      },
    );
  };
  return {
    definition: certificateServiceDefinition,
    implementation: { CreateCertificate },
  };
}
