import { createTestApp, type TestApp } from '../../support/app';

/** A seeded generator (mulberry32), so a failure replays the same operations. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['pallet', 'crate', 'dock', 'label', 'scanner', 'forklift', 'invoice', 'gate'];
const OPERATIONS = 1000;
const DAY = 86_400_000;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

it(`after ${OPERATIONS} random lifecycle operations no read ever returns a memory that is not current`, async () => {
  const random = seeded(41);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  /** The model: each recorded experience and whether it is current. */
  const current = new Map<string, boolean>();
  const currentIds = () => [...current].filter(([, is]) => is).map(([id]) => id);
  let recorded = 0;
  let reads = 0;

  const check = (ids: string[], what: string) => {
    for (const id of ids) if (!current.get(id)) throw new Error(`${what} returned ${id}, which is not current`);
  };

  for (let step = 0; step < OPERATIONS; step++) {
    const roll = random();
    if (roll < 0.4 || current.size < 2) {
      const id = `p-${++recorded}`;
      const kind = random();
      // Mostly current; some already expired, some valid only from tomorrow.
      const validity =
        kind < 0.1
          ? { validFrom: new Date(Date.now() - 2 * DAY), validUntil: new Date(Date.now() - DAY) }
          : kind < 0.2
            ? { validFrom: new Date(Date.now() + DAY) }
            : {};
      await app.run(`mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`, {
        input: {
          experienceId: id,
          primaryGoalDescription: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
          subTaskDescription: pick(WORDS),
          initiatingAgentId: 'agent-property',
          finalOutcome: 'SUCCESS',
          ...validity,
        },
      });
      current.set(id, kind >= 0.2);
    } else if (roll < 0.6) {
      const id = pick([...current.keys()]);
      const by = pick([...current.keys()]);
      const result = await app.execute(
        `mutation($id: ID!, $by: ID!) { supersedeExperience(id: $id, by: $by, reason: "property") { experienceId } }`,
        { id, by },
      );
      const allowed = id !== by && current.get(id) && current.get(by);
      if (allowed) {
        expect(result.errors).toBeUndefined();
        current.set(id, false);
      } else {
        expect(result.errors?.[0]?.extensions?.code).toMatch(/^(BAD_USER_INPUT|CONFLICT)$/);
      }
    } else if (roll < 0.7) {
      const id = pick([...current.keys()]);
      const result = await app.execute(
        `mutation($id: ID!) { retireExperience(id: $id, reason: "property") { experienceId } }`,
        { id },
      );
      if (current.get(id)) {
        expect(result.errors).toBeUndefined();
        current.set(id, false);
      } else {
        expect(result.errors?.[0]?.extensions?.code).toBe('CONFLICT');
      }
    } else {
      reads++;
      const read = random();
      if (read < 0.25) {
        const data = await app.run(`query { experiences(first: 500) { edges { node { experienceId } } } }`);
        const listed = data.experiences.edges.map((edge: any) => edge.node.experienceId);
        check(listed, 'experiences');
        expect(listed.sort()).toEqual(currentIds().sort());
      } else if (read < 0.75) {
        const mode = pick(['VECTOR', 'KEYWORD', 'HYBRID']);
        const limit = 1 + Math.floor(random() * 10);
        const data = await app.run(
          `query($query: String!, $mode: SearchMode!, $limit: Int!) {
            searchExperiences(query: $query, mode: $mode, limit: $limit) { experience { experienceId } }
          }`,
          { query: `${pick(WORDS)} ${pick(WORDS)}`, mode, limit },
        );
        const found = data.searchExperiences.map((hit: any) => hit.experience.experienceId);
        check(found, `${mode} search`);
        // A page is full whenever enough current memories contain a query word (vector search always finds some).
        if (mode === 'VECTOR') expect(found.length).toBe(Math.min(limit, currentIds().length));
      } else {
        const id = pick([...current.keys()]);
        const data = await app.run(
          `query($id: ID!) {
            experience(id: $id) { experienceId similar(limit: 5) { experience { experienceId } } }
            kept: experience(id: $id, includeSuperseded: true) { experienceId }
          }`,
          { id },
        );
        expect(data.kept).toEqual({ experienceId: id });
        if (current.get(id)) {
          check(
            data.experience.similar.map((hit: any) => hit.experience.experienceId),
            'similar',
          );
        } else {
          expect(data.experience).toBeNull();
        }
      }
    }
  }
  expect(reads).toBeGreaterThan(200);
  expect(currentIds().length).toBeLessThan(current.size);
}, 120_000);
