// Prometheus text scrapes to one OpenMetrics text file: each metric family once (TYPE, HELP), each
// series (label set) contiguous with its points in time order, a timestamp (seconds) on every
// point, the scrape's job, instance and pod as labels, `# EOF` at the end
// (https://prometheus.io/docs/specs/om/open_metrics_spec/). A counter's family name has no `_total`.
import type { Scrape } from '../observe/metrics-scraper.ts';

interface Family {
  type: string;
  help: string;
  /** series key (sample name + labels) -> lines in time order */
  series: Map<string, string[]>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+\S+)?$/;

function familyName(name: string, type: string): string {
  return type === 'counter' ? name.replace(/_total$/, '') : name;
}

const quote = (v: string): string => JSON.stringify(v);

export function toOpenMetrics(scrapes: readonly Scrape[]): string {
  const families = new Map<string, Family>();
  for (const scrape of scrapes) {
    const host = new URL(scrape.target.url).host;
    const extra = `job=${quote(scrape.target.job)},instance=${quote(host)},pod=${quote(scrape.target.pod)}`;
    const seconds = (scrape.atWallMs / 1000).toFixed(3);
    let current: Family | undefined;
    const meta = new Map<string, { help: string; type: string }>();
    for (const line of scrape.text.split('\n')) {
      const type = /^# TYPE (\S+) (\S+)/.exec(line);
      const help = /^# HELP (\S+) (.*)$/.exec(line);
      if (help?.[1]) meta.set(help[1], { help: help[2] ?? '', type: meta.get(help[1])?.type ?? 'unknown' });
      if (type?.[1]) {
        const t = type[2] === 'untyped' ? 'unknown' : (type[2] ?? 'unknown');
        const name = familyName(type[1], t);
        current = families.get(name) ?? { type: t, help: meta.get(type[1])?.help ?? '', series: new Map() };
        families.set(name, current);
      }
      const sample = SAMPLE.exec(line);
      if (!sample || line.startsWith('#') || !current) continue;
      const labels = sample[2]
        ? `{${sample[2].slice(1, -1)}${sample[2].length > 2 ? ',' : ''}${extra}}`
        : `{${extra}}`;
      const key = `${sample[1] ?? ''}${labels}`;
      const points = current.series.get(key) ?? [];
      points.push(`${key} ${sample[3] ?? ''} ${seconds}`);
      current.series.set(key, points);
    }
  }
  const out: string[] = [];
  for (const [name, family] of families) {
    out.push(`# TYPE ${name} ${family.type}`);
    if (family.help) out.push(`# HELP ${name} ${family.help}`);
    for (const points of family.series.values()) out.push(...points);
  }
  out.push('# EOF');
  return `${out.join('\n')}\n`;
}
