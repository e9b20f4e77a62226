/**
 * The retrieval evaluation set: every (component, problem, action) of facets.ts is one experience and one task
 * (20 × 20 × 8 = 3,200 each), so each target sits among near-duplicates that share two of its three facets. Queries
 * name a target's three facets the way a user would (facets.ts), one slice per way of asking; they are drawn by a
 * seeded generator, so the set is the same on every run. Queries alternate between the tuning half (even index)
 * and the held-out half (odd index).
 */
import { seededRandom } from '../vectors';
import { ACTIONS, COMPONENTS, PROBLEMS, type Facet } from './facets';

export const SLICES = ['paraphrase', 'synonym', 'word-form', 'short', 'long'] as const;
export type Slice = (typeof SLICES)[number];

export interface Target {
  component: number;
  problem: number;
  action: number;
}

export interface EvalExperience extends Target {
  id: string;
  primaryGoalDescription: string;
  subTaskDescription: string;
  inputContextSummary: string;
  outputSummary: string;
}

export interface EvalTask extends Target {
  id: string;
  originalQuery: string;
  goal: string;
}

export interface EvalQuery {
  text: string;
  slice: Slice;
  half: 'tuning' | 'held-out';
  /** The id (experience or task) the query asks for. */
  target: string;
}

export interface EvalSet {
  experiences: EvalExperience[];
  tasks: EvalTask[];
  experienceQueries: EvalQuery[];
  taskQueries: EvalQuery[];
}

export const SUB_TASKS = [
  'Gather logs and metrics from the {c}',
  'Trace the failing code path in the {c}',
  'Add a failing case for the {c} to the test suite',
  'Write a runbook page about the {c}',
  'Create a dashboard panel and alert for the {c}',
  'Build a minimal script that triggers it in the {c}',
  'Read the pull request that changed the {c}',
  'Redeploy the previous version of the {c}',
];
const CONTEXTS = [
  'Support tickets mention {p} in the {c} since the last release.',
  'On-call saw {p} in the {c} during the nightly batch.',
  'A customer escalated {p} affecting the {c} in production.',
  'Staging shows {p} in the {c} under load tests.',
];
export const OUTPUTS = [
  'Root cause of the {p} identified; notes attached.',
  'Patched the {p}; the error no longer appears.',
  'New tests cover the {p} and pass in CI.',
  'Wiki page explains the {p} and the workaround.',
  'Alert fires when the {p} comes back.',
  'Steps to trigger the {p} are reliable now.',
  'Approved the patch for the {p} after two comments.',
  'Previous release restored; the {p} is gone.',
];
const TASK_REQUESTS = [
  'Please {a} {p} in the {c}',
  'Can you {a} the {p} in our {c}?',
  'I need you to {a} {p} affecting the {c}',
  'Task: {a} {p} in the {c}',
];

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w)\}/g, (_, key: string) => values[key]);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The query of one slice for a target, from the facets' ways of asking (`pick` chooses among templates). */
export function queryText(slice: Slice, c: Facet, p: Facet, a: Facet, pick: () => number): string {
  const choose = <T>(options: T[]): T => options[Math.floor(pick() * options.length)];
  switch (slice) {
    case 'paraphrase':
      return choose(['{a} {p} in {c}', 'how did we {a} {p} in {c}', '{a} {p} seen in {c}']).replace(
        /\{(\w)\}/g,
        (_, key: string) => ({ a: a.paraphrase, p: p.paraphrase, c: c.paraphrase })[key]!,
      );
    case 'synonym':
      return fill(choose(['{a} {p} in the {c}', '{a} the {c} {p}']), { a: a.synonym, p: p.synonym, c: c.synonym });
    case 'word-form':
      return fill(choose(['{a} {p} in {c}', '{c}: {a} {p}']), { a: a.form, p: p.form, c: c.form });
    case 'short':
      return fill(choose(['{c} {p} {a}', '{a} {p} {c}']), { a: a.short, p: p.short, c: c.short });
    case 'long':
      return fill(
        choose([
          'we keep running into {p} with {c} again and I remember someone had to {a} it last quarter, what did they do',
          'before the release I want to {a} {p} in {c}; has an agent done that already and what was the outcome',
          'our team is dealing with {p} in {c} and the plan is to {a} it, looking for earlier attempts',
        ]),
        { a: lowerFirst(a.synonym), p: p.paraphrase, c: c.synonym },
      );
  }
}

function* targets(): Generator<Target> {
  for (let component = 0; component < COMPONENTS.length; component++)
    for (let problem = 0; problem < PROBLEMS.length; problem++)
      for (let action = 0; action < ACTIONS.length; action++) yield { component, problem, action };
}

function drawQueries(ids: string[], all: Target[], perSlice: number, seed: number): EvalQuery[] {
  const random = seededRandom(seed);
  const queries: EvalQuery[] = [];
  const used = new Set<number>();
  for (const slice of SLICES) {
    for (let i = 0; i < perSlice; i++) {
      let index: number;
      do index = Math.floor(random() * all.length);
      while (used.has(index));
      used.add(index);
      const { component, problem, action } = all[index];
      queries.push({
        text: queryText(slice, COMPONENTS[component], PROBLEMS[problem], ACTIONS[action], random),
        slice,
        half: queries.length % 2 === 0 ? 'tuning' : 'held-out',
        target: ids[index],
      });
    }
  }
  return queries;
}

/** The whole set; `perSlice` queries per slice and corpus (40 → 200 experience and 200 task queries). */
export function buildEvalSet(perSlice = 40): EvalSet {
  const all = [...targets()];
  const random = seededRandom(27);
  const experiences = all.map((t, i): EvalExperience => {
    const c = COMPONENTS[t.component].canonical;
    const p = PROBLEMS[t.problem].canonical;
    const a = ACTIONS[t.action].canonical;
    return {
      ...t,
      id: `exp-${String(i).padStart(4, '0')}`,
      primaryGoalDescription: `${a} ${p} in the ${c}`,
      subTaskDescription: fill(SUB_TASKS[t.action], { c }),
      inputContextSummary: fill(CONTEXTS[(t.component + t.problem) % CONTEXTS.length], { c, p }),
      outputSummary: fill(OUTPUTS[t.action], { p }),
    };
  });
  const tasks = all.map((t, i): EvalTask => {
    const c = COMPONENTS[t.component].canonical;
    const p = PROBLEMS[t.problem].canonical;
    const a = ACTIONS[t.action].canonical;
    return {
      ...t,
      id: `task-${String(i).padStart(4, '0')}`,
      originalQuery: fill(TASK_REQUESTS[Math.floor(random() * TASK_REQUESTS.length)], { a: lowerFirst(a), p, c }),
      goal: `${a} ${p}`,
    };
  });
  return {
    experiences,
    tasks,
    experienceQueries: drawQueries(
      experiences.map((e) => e.id),
      all,
      perSlice,
      2701,
    ),
    taskQueries: drawQueries(
      tasks.map((t) => t.id),
      all,
      perSlice,
      2702,
    ),
  };
}
