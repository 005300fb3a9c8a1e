// fortio's pin lives with the other Go tools (lib/install/fortio.ts): kind's fortio image copies it.
export { FORTIO } from '../../lib/install/fortio.ts';
