// When the run started and what code, generator and Envoy ran it.
import { section } from './column.ts';
import type { RowInput } from './row-input.ts';

export const PROVENANCE_SECTION = section(
  {
    started_at: { role: 'bookkeeping', note: 'wall-clock start, ISO 8601 UTC' },
    git_sha: { role: 'bookkeeping', note: 'the code that ran (`git rev-parse --short HEAD`)' },
    generator_version: { role: 'bookkeeping', note: "the load generator's version" },
    // Schema 8: older rows ran the Node imitation of Envoy, no Envoy at all (''); a row of the real
    // Envoy is another gateway, so it does not key with them.
    envoy_version: {
      role: 'parameter',
      note: "the gateway's and the sidecar's Envoy (`envoy --version`); empty in rows from before schema 8 (the Node imitation)",
      added: { since: 8, olderRowsRan: '' },
    },
  },
  ({ facts }: RowInput) => ({
    started_at: new Date(facts.startedAtWallMs).toISOString(),
    git_sha: facts.gitSha,
    generator_version: facts.generator.version,
    envoy_version: facts.envoyVersion,
  }),
);
