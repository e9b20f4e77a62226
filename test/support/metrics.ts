/** One scrape of GET /metrics (the Prometheus text format), read as its series. */
export class Scrape {
  private readonly series: Array<{ name: string; labels: Record<string, string>; value: number }> = [];

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line of the Prometheus text format: ${line}`);
      this.series.push({ name: match[1], labels: parseLabels(match[2] ?? ''), value: Number(match[3]) });
    }
  }

  /**
   * The sum of the samples named `name` whose labels include `labels` (all of them when none are given): a counter's
   * value, or a histogram's `_count` over every label set. 0 when there is none, as a counter not yet incremented.
   */
  value(name: string, labels: Record<string, string> = {}): number {
    let sum = 0;
    for (const sample of this.series) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) sum += sample.value;
    }
    return sum;
  }

  /** The label sets of the samples named `name`. */
  labelSets(name: string): Array<Record<string, string>> {
    return this.series.filter((sample) => sample.name === name).map((sample) => sample.labels);
  }
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
  let consumed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    consumed = pattern.lastIndex;
  }
  if (consumed !== text.length) throw new Error(`unreadable labels: {${text}}`);
  return labels;
}

/** GET `base`/metrics, which must answer 200 in the Prometheus text format. */
export async function scrape(base: string | URL): Promise<Scrape> {
  const response = await fetch(new URL('/metrics', base));
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`GET /metrics answered ${type}, not the text format`);
  return new Scrape(await response.text());
}
