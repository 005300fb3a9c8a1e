/** The row's ingress_path on kind for each place the load comes from (--load-from). */
export const INGRESS_PATHS = {
  cluster: 'cluster-pod+clusterip',
  host: 'docker-proxy+nodeport',
} as const;
