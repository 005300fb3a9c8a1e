import { createKindTools } from '../../clusters/kind/index.ts';
import { PROJECT_ROOT } from '../paths.ts';

/**
 * `--backend kind`, before any side effect: Docker's engine and kind must answer (ToolMissing, exit
 * 2, saying what to install), so a machine without them gets no half-written run folder.
 */
export async function checkKindTools(): Promise<void> {
  await createKindTools({ buildContext: PROJECT_ROOT }).checkInstalled();
}
