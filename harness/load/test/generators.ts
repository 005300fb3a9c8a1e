// The load generators every generator contract test runs against: fortio always (npm run tools
// builds it, or the first run does), k6 where the user has one (this project never builds k6), else
// skipped with what it needs.
import { findK6 } from '../../provision/index.ts';
import type { GeneratorKind } from '../../provision/index.ts';

const k6 = await findK6();

export const GENERATORS: readonly { kind: GeneratorKind; skip: string | false }[] = [
  { kind: 'fortio', skip: false },
  {
    kind: 'k6',
    skip: 'path' in k6 ? false : `needs a k6 1.x or 2.x on PATH or named by K6_BINARY (${k6.reason})`,
  },
];
