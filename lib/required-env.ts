// A variable a component cannot start without: every component reads its environment this way, so
// a missing one is refused in the same words wherever it is.

/** The variable's value; an Error naming it when it is unset or empty. */
export function requiredEnv(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`Expected ${name} to be set, got nothing`);
  return value;
}
