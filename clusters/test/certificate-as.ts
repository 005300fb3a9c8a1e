import type { WorkloadCertificate } from '../../mesh/pki/index.ts';
import { createCaClient } from '../../mesh/pki/index.ts';
import type { LocalBackend } from '../local/index.ts';

/**
 * A workload certificate from the cluster's CA as a client outside the cluster gets one: a
 * service-account token from the API server (`kubectl create token <sa> --audience istio-ca`) and a
 * CSR to the CA's TLS address, checked against the mesh root.
 */
export async function certificateAs(
  backend: LocalBackend,
  namespace: string,
  serviceAccount: string,
): Promise<WorkloadCertificate> {
  const token = await backend.createToken({ namespace, name: serviceAccount });
  return createCaClient({
    address: backend.addresses().controlPlane.ca,
    rootPem: backend.meshRootPem(),
    token: () => token,
    impersonate: false,
  })({ namespace, serviceAccount });
}
