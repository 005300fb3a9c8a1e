import { createTokenIssuer } from '../../../mesh/pki/index.ts';
import type { LocalCluster } from './local-cluster.ts';

/** The API server's service-account token issuer (projected tokens, TokenRequest, TokenReview). */
export async function tokensStep(cluster: LocalCluster): Promise<void> {
  cluster.parts.tokens = await createTokenIssuer();
}
