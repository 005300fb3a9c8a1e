// fortio's pin lives with the other Go tools (lib/tools/fortio.ts): kind's fortio image copies it.
export { FORTIO } from '../../lib/tools/fortio.ts';
