// Output for CI systems: GitHub Actions' job summary (Markdown appended to the file
// $GITHUB_STEP_SUMMARY names) and workflow-command annotations (`::error title=...::message`),
// both only when running under Actions; elsewhere nothing is written.
import { appendFile } from 'node:fs/promises';

/** Appends Markdown to the job summary when $GITHUB_STEP_SUMMARY is set; true when it did. */
export async function appendJobSummary(
  markdown: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const path = env['GITHUB_STEP_SUMMARY'];
  if (!path) return false;
  await appendFile(path, `${markdown.trimEnd()}\n\n`);
  return true;
}

/** Workflow commands escape %, CR and LF in the message, and also : and , in properties. */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** `::error title=<title>::<message>` under GitHub Actions, else ''. */
export function errorAnnotation(
  title: string,
  message: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (env['GITHUB_ACTIONS'] !== 'true') return '';
  return `::error title=${escapeProperty(title)}::${escapeData(message)}\n`;
}
